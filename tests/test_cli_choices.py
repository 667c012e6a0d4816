"""Choices are choices in every command (one usage error, exit 2, for a bad value, listed in --help), every
option is described with an example, and the dependencies the commands need are declared."""
import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[1]
RUN2 = ROOT / "results" / "2026-11-30_h200_run2"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_numpy_is_a_declared_dependency():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.match(r"numpy\b", d) for d in deps)


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


def test_every_option_is_described_and_every_command_has_an_example():
    import typer

    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():
        bare = [p.opts[0] for p in cmd.params if p.name != "help" and not getattr(p, "help", None)]
        assert bare == [], (name, bare)
        assert "Example" in (cmd.help or ""), name
