"""Issue 12, the remaining parts: a replay that reuses the recorded run's options, `show` pointing at
the files where they are now, choices as choices (one exit code for a bad value everywhere), numpy
declared, `--json` on every listing and tables that do not fold in a pipe. On the committed H200 runs."""
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "results"
RUN2 = RES / "2026-11-30_h200_run2"
AVR = RES / "2026-11-30_h200_agent_vs_random"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_numpy_is_a_declared_dependency():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.match(r"numpy\b", d) for d in deps)


def test_show_prints_missing_values_as_dashes_and_the_csv_where_it_is_now(tmp_path):
    res = invoke("show", 2, "--db", AVR / "n8192_agent.db")  # the A/A null: no p10/p90, no AB/BA halves
    assert res.exit_code == 0, res.output
    assert "(p10 -, p90 -; AB -, BA -)" in res.output and "0.00000" not in res.output
    assert "╭" not in res.output  # plain lines in a pipe, no frame as wide as the longest line
    # run2 stored the H200's absolute path (/root/out/run/...); the file is beside the database now
    res = invoke("show", 5, "--db", RUN2 / "fa5090.db")
    assert "/root/out" not in res.output
    assert f"ncu CSV {RUN2 / 'fa5090_artifacts' / 'run-1' / 'ncu_exp5_4c0222433323.csv'}" in res.output
    e = json.loads(invoke("show", 5, "--json", "--db", RUN2 / "fa5090.db").output)
    assert e["diagnosis"]["ncu_csv"].startswith("/root/out") and Path(e["diagnosis"]["ncu_csv_now"]).is_file()
    db = tmp_path / "moved.db"  # a copy without its artifacts: said, not guessed
    shutil.copy(RUN2 / "fa5090.db", db)
    res = invoke("show", 5, "--db", db)
    assert f"{tmp_path / 'moved_artifacts' / 'run-1' / 'ncu_exp5_4c0222433323.csv'} (not found)" in res.output


@pytest.mark.parametrize("cmd, extra", [("run", []), ("calibrate", []), ("sweep", []), ("static", ["--arch", "sm_90"]),
                                        ("export", ["best"])])
def test_a_bad_choice_is_the_same_usage_error_in_every_command(cmd, extra, tmp_path):
    for option, bad in (("--head-dim", "96"), ("--dtype", "fp8")):
        db = ["--db", tmp_path / "x.db"] if cmd in ("run", "calibrate", "export") else []
        res = invoke(cmd, *extra, option, bad, *db)
        assert res.exit_code == 2, (cmd, option, res.output)
        assert f"Invalid value for '{option}'" in res.output and f"'{bad}' is not one of" in res.output
    assert list(tmp_path.iterdir()) == []  # refused before anything was created
    help_text = invoke(cmd, "--help").output
    assert "float16|bfloat16" in help_text and "64|128" in help_text


@pytest.mark.parametrize("args", [["run", "--l2", "hot"], ["calibrate", "--l2", "hot"], ["static", "--arch", "sm_91"],
                                  ["doctor", "--arch", "sm_91"], ["run", "--strategy", "annealing"],
                                  ["baseline", "--backend", "triton"], ["history", "--kind", "nonsense"],
                                  ["history", "--outcome", "FASTER"], ["shelf", "--status", "lost"]])
def test_every_choice_is_listed_and_refused_with_exit_2(args):
    res = invoke(*args)
    assert res.exit_code == 2 and "is not one of" in res.output and "Traceback" not in res.output, res.output
    assert "|" in invoke(args[0], "--help").output  # the choices are shown as [a|b|...]


def test_outcome_is_a_choice_in_any_case():
    rows = json.loads(invoke("history", "--outcome", "kept", "--json", "--db", RUN2 / "fa5090.db").output)
    assert {r["outcome"] for r in rows} == {"KEPT"} and len(rows) == 5


def _digest(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_replay_as_the_readme_says_reuses_the_recorded_options(tmp_path):
    """No --budget 12 --reanchor-every 0: the budget and command come from the run's row in the
    database beside the recording (read-only), the end-only re-anchor from the recording's age."""
    db = RUN2 / "fa5090.db"
    before = _digest(db)
    res = invoke("run", "--replay", RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl", "--db", tmp_path / "r.db")
    assert res.exit_code == 0, res.output
    assert f"replaying run 1 of {db}: fa5090-search run --budget 12" in res.output
    assert _digest(db) == before and sorted(p.name for p in RUN2.glob("fa5090.db*")) == ["fa5090.db"]
    rows = json.loads(invoke("history", "--json", "--db", tmp_path / "r.db").output)
    assert [(r["lever"], r["outcome"]) for r in rows if r["outcome"] == "KEPT"] == [
        ("tensor_cores", "KEPT"), ("swizzle", "KEPT"), ("cp_async", "KEPT"), ("exp2", "KEPT"), ("padding", "KEPT")]
    assert [r["kind"] for r in rows][-2:] == ["reanchor", "comparator"]
    kept = [r["detail"] for r in rows if r["outcome"] == "KEPT"]
    assert not any("pending" in d for d in kept) and all("not replicated (recorded before" in d for d in kept)


def test_a_replay_option_given_here_wins_and_a_divergence_names_it(tmp_path):
    rec = RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    res = invoke("run", "--seed-knob", "exp=ex2", "--replay", rec, "--db", tmp_path / "d.db")
    assert res.exit_code == 1 and "(changed here: --seed-knob)" in res.output
    assert "has no answer for" in res.output and "this command line changed the recorded run's --seed-knob" in res.output


def test_a_recording_away_from_its_database_or_with_its_own_header(tmp_path):
    from agent.bench import Recorder, _key

    lines = (RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl").read_text().splitlines()
    alone = tmp_path / "alone.jsonl"  # no database beside it: the options are given, re-anchors still by age
    alone.write_text("\n".join(lines) + "\n")
    res = invoke("run", "--budget", 12, "--replay", alone, "--db", tmp_path / "a.db")
    assert res.exit_code == 0 and "replaying" not in res.output, res.output
    # recordings since this change carry a header with every option of the run (Recorder.header)
    header = {"command": "fa5090-search run --budget 12", "budget": 12, "problem": {"B": 2, "H": 16, "N": 2048, "D": 128},
              "params": {"budget": 12, "seqlen": 2048, "seed_knob": [], "profile": True}}
    own = tmp_path / "own.jsonl"
    Recorder(None, own).header(header)  # what a real run writes first
    with own.open("a") as f:
        f.write("\n".join(lines) + "\n")
    assert json.loads(own.read_text().splitlines()[0]) == {"key": _key("run"), "result": header}
    res = invoke("run", "--replay", own, "--db", tmp_path / "o.db")
    assert res.exit_code == 0 and f"replaying the header of {own}: fa5090-search run --budget 12" in res.output, res.output
    rows = json.loads(invoke("history", "--json", "--db", tmp_path / "o.db").output)
    assert sum(r["outcome"] == "KEPT" for r in rows) == 5


@pytest.mark.parametrize("db", [RUN2 / "fa5090.db", AVR / "n8192_agent.db", RES / "2026-11-30_h200_margins" / "n8192.db"])
def test_history_through_a_pipe_at_the_default_width_keeps_every_row_on_one_line(db, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # CliRunner's stdout is not a terminal, as `| cat` is not
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    lines = invoke("history", "--db", db).output.splitlines()
    body = [ln for ln in lines if ln.startswith("│")]
    assert len(body) == len(rows)  # one line per experiment: nothing folded onto a second line
    for r, ln in zip(rows, body):
        cells = [c.strip() for c in ln.split("│")[1:-1]]
        assert cells[0] == str(r["id"])
        if r["margin"] is not None:
            assert f"{r['margin']:.4f}" in cells
    assert all(len(ln) < 1000 for ln in lines)  # natural width, not padded out to the pipe's width


def test_every_listing_has_json(monkeypatch):
    db = str(AVR / "n8192_agent.db")
    for args in (["history", "--db", db], ["history", "--all", "--db", db], ["history", "--command", "--all", "--db", db],
                 ["shelf", "--db", db], ["show", 3, "--db", db], ["compare", db, AVR / "n8192_random.db"], ["knobs"],
                 ["levers"], ["derive-tolerance", "--replay", RES / "2026-11-30_h200_instrument" / "tolerance-report.json"]):
        res = invoke(*args, "--json")
        assert res.exit_code == 0, (args, res.output)
        assert json.loads(res.output), args
    cmd = json.loads(invoke("history", "--command", "--json", "--db", db).output)
    assert cmd[0]["command"].startswith("fa5090-search run --seqlen 8192")
    import agent.doctor

    monkeypatch.setattr(agent.doctor, "diagnose_environment", lambda cache, arch: ([("nvcc", "ok", "13.0")], False))
    assert json.loads(invoke("doctor", "--json").output) == [{"check": "nvcc", "status": "ok", "detail": "13.0"}]
    for cmd in ("calibrate", "baseline", "sweep", "static"):  # measure on a GPU or compile: their --json is declared
        assert "--json" in invoke(cmd, "--help").output


def test_a_printed_command_is_never_wrapped_even_in_a_narrow_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the stream as a terminal
    monkeypatch.setenv("COLUMNS", "60")
    out = tmp_path / "k.cu"
    res = invoke("export", "best", "-o", out, "--db", RUN2 / "fa5090.db")
    assert res.exit_code == 0, res.output
    assert f"nvcc -O3 -std=c++17 -arch=sm_90 {out} -o attn; the run's problem: ./attn 2 16 2048 0" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_a_narrow_terminal_folds_prose_never_a_value(monkeypatch):
    db = AVR / "n8192_agent.db"
    shelf = json.loads(invoke("shelf", "--json", "--db", db).output)
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal of 80 columns
    monkeypatch.setenv("COLUMNS", "80")
    plain = re.compile(r"\x1b\[[0-9;]*m")
    text = plain.sub("", invoke("shelf", "--db", db).output)
    for s in shelf:  # was: every value cut to an ellipsis
        assert re.search(rf"│ {s['id']} +│ {s['lever']} +│ {s['outcome']} +│ {s['margin']:.4f} +│ {s['status']} +│", text), text
    text = plain.sub("", invoke("history", "--db", db).output)
    for r in rows:
        if r["margin"] is not None:
            assert re.search(rf"│ {r['id']} +│.*│ {r['margin']:.4f} +│", text)


def test_every_option_is_described_and_every_command_has_an_example():
    import typer

    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():
        bare = [p.opts[0] for p in cmd.params if p.name != "help" and not getattr(p, "help", None)]
        assert bare == [], (name, bare)
        assert "Example" in (cmd.help or ""), name


def test_a_database_without_a_run_is_said_not_listed_empty(tmp_path):
    db = tmp_path / "aa.db"  # calibrations only (the A/A decisions on the agent's final kernel)
    shutil.copy(AVR / "n8192_aa_final.db", db)
    before = _digest(db)
    for args in (["history"], ["history", "--all", "--json"], ["shelf"], ["export", "best", "-o", tmp_path / "k.cu"]):
        res = invoke(*args, "--db", db)
        assert res.exit_code == 1 and "holds no run" in res.output and "┏" not in res.output, (args, res.output)
    assert _digest(db) == before
