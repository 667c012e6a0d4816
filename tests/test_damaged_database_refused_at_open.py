"""A database whose header and schema read but some of whose data pages do not is refused when it is
opened, read-only or read-write, whichever table the damage is in: a command that reads only intact
pages (`show N` of an undamaged row, `history` with the shelf's pages gone, a replay that appends a run)
would otherwise print a part of the file as if it were all, or write into it. Copies of a committed
database, damaged one table at a time."""
import hashlib
import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

from agent.cli import app
from store import open_db
from store.errors import DamagedDatabase

from recorded import RESULTS

RUN2 = RESULTS / "2026-11-30_h200_run2"
runner = CliRunner()


def damage(path, table: str) -> None:
    """Overwrite every page of `table`'s b-tree (past each page's 8-byte header) with noise; the rest of the
    file, the schema on page 1 included, is left as it is."""
    c = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # nothing written beside it
    size = c.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in c.execute("SELECT pageno FROM dbstat WHERE name = ?", [table])]
    c.close()
    assert pages and 1 not in pages
    data = bytearray(path.read_bytes())
    for page in pages:
        start = (page - 1) * size
        data[start + 8:start + size] = bytes((i * 37 + page) % 251 for i in range(size - 8))
    path.write_bytes(bytes(data))


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(res, path) -> str:
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SystemExit), res.exception
    lines = res.output.strip().splitlines()
    assert "Traceback" not in res.output and len(lines) == 1, res.output
    assert lines[0].startswith(f"error: {path} is damaged (") and "nothing was changed" in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def copy(tmp_path):
    path = tmp_path / "c.db"
    shutil.copy(RUN2 / "fa5090.db", path)
    return path


@pytest.mark.parametrize("table", ["runs", "shelf", "diagnoses", "measurements"])
@pytest.mark.parametrize("args", [["show", "9"], ["history"], ["shelf"], ["history", "--json"]],
                         ids=lambda a: " ".join(a))
def test_a_damaged_table_refuses_every_listing_even_of_intact_rows(copy, table, args):
    damage(copy, table)
    before = digest(copy)
    refused(runner.invoke(app, [*args, "--db", str(copy)]), copy)
    assert digest(copy) == before
    assert sorted(p.name for p in copy.parent.iterdir()) == ["c.db"]  # no -wal/-shm beside it


def test_the_same_listing_of_the_intact_file_still_answers(copy):
    res = runner.invoke(app, ["show", "9", "--db", str(copy)])
    assert res.exit_code == 0 and res.output.startswith("experiment 9 (run 1"), res.output


def test_a_replay_into_a_damaged_database_writes_nothing_into_it(copy, tmp_path):
    damage(copy, "shelf")
    before = digest(copy)
    res = runner.invoke(app, ["run", "--replay", str(RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl"),
                              "--db", str(copy)])
    refused(res, copy)
    assert digest(copy) == before  # not switched to WAL, not migrated (m001 -> today), no run appended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.db"]


@pytest.mark.parametrize("read_only", [True, False], ids=["read_only", "read_write"])
def test_open_db_refuses_a_damaged_file_in_one_sentence(copy, read_only):
    damage(copy, "runs")
    before = digest(copy)
    with pytest.raises(DamagedDatabase, match="its header and schema read but its data pages do not"):
        open_db(copy, read_only=read_only)
    assert digest(copy) == before
