"""The run's closing comparison: the final kernel paired against SDPA flash and against SDPA cuDNN, the
fastest backend a PyTorch user gets on an H200, each in its own process; a backend that does not run
here is named with why, a run recorded before the cuDNN pair shows it as not measured. On the synthetic
bench (tests/fakes.py) and on copies of the committed H200 databases."""
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

RESULTS = Path(__file__).resolve().parents[1] / "results"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _copy(tmp_path, rel: str) -> Path:
    dst = tmp_path / Path(rel).name
    shutil.copy(RESULTS / rel, dst)
    return dst


def test_a_later_baseline_row_never_stands_in_for_the_runs_own_flash_pair(tmp_path):
    """stacked_n8192.db: the run's closing pair has SDPA flash at 335.7 TFLOP/s; a `baseline` process
    afterwards stored cuDNN at 617.5 as the last comparator row, which `compare` used to show as flash."""
    db = _copy(tmp_path, "2026-11-30_h200_session8/stacked_n8192.db")
    s = json.loads(invoke("compare", db, "--json").output)[0]
    assert s["sdpa_flash_tflops"] == pytest.approx(335.68, abs=0.01)
    assert s["vs_sdpa_flash"] == pytest.approx(1 / 0.9942298890258903)
