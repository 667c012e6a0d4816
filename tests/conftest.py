import os
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN2 = ROOT / "results" / "2026-11-30_h200_run2" / "fa5090_artifacts" / "run-1"


def pytest_collection_modifyitems(config, items):
    """The tests marked `first` (the suite's longest) go to the front: the workers start on them, and the rest, stolen
    as each worker runs out (pyproject.toml: --dist worksteal), fill in around them."""
    items.sort(key=lambda item: item.get_closest_marker("first") is None)  # stable: the rest keep their order


def pytest_report_header(config):
    import torch

    return f"torch {torch.__version__} (CUDA {torch.version.cuda}), SQLite {sqlite3.sqlite_version}, python {sys.version.split()[0]}"


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    """Tests never read or write the user's database or build cache."""
    monkeypatch.setenv("FA5090_DB", str(tmp_path / "fa5090.db"))
    monkeypatch.setenv("FA5090_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


def _sidecars() -> set[str]:
    """SQLite's -wal/-shm/-journal files beside the committed databases under results/."""
    return {os.path.join(d, f) for d, _, files in os.walk(ROOT / "results") for f in files
            if f.endswith((".db-wal", ".db-shm", ".db-journal"))}


@pytest.fixture(autouse=True)
def committed_databases_stay_alone():
    """A committed database is opened read-only (immutable) or copied to tmp_path first: no test leaves a -wal or
    -shm beside it (a read-write open would, and would migrate it)."""
    before = _sidecars()
    yield
    assert _sidecars() <= before, sorted(_sidecars() - before)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory) -> Path:
    """One build cache for every test that compiles kernels, so a library is built once however many tests ask
    for it. Its key (kernel source and headers, knobs, instantiations, flags, arch, nvcc version:
    experiments/build.py) is the binary's, so a hit is the library nvcc would build again; FA5090_TEST_CACHE
    keeps it across sessions (.ci/run sets it), else it lives for this session only."""
    kept = os.environ.get("FA5090_TEST_CACHE")
    # under pytest-xdist each worker is a session of its own: they share the run's base directory's parent
    # (the build's flock keeps two workers from building one entry at once)
    here = tmp_path_factory.getbasetemp()
    root = Path(kept) if kept else (here.parent if os.environ.get("PYTEST_XDIST_WORKER") else here) / "shared_cache"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="session")
def build_cache(shared_cache) -> Path:
    """Where a test's experiments.build.build() calls build (see shared_cache)."""
    return shared_cache / "build"


@pytest.fixture
def cli_build_cache(shared_cache, monkeypatch) -> Path:
    """FA5090_CACHE for a test whose command compiles (`static` builds into $FA5090_CACHE/static)."""
    monkeypatch.setenv("FA5090_CACHE", str(shared_cache))
    return shared_cache


@pytest.fixture
def run2() -> Path:
    """The H200 run recorded by results/2026-11-30_h200_run2/device_run.sh."""
    assert RUN2.exists(), RUN2
    return RUN2
