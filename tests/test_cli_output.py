"""What the commands print, on the committed H200 runs: `show` with missing values as dashes and the files
where they are now, `--json` on every listing, tables that keep their natural width in a pipe and fold only
prose in a narrow terminal, printed commands never wrapped, and a database without a run said, not listed."""
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from recorded import opened

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "results"
RUN2 = RES / "2026-11-30_h200_run2"
AVR = RES / "2026-11-30_h200_agent_vs_random"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


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


def _digest(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()


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
                 ["levers"], ["derive-tolerance", "--replay", RES / "2026-11-30_h200_instrument" / "tolerance-report.json.gz"],
                 ["derive-tolerance", "--replay", opened(RES / "2026-11-30_h200_instrument" / "tolerance-report.json.gz")]):
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


def test_a_database_without_a_run_is_said_not_listed_empty(tmp_path):
    db = tmp_path / "aa.db"  # calibrations only (the A/A decisions on the agent's final kernel)
    shutil.copy(AVR / "n8192_aa_final.db", db)
    before = _digest(db)
    for args in (["history"], ["history", "--all", "--json"], ["shelf"], ["export", "best", "-o", tmp_path / "k.cu"]):
        res = invoke(*args, "--db", db)
        assert res.exit_code == 1 and "holds no run" in res.output and "┏" not in res.output, (args, res.output)
    assert _digest(db) == before
