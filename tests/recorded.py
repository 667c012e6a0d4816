"""A session's recorded H200 runs (results/<date>_h200_<what>/) as the replay tests read them: its
artifacts archive unpacked once per test module, each run's history as the device printed it, and
the experiment outcomes a replay has to repeat."""
import json
from pathlib import Path

import pytest
from test_margins import _recording

RESULTS = Path(__file__).resolve().parents[1] / "results"


def recordings_fixture(res: Path):
    """A module-scoped fixture: `res`/artifacts.tgz unpacked into a temporary directory."""
    @pytest.fixture(scope="module")
    def recordings(tmp_path_factory) -> Path:
        return _recording(tmp_path_factory, res / "artifacts.tgz", "")
    return recordings


def recorded(res: Path, name: str) -> list[dict]:
    """`history --json` of run `name` as written on the device."""
    return json.loads((res / f"{name}_history.json").read_text())


def outcomes(rows) -> list[tuple]:
    """(lever, outcome, margin to 4 places) of every counted experiment."""
    return [(r["lever"], r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] in ("lever", "compound", "rescreen")]
