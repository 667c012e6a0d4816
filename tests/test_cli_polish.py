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
