"""One sentence for every bad input: a database damaged past its header, an output location that cannot
be written, a folder given as a recording, an unknown lever, one database to compare, a problem larger
than any GPU, an export whose best is the seed; and texts printed as written (rich read `[tpe]` as
markup). Each is an exit code and a sentence, never a traceback; committed databases are read on copies."""
import json
import os
import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

from agent.cli import app
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store import open_db
from store import queries as q

from recorded import RESULTS

RUN2 = RESULTS / "2026-11-30_h200_run2" / "fa5090.db"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def said(res, code: int, *words: str) -> str:
    """The command ended with `code` and one sentence holding `words`, not a traceback."""
    assert res.exit_code == code, res.output
    assert isinstance(res.exception, SystemExit) or res.exception is None, res.exception
    assert "Traceback" not in res.output
    last = res.output.strip().splitlines()[-1]
    for w in words:
        assert w in last, (w, last)
    return last


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.db"
    shutil.copy(RUN2, path)
    return path


@pytest.fixture
def damaged(tmp_path):
    """run2's database with its header, schema, migrations and runs intact and every other page but the
    experiments table's root overwritten: SQLite opens it and reads the run, then fails (or finds no row)
    on the experiments' pages."""
    path = tmp_path / "damaged.db"
    shutil.copy(RUN2, path)
    c = sqlite3.connect(path)
    size, count = c.execute("PRAGMA page_size").fetchone()[0], c.execute("PRAGMA page_count").fetchone()[0]
    keep = {1} | {r[0] for r in c.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name IN "
                                          "('_sqlite_migrations', 'runs', 'experiments') AND type IN ('table', 'index')")}
    c.close()
    data = bytearray(path.read_bytes())
    for page in range(2, count + 1):
        if page not in keep:
            start = (page - 1) * size
            data[start + 8:start + size] = bytes((i * 37 + page) % 251 for i in range(size - 8))
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("args", [["history"], ["report", "--out", "{tmp}/rep"], ["export", "best", "-o", "{tmp}/x.cu"],
                                  ["show", 9], ["shelf"], ["history", "--all", "--json"]],
                         ids=["history", "report", "export", "show", "shelf", "history_json"])
def test_a_database_damaged_past_its_header_is_one_sentence(damaged, tmp_path, args):
    pytest.importorskip("matplotlib") if args[0] == "report" else None
    res = invoke(*[str(a).format(tmp=tmp_path) for a in args], "--db", damaged)
    last = said(res, 1, "damaged", "nothing was changed")
    assert "There is no" not in last  # `show 9` never claims the row is absent when the file is damaged
    assert str(damaged) in last


def test_compare_names_the_damaged_one_of_two(damaged, good):
    said(invoke("compare", good, damaged), 1, f"{damaged} is damaged")
    said(invoke("compare", f"{good}:1", f"{damaged}:1"), 1, f"{damaged} is damaged")
    assert f"{good} is damaged" not in invoke("compare", good, damaged).output


def test_an_intact_database_still_says_a_missing_row_is_missing(good):
    said(invoke("show", 999, "--db", good), 1, "There is no experiments row with id 999")


def _unwritable(tmp_path, how: str):
    """A place no file can be written: a path under a regular file (any user), or a read-only folder
    (a user whom permissions bind; root writes through them)."""
    if how == "under_a_file":
        (tmp_path / "afile").write_text("")
        return tmp_path / "afile"
    if os.geteuid() == 0:
        pytest.skip("root writes into a read-only folder")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    return ro


WHERE = ["under_a_file", "read_only_folder"]


@pytest.mark.parametrize("how", WHERE)
def test_a_report_into_an_unwritable_folder_is_one_sentence(good, tmp_path, how):
    pytest.importorskip("matplotlib")
    said(invoke("report", "--out", _unwritable(tmp_path, how) / "rep", "--db", good), 1, "cannot write the report to")


@pytest.mark.parametrize("how", WHERE)
def test_an_export_into_an_unwritable_folder_is_one_sentence(good, tmp_path, how):
    where = _unwritable(tmp_path, how)
    said(invoke("export", "best", "-o", where / "x.cu", "--db", good), 1, f"cannot write {where / 'x.cu'}")
    said(invoke("export", "--dispatch", "--no-build", "--db", good, "-o", where / "d.cu"), 1,
         f"cannot write {where / 'd.cu'}")


def test_an_export_whose_write_fails_says_so(good, tmp_path, monkeypatch):
    """The write itself refused (EACCES, as in a read-only folder), for a user root would be too."""
    from pathlib import Path

    def refuse(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_text", refuse)
    said(invoke("export", "best", "-o", tmp_path / "x.cu", "--db", good), 1,
         f"cannot write {tmp_path / 'x.cu'} (Permission denied)")
    said(invoke("export", "--dispatch", "--no-build", "--db", good, "-o", tmp_path / "d.cu"), 1,
         f"cannot write {tmp_path / 'd.cu'} (Permission denied)")


@pytest.mark.parametrize("how", WHERE)
def test_a_run_whose_database_cannot_be_created_is_one_sentence_before_it_starts(run2, tmp_path, how):
    where = _unwritable(tmp_path, how)
    res = invoke("run", "--replay", run2 / "recording.jsonl", "--budget", 3, "--db", where / "new.db")
    said(res, 1, f"{where / 'new.db'}", "give --db a path in a folder you can write")


def test_a_folder_given_as_a_recording_names_the_recordings_in_it(run2, tmp_path):
    said(invoke("run", "--replay", run2, "--db", tmp_path / "r.db"), 1, "is a folder", "recording.jsonl")
    said(invoke("run", "--replay", tmp_path, "--db", tmp_path / "r.db"), 1, "is a folder", "holds none")
    assert not (tmp_path / "r.db").exists()  # refused before a database was created


def test_an_unknown_lever_in_history_is_a_usage_error_with_the_known_ones(good):
    said(invoke("history", "--lever", "nosuchlever", "--db", good), 2, "unknown lever 'nosuchlever'", "known:",
         "tensor_cores", "`fa5090-search levers`")
    said(invoke("history", "--lever", "swizle", "--db", good), 2, "did you mean swizzle")
    ok = invoke("history", "--lever", "swizzle", "--json", "--db", good)
    assert ok.exit_code == 0 and {r["lever"] for r in json.loads(ok.output)} == {"swizzle"}


def test_compare_with_one_run_says_what_it_shows(good):
    res = invoke("compare", good)
    assert res.exit_code == 0
    assert "one run given" in res.output and "its summary alone" in res.output and "compare a.db b.db" in res.output
    res = invoke("compare", good, "--json")
    assert res.exit_code == 0 and len(json.loads(res.stdout)) == 1  # the note goes to stderr, the JSON alone to stdout


def test_export_best_json_prints_json(good, tmp_path):
    res = invoke("export", "best", "--json", "-o", tmp_path / "k.cu", "--db", good)
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["file"] == str(tmp_path / "k.cu") and got["knobs"] == "mma/pad/cp_async/ex2/t64x64w4"
    assert got["build"].startswith("nvcc -O3") and got["run_problem"] == "./attn 2 16 2048 0" and got["note"] is None
    assert (tmp_path / "k.cu").is_file()


def test_export_best_of_a_run_that_kept_nothing_says_it_is_the_naive_seed(tmp_path):
    path = tmp_path / "none.db"
    db = open_db(path)
    rid = q.create_run(db, gpu_name="NVIDIA H200", problem_key=Shape(B=2, H=16, N=2048, D=128).key(),
                       problem=Shape(B=2, H=16, N=2048, D=128).model_dump(), seed_knobs=SEED.model_dump(mode="json"))
    for seq, (lever, outcome) in enumerate([("tensor_cores", "CRASH"), ("exp2", "SLOWER"), ("swizzle", "WRONG")], 1):
        q.record_experiment(db, rid, seq=seq, kind="lever", lever=lever, outcome=outcome)
    q.update_run(db, rid, status="budget")
    db.close()
    res = invoke("export", "best", "-o", tmp_path / "k.cu", "--db", path)
    assert res.exit_code == 0, res.output
    assert "run 1 kept nothing (3 experiment(s), none KEPT), so its best is its seed: the naive seed" in res.output
    got = json.loads(invoke("export", "best", "--json", "-o", tmp_path / "k.cu", "--db", path).stdout)
    assert "the naive seed" in got["note"] and got["knobs"] == SEED.label()


def test_a_problem_larger_than_any_gpu_is_refused_before_anything_is_built(tmp_path):
    res = invoke("run", "--seqlen", 100_000_000_000, "--db", tmp_path / "n.db")
    said(res, 2, "does not fit", "q, k, v and o take 2 B x B2 x (2 x H16 + 2 x Hkv16) x N100000000000 x D128",
         "3.277e+15 B", "more than any single GPU holds")
    assert not (tmp_path / "n.db").exists() and not (tmp_path / "n_artifacts").exists()
    from experiments.problem import memory_refusal

    s = Shape(B=2, H=16, N=8192, D=128)
    assert memory_refusal(s) is None and memory_refusal(s, 141 * 10**9, "NVIDIA H200") is None
    big = Shape(B=64, H=64, N=1 << 20, D=128)  # 4 TiB of tensors
    assert "more than the 141 GB of NVIDIA H200" in memory_refusal(big.model_copy(update={"N": 1 << 16}), 141 * 10**9,
                                                                   "NVIDIA H200")
    assert "more than any single GPU" in memory_refusal(big)


@pytest.mark.parametrize("args, extra", [(["run", "--help"], "'fa5090-search[tpe]'"),
                                         (["run", "--help"], "'fa5090-search[dist]'"),
                                         (["report", "--help"], "'fa5090-search[report]'")])
def test_install_hints_print_as_written_in_help(args, extra, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line each, so the hint is not folded
    res = invoke(*args)
    assert res.exit_code == 0 and extra in res.output


def test_install_hints_print_as_written_in_errors(monkeypatch, tmp_path):
    """A missing optional dependency: its one sentence keeps the extra's name."""
    import agent.report

    def no_matplotlib(*a, **k):
        raise agent.report.MatplotlibMissing("`report` draws with matplotlib: pip install 'fa5090-search[report]' "
                                             "(or matplotlib)")

    monkeypatch.setattr(agent.report, "write", no_matplotlib)
    shutil.copy(RUN2, tmp_path / "g.db")
    said(invoke("report", "--db", tmp_path / "g.db", "--out", tmp_path / "r"), 1, "pip install 'fa5090-search[report]'")


def test_a_workers_stderr_in_a_rejection_or_warning_prints_as_written():
    """A CRASH's detail is the worker's stderr: brackets in it are text (rich dropped `[rank0]` and raised
    on a stray closing tag)."""
    import io

    from rich.console import Console

    from agent import events as ev
    from agent.progress import Reporter
    from experiments.outcome import Outcome

    out = io.StringIO()
    with Reporter(Console(file=out, width=300), 2) as say:
        say(ev.Rejected(seq=1, lever="exp2", outcome=Outcome.CRASH, detail="[rank0]: CUDA error [/cuda] at fa.cu:12"))
        say(ev.Warn(text="pip install 'fa5090-search[tpe]'"))
    assert "[rank0]: CUDA error [/cuda] at fa.cu:12" in out.getvalue()
    assert "pip install 'fa5090-search[tpe]'" in out.getvalue()
