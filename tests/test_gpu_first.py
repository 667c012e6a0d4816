"""A command that needs a GPU asks for one before it opens a database for writing: on a machine without
one it refuses in one sentence and the database (here a copy of a committed one) is byte for byte what it
was, with no -wal/-shm files beside it."""
import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

DB = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_run2" / "fa5090.db"


@pytest.mark.parametrize("args", [["calibrate"], ["baseline"], ["rescreen"], ["run", "--resume"],
                                  ["baseline", "--knob", "compute=mma"]], ids=lambda a: " ".join(a))
def test_gpu_commands_refuse_before_touching_the_database(tmp_path, args):
    db = tmp_path / "committed.db"
    shutil.copy(DB, db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    res = CliRunner().invoke(app, [*args, "--db", str(db)])
    assert res.exit_code == 1 and "no usable GPU" in res.output and "Traceback" not in res.output, res.output
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["committed.db"]


def test_resume_of_a_missing_database_says_so_before_the_gpu(tmp_path):
    res = CliRunner().invoke(app, ["run", "--resume", "--db", str(tmp_path / "none.db")])
    assert res.exit_code == 1 and "no usable GPU" not in res.output and "Traceback" not in res.output, res.output
    assert list(tmp_path.iterdir()) == []
