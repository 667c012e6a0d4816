"""Opening the database: refuse what is not ours, then bring it up to the latest schema."""

import sqlite3
from pathlib import Path

import sqlite_utils

from store.errors import DamagedDatabase, ForeignDatabase, MissingDatabase, UnwritableDatabase
from store.migrations import migrations, names
from store.queries import mark_stale_runs

_KNOWN = names()
SCHEMA_VERSION = _KNOWN[-1]
_SQLITE_HEADER = b"SQLite format 3\x00"


def open_db(path: str | Path, *, create: bool = True, read_only: bool = False) -> sqlite_utils.Database:
    """Open (or create) the search database at `path`, with WAL, foreign keys and all migrations.

    `read_only`: for the commands that only read (history, show, shelf, export, report, compare):
    the file is opened read-only and never migrated, so it stays byte-identical; an older schema is
    read as it is (columns added since read as missing). A gzipped database (`name.db.gz`, as records
    keep them) is read as it is, read-only alone: its contents go to a temporary file, never beside it."""
    path = Path(path)
    if path.suffix == ".gz":
        if not read_only:
            raise UnwritableDatabase(f"{path} is a gzipped database, which the commands that only read open as it is; "
                                     f"to run or resume on it, unpack it first (gunzip -k {path}) and pass the .db.")
        return _open_read_only(_unzipped(path), shown=path)
    if read_only:
        return _open_read_only(path)
    if not path.exists():
        if not create:
            raise MissingDatabase(f"There is no database at {path}; run a search first or pass the right --db.")
        try:  # created here, so a folder that cannot hold it is said before anything starts
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(exist_ok=True)
        except OSError as e:
            raise UnwritableDatabase(f"cannot create the database {path} ({e.strerror}); give --db a path in a folder "
                                     "you can write.") from None
    elif not path.is_file() or _header(path) not in (b"", _SQLITE_HEADER):
        raise ForeignDatabase(f"{path} is not a SQLite database; use another --db.")

    def prepare(db: sqlite_utils.Database) -> None:
        _refuse_foreign(db, path)
        # WAL lets `history` read while a search is writing; a writer waits its turn for the lock
        # (each experiment is one short transaction) instead of failing at once.
        db.execute("PRAGMA busy_timeout = 30000;")
        _refuse_damaged(db, path)  # before WAL, a migration or a stale-run mark writes into it
        db.enable_wal()
        db.execute("PRAGMA foreign_keys = ON;")
        migrations.apply(db)
        # a run whose process is gone (SIGKILL, a lost machine) is marked, with what was in flight
        mark_stale_runs(db)

    return _checked(sqlite_utils.Database(path), path, prepare)


def close_db(db: sqlite_utils.Database) -> None:
    """Close a database opened for writing with everything in its main file: the WAL checkpointed into it and
    truncated, so the file alone (copied, archived, opened read-only as immutable) holds the whole history even
    where another connection of the process has not closed yet and SQLite's own checkpoint on the last close
    never comes. (A run's database archived right after the command, without its -wal, held only its header:
    results/2026-12-03_h200_agent_suite.)"""
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE);")
    finally:
        db.close()


def _checked(db: sqlite_utils.Database, path: Path, prepare) -> sqlite_utils.Database:
    """`prepare(db)`, closing the file on any failure; a file SQLite cannot read is one sentence."""
    try:
        prepare(db)
    except sqlite3.OperationalError as e:
        db.close()
        if "readonly" in str(e) or "unable to open" in str(e):  # a read-only file, or a folder that cannot take its WAL
            raise UnwritableDatabase(f"{path} cannot be written ({e}); give --db a path in a folder you can "
                                     "write.") from e
        raise ForeignDatabase(f"{path} cannot be read as a SQLite database ({e}); use another --db.") from e
    except sqlite3.DatabaseError as e:  # encrypted or corrupt past the header
        db.close()
        raise ForeignDatabase(f"{path} cannot be read as a SQLite database ({e}); use another --db.") from e
    except BaseException:
        db.close()
        raise
    return db


_UNZIPPED: dict[tuple[Path, int, int], Path] = {}


def _unzipped(path: Path) -> Path:
    """The contents of the gzipped database `path` in a temporary file of this process (removed at its exit), unpacked
    once for each version of the file; `path` itself is only read."""
    import atexit
    import gzip
    import shutil
    import tempfile
    import zlib

    if not path.is_file():
        raise MissingDatabase(f"There is no database at {path}; run a search first or pass the right --db.")
    st = path.stat()
    key = (path.resolve(), st.st_mtime_ns, st.st_size)
    if key not in _UNZIPPED:
        where = Path(tempfile.mkdtemp(prefix="fa5090-db-"))
        atexit.register(shutil.rmtree, where, True)
        out = where / path.stem
        try:
            with gzip.open(path) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (OSError, EOFError, zlib.error) as e:
            raise ForeignDatabase(f"{path} cannot be unpacked as a gzipped database ({e}); use another --db.") from None
        _UNZIPPED[key] = out
    return _UNZIPPED[key]


def _open_read_only(path: Path, shown: Path | None = None) -> sqlite_utils.Database:
    """`shown`: the path the user gave, where `path` is its unpacked copy."""
    if not path.exists():
        raise MissingDatabase(f"There is no database at {path}; run a search first or pass the right --db.")
    if not path.is_file() or _header(path) not in (_SQLITE_HEADER,):
        raise ForeignDatabase(f"{shown or path} is not a SQLite database of fa5090-search; use another --db.")
    # A -wal beside it means a writer may be live (a run in progress): read through WAL, which
    # needs the -shm. Otherwise the file is at rest: immutable, so not even -wal/-shm appear.
    live = path.with_name(path.name + "-wal").exists()
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro" + ("" if live else "&immutable=1"), uri=True)

    def prepare(db: sqlite_utils.Database) -> None:
        _refuse_foreign(db, shown or path)
        if not [m.name for m in migrations.applied(db)]:
            raise ForeignDatabase(f"{shown or path} holds no fa5090-search schema; use another --db.")
        _refuse_damaged(db, shown or path)

    return _checked(sqlite_utils.Database(conn), shown or path, prepare)


def pending(db: sqlite_utils.Database) -> list[str]:
    """Migrations this database has not had (a read-only open reads it as it is)."""
    applied = {m.name for m in migrations.applied(db)}
    return [n for n in _KNOWN if n not in applied]


def _header(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(len(_SQLITE_HEADER))


def _refuse_foreign(db: sqlite_utils.Database, path: Path) -> None:
    tables = {t for t in db.table_names() if not t.startswith("sqlite_")}
    applied = [m.name for m in migrations.applied(db)]
    if not applied and tables - {migrations.migrations_table}:
        raise ForeignDatabase(
            f"{path} holds another program's tables and no {migrations.name} migrations; use another --db."
        )
    unknown = [n for n in applied if n not in _KNOWN]
    if unknown:
        raise ForeignDatabase(
            f"{path} was written by a newer fa5090-search (unknown migration {unknown[0]}); upgrade to open it."
        )


def _refuse_damaged(db: sqlite_utils.Database, path: Path) -> None:
    """A file whose header and schema read but whose data pages do not is refused when it is opened: a
    listing that reads only intact pages (`show N` of an undamaged row, `history` with the shelf's pages
    gone) would print a part of it as if it were all. SQLite's quick check costs ~5 ms on a committed
    database (89 of them in 0.42 s)."""
    from store.queries import damage

    bad = damage(db)
    if bad:
        raise DamagedDatabase(f"{path} is damaged ({bad}): its header and schema read but its data pages do not, so "
                              "nothing in it can be trusted as shown; nothing was changed. Restore it from a copy, or "
                              "use another --db.")


def damage_of(path: str | Path) -> str | None:
    """What is wrong with the database file at `path` past its header (SQLite's quick check, read-only,
    nothing written beside it), else None; a file that is not a database is not judged here."""
    from store.queries import damage

    path = Path(path)
    if not path.is_file() or _header(path) != _SQLITE_HEADER:
        return None
    live = path.with_name(path.name + "-wal").exists()
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro" + ("" if live else "&immutable=1"), uri=True)
    except sqlite3.Error as e:
        return str(e)
    try:
        return damage(sqlite_utils.Database(conn))
    finally:
        conn.close()
