import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN2 = ROOT / "results" / "2026-11-30_h200_run2" / "fa5090_artifacts" / "run-1"


def pytest_report_header(config):
    import torch

    return f"torch {torch.__version__} (CUDA {torch.version.cuda}), SQLite {sqlite3.sqlite_version}, python {sys.version.split()[0]}"


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    """Tests never read or write the user's database or build cache."""
    monkeypatch.setenv("FA5090_DB", str(tmp_path / "fa5090.db"))
    monkeypatch.setenv("FA5090_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def run2() -> Path:
    """The H200 run recorded by results/2026-11-30_h200_run2/device_run.sh."""
    assert RUN2.exists(), RUN2
    return RUN2
