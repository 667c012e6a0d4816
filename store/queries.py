"""Reads and writes of runs, experiments, measurements, diagnoses and the shelf.

Everything returns plain dicts and lists with the JSON columns decoded. JSON columns take
any JSON-able Python value (pydantic models via model_dump, enums via .value) and are
written with sort_keys=True, so equal knobs are equal text.
"""

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from store import owner
from store.errors import DamagedDatabase, ForeignDatabase, InvalidValue, NotFound, RunInProgress

RUN_STATUSES = ("running", "plateau", "budget", "error", "interrupted", "exhausted")
EXPERIMENT_KINDS = ("seed", "aa_null", "lever", "rescreen", "reanchor", "comparator", "compound", "sample")
OUTCOMES = ("KEPT", "SLOWER", "NULL", "WRONG", "COMPILE_FAIL", "RESOURCE_FAIL", "CRASH",
            "TIMEOUT", "BLOCKED_BY_ARITHMETIC", "SUSPICIOUS",
            "INTERRUPTED")  # not a measurement's outcome: the row was in flight when its process stopped
# best_check: the current best checked again in a fresh process after a streak of failures (agent.health)
# timing: where an experiment's wall time went (build, the child of C1/pair/C2, the replicate, a keep's ncu profile)
# owed_null: an experiment judged while its best's null was owed whose margin fell inside the band, so it was
# measured again under the null (agent.loop, lazy_null): the first measurement's margin, and its pair
# replicate: a keep's second pair in a fresh process (the re-anchor reads each keep's spread from it)
MEASUREMENT_KINDS = ("c1", "c2", "paired", "aa", "build", "anchor", "comparator", "best_check", "timing",
                     "owed_null", "replicate")
SHELF_STATUSES = ("shelved", "rescreened", "resurrected")

# The schema has no CHECK constraints (sqlite-utils cannot declare them), so closed sets are checked here.
_CLOSED = {
    ("runs", "status"): RUN_STATUSES,
    ("experiments", "kind"): EXPERIMENT_KINDS,
    ("experiments", "outcome"): OUTCOMES,
    ("measurements", "kind"): MEASUREMENT_KINDS,
    ("shelf", "outcome"): OUTCOMES,
    ("shelf", "status"): SHELF_STATUSES,
}
_JSON = {
    "runs": ("problem", "toolchain", "seed_knobs", "aa_margins", "noise", "resumes", "options"),
    "experiments": ("base_knobs", "knobs", "move", "static"),
    "measurements": ("payload",),
    "diagnoses": ("metrics",),
    "shelf": ("conditions",),
    "calibrations": ("knobs", "environment", "ceilings", "protocol", "aa_margins", "trials", "aa_runs"),
}


@contextlib.contextmanager
def atomic(db: Database):
    """One transaction that takes the write lock at its start (BEGIN IMMEDIATE), nested blocks as
    savepoints. sqlite-utils' atomic() begins DEFERRED: a transaction that reads first (every insert
    reads the table's columns) then fails at once with "database is locked" when another connection
    commits in between, which the busy timeout does not cover; an IMMEDIATE one waits its turn."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.execute("COMMIT")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


now = _now  # public: callers stamping runs use the store's clock and format


def _json_default(o: Any) -> Any:
    if hasattr(o, "model_dump"):
        return o.model_dump(mode="json")
    if isinstance(o, Enum):
        return o.value
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"{type(o).__name__} is not JSON-serialisable")


def _encode(db: Database, table: str, fields: Mapping[str, Any]) -> dict:
    columns = db[table].columns_dict
    row = {}
    for key, value in fields.items():
        if key not in columns:
            raise InvalidValue(f"{table} has no column {key!r}.")
        if key in _JSON.get(table, ()) and value is not None:
            value = json.dumps(value, sort_keys=True, default=_json_default)
        elif isinstance(value, Enum):
            value = value.value
        allowed = _CLOSED.get((table, key))
        if allowed and value is not None and value not in allowed:
            raise InvalidValue(f"{table}.{key} must be one of {', '.join(allowed)}, not {value!r}.")
        row[key] = value
    return row


def _decode(table: str, row: Mapping[str, Any]) -> dict:
    row = dict(row)
    for key in _JSON.get(table, ()):
        if row.get(key) is not None:
            row[key] = json.loads(row[key])
    if table == "measurements" and row.get("ok") is not None:
        row["ok"] = bool(row["ok"])
    if table == "runs" and row.get("status") == "running" and owner.gone(
            row.get("owner_pid"), row.get("owner_host"), row.get("owner_start")):
        # shown as it is, never written here: a read-only open may not mark it (a read-write open does)
        row["status"], row["stale"] = "interrupted", True
        row["stop_reason"] = f"its process (pid {row['owner_pid']} on {row['owner_host']}) is gone (not yet marked)"
    return row


def _insert(db: Database, table: str, fields: Mapping[str, Any]) -> int:
    return db[table].insert(_encode(db, table, fields)).last_pk


def _update(db: Database, table: str, row_id: int, fields: Mapping[str, Any]) -> None:
    row = _encode(db, table, fields)
    if not row:
        _get(db, table, row_id)  # still refuse a missing id
        return
    sets = ", ".join(f"[{k}] = ?" for k in row)
    cursor = db.execute(f"UPDATE [{table}] SET {sets} WHERE id = ?", [*row.values(), row_id])
    if cursor.rowcount < 1:
        raise NotFound(f"There is no {table} row with id {row_id}.")


def _get(db: Database, table: str, row_id: int) -> dict:
    rows = list(db.query(f"SELECT * FROM [{table}] WHERE id = ?", [row_id]))
    if not rows:
        # a damaged b-tree can answer "no such row" without an error: say which it is
        bad = damage(db)
        if bad:
            where = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main" and r[2]), "the database")
            raise DamagedDatabase(f"{table} row {row_id} cannot be read: {where} is damaged ({bad}); nothing was "
                                  "changed. Restore it from a copy, or use another --db.")
        raise NotFound(f"There is no {table} row with id {row_id}.")
    return _decode(table, rows[0])


def damage(db: Database) -> str | None:
    """What SQLite's quick check finds wrong with the open database (its first finding), else None."""
    try:
        found = [r[0] for r in db.execute("PRAGMA quick_check(2)").fetchall()]
    except sqlite3.DatabaseError as e:
        return str(e)
    if found == ["ok"]:
        return None
    lines = [x.strip() for f in found for x in f.splitlines() if x.strip() and not x.startswith("***")]
    return (lines or ["damaged"])[0][:200]


def _select(db: Database, table: str, where: Mapping[str, Any] | None = None) -> list[dict]:
    where = {k: v for k, v in (where or {}).items() if v is not None}
    clause = " AND ".join(f"[{k}] = ?" for k in where)
    sql = f"SELECT * FROM [{table}]" + (f" WHERE {clause}" if clause else "") + " ORDER BY id"
    return [_decode(table, r) for r in db.query(sql, list(where.values()))]


# -- runs --------------------------------------------------------------------------------

def create_run(db: Database, **fields: Any) -> int:
    """Insert a run (status defaults to "running", started_at to now, owner to this process); return
    its id. Refused while another process's run is live in this database (see live_run)."""
    own = owner.me() if "owner_pid" in db["runs"].columns_dict else {}
    with atomic(db):  # the check and the insert under one write lock: two runs starting at once cannot both pass
        _refuse_live(db)
        return _insert(db, "runs", {"started_at": _now(), "status": "running", **own, **fields})


def claim_run(db: Database, run_id: int, after_seq: int) -> None:
    """This process takes over an interrupted run to resume it after experiment `after_seq`."""
    with atomic(db):
        _refuse_live(db)
        run = _get(db, "runs", run_id)
        me = owner.me()
        resumes = (run.get("resumes") or []) + [{"at": _now(), "pid": me["owner_pid"], "host": me["owner_host"],
                                                 "after_seq": after_seq, "was": run["status"]}]
        _update(db, "runs", run_id, {**me, "status": "running", "stop_reason": None, "finished_at": None,
                                     "resumes": resumes})


def live_run(db: Database) -> dict | None:
    """A run of another process that may still be writing here: `running`, with an owner that is
    not known to be gone (runs recorded before m005 have no owner and are not counted)."""
    if "owner_pid" not in db["runs"].columns_dict:
        return None
    me = owner.me()
    for r in db.query("SELECT id, owner_pid, owner_host, owner_start FROM runs WHERE status = 'running' "
                      "AND owner_pid IS NOT NULL ORDER BY id"):
        if (r["owner_pid"], r["owner_host"], r["owner_start"]) == (me["owner_pid"], me["owner_host"], me["owner_start"]):
            continue  # this very process's own (a test, or a command that started it)
        if not owner.gone(r["owner_pid"], r["owner_host"], r["owner_start"]):
            return dict(r)
    return None


def _refuse_live(db: Database) -> None:
    r = live_run(db)
    if r:
        raise RunInProgress(f"run {r['id']} is in progress in this database (pid {r['owner_pid']} on "
                            f"{r['owner_host']}); wait for it to finish or use another --db.")


def interrupt_run(db: Database, run_id: int, why: str, status: str = "interrupted") -> str:
    """Mark a run interrupted and each experiment it had in flight (started, never finished) as
    INTERRUPTED, uncounted (its seq moves into the detail, so a resumed run can redo that number);
    returns the sentence stored as the run's stop_reason."""
    with atomic(db):
        flying = list(db.query("SELECT id, seq, lever FROM experiments WHERE run_id = ? AND finished_at IS NULL "
                               "ORDER BY id", [run_id]))
        last = db.execute("SELECT MAX(seq) FROM experiments WHERE run_id = ? AND finished_at IS NOT NULL",
                          [run_id]).fetchone()[0]
        for e in flying:
            where = f"experiment {e['seq']}" if e["seq"] is not None else "an uncounted experiment"
            db.execute("UPDATE experiments SET outcome = 'INTERRUPTED', seq = NULL, finished_at = ?, detail = ? "
                       "WHERE id = ?", [_now(), f"in flight as {where} ({e['lever']}) when {why}", e["id"]])
        if flying:
            note = "; ".join(f"experiment {e['seq']} ({e['lever']}) was in flight" for e in flying)
        else:
            note = f"nothing was in flight (after experiment {last or 0})"
        reason = f"{why}; {note}"  # shown after the status (`interrupted: ...`)
        _update(db, "runs", run_id, {"status": status, "stop_reason": reason[:1000], "finished_at": _now()})
    return reason


def uncount_experiments(db: Database, run_id: int, from_seq: int, why: str) -> list[int]:
    """Experiments `from_seq` on of a run, finished, become uncounted: INTERRUPTED with no seq (the
    outcome they measured and `why` in the detail, their measurements kept), their shelf entries gone
    and the entries they re-screened shelved again, so a resumed run measures them anew under their
    numbers (agent.health: measured while the environment was broken). Returns their ids."""
    with atomic(db):
        rows = list(db.query("SELECT id, seq, lever, outcome, detail FROM experiments WHERE run_id = ? AND seq >= ? "
                             "AND finished_at IS NOT NULL ORDER BY seq", [run_id, from_seq]))
        ids = [r["id"] for r in rows]
        for r in rows:
            db.execute("UPDATE experiments SET outcome = 'INTERRUPTED', seq = NULL, detail = ? WHERE id = ?",
                       [f"{r['outcome']} as experiment {r['seq']} ({r['lever']}), not counted: {why}. "
                        f"It measured: {r['detail'] or ''}"[:4000], r["id"]])
        if ids:
            marks = ", ".join("?" * len(ids))
            db.execute(f"DELETE FROM shelf WHERE experiment_id IN ({marks})", ids)
            db.execute(f"UPDATE shelf SET status = 'shelved', rescreen_experiment_id = NULL, updated_at = ? "
                       f"WHERE rescreen_experiment_id IN ({marks})", [_now(), *ids])
    return ids


def mark_stale_runs(db: Database) -> list[int]:
    """Runs still `running` whose owning process is gone become `interrupted` (a read-write open
    does this; read-only opens only show them so)."""
    if "owner_pid" not in db["runs"].columns_dict:
        return []
    rows = list(db.query("SELECT id, owner_pid, owner_host, owner_start FROM runs WHERE status = 'running'"))
    stale = [r for r in rows if owner.gone(r["owner_pid"], r["owner_host"], r["owner_start"])]
    for r in stale:
        interrupt_run(db, r["id"], f"its process (pid {r['owner_pid']} on {r['owner_host']}) was gone")
    return [r["id"] for r in stale]


def update_run(db: Database, run_id: int, **fields: Any) -> None:
    _update(db, "runs", run_id, fields)


def get_run(db: Database, run_id: int) -> dict:
    return _get(db, "runs", run_id)


def latest_run(db: Database) -> dict | None:
    rows = list(db.query("SELECT * FROM runs ORDER BY id DESC LIMIT 1"))
    return _decode("runs", rows[0]) if rows else None


def runs(db: Database) -> list[dict]:
    return _select(db, "runs")


def check_same_setup(db: Database, gpu_name: str, problem_key: str, *, one_problem: bool = True) -> None:
    """Refuse to mix results from another GPU or another problem into this database. `one_problem`
    False: a campaign's database (`tune`), one run per problem, each run at its own problem; another
    GPU is still refused, and what reads across runs (lever_evidence, calibrations) keys by problem."""
    sql = "SELECT gpu_name, problem_key FROM runs WHERE gpu_name != ?" + (" OR problem_key != ?" if one_problem else "")
    rows = list(db.query(sql + " ORDER BY id LIMIT 1", [gpu_name, problem_key] if one_problem else [gpu_name]))
    if rows:
        raise ForeignDatabase(
            f"this database was recorded on {rows[0]['gpu_name']} for problem {rows[0]['problem_key']}; "
            "use another --db or the same GPU and shape."
        )


# -- experiments -------------------------------------------------------------------------

def next_seq(db: Database, run_id: int) -> int:
    """The next 1-based number for a counted experiment of this run."""
    return db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM experiments WHERE run_id = ?", [run_id]).fetchone()[0]


def start_experiment(db: Database, run_id: int, **fields: Any) -> int:
    """Write the experiment and its prediction before measuring (outcome stays NULL); return its id."""
    return _insert(db, "experiments", {"started_at": _now(), **fields, "run_id": run_id})


def finish_experiment(db: Database, exp_id: int, *, measurements: Iterable[Mapping] = (),
                      diagnosis: Mapping | None = None, shelf: Mapping | None = None,
                      **fields: Any) -> None:
    """Decide a started experiment: its outcome, measurements, diagnosis and shelf row in one transaction."""
    with atomic(db):
        _update(db, "experiments", exp_id, {"finished_at": _now(), **fields})
        _attach(db, exp_id, measurements, diagnosis, shelf)


def record_experiment(db: Database, run_id: int, *, measurements: Iterable[Mapping] = (),
                      diagnosis: Mapping | None = None, shelf: Mapping | None = None,
                      **fields: Any) -> int:
    """Start and finish an experiment in one transaction; return its id."""
    with atomic(db):
        exp_id = start_experiment(db, run_id, finished_at=_now(), **fields)
        _attach(db, exp_id, measurements, diagnosis, shelf)
    return exp_id


def _attach(db: Database, exp_id: int, measurements: Iterable[Mapping],
            diagnosis: Mapping | None, shelf: Mapping | None) -> None:
    exp = _get(db, "experiments", exp_id)
    now = _now()
    for m in measurements:
        _insert(db, "measurements", {"created_at": now, **m, "experiment_id": exp_id})
    if diagnosis is not None:
        _insert(db, "diagnoses", {"run_id": exp["run_id"], "knob_key": exp["knob_key"],
                                  "created_at": now, **diagnosis, "experiment_id": exp_id})
    if shelf is not None:
        # A shelf entry defaults to the rejecting experiment's lever, outcome and margin.
        _insert(db, "shelf", {"run_id": exp["run_id"], "lever": exp["lever"], "outcome": exp["outcome"],
                              "margin": exp["margin"], "status": "shelved", "created_at": now,
                              "updated_at": now, **shelf, "experiment_id": exp_id})


def history(db: Database, run_id: int | None = None) -> list[dict]:
    """Experiments in the order they were started, optionally of one run."""
    return _select(db, "experiments", {"run_id": run_id})


def time_spent(db: Database, run_id: int) -> dict[str, float]:
    """Where a run's time went, from the timing its experiments recorded: the experiments' child processes
    (C1, the pair, C2), their replicates, the keeps' ncu profiles, the waits for builds before an experiment, and
    the A/A nulls' children. Seconds; zero where a run recorded none."""
    out = {"children_s": 0.0, "replicates_s": 0.0, "profiles_s": 0.0, "builds_waited_s": 0.0, "nulls_s": 0.0}
    sql = ("SELECT e.kind, m.kind, m.payload FROM measurements m JOIN experiments e ON e.id = m.experiment_id "
           "WHERE e.run_id = ? AND m.kind IN ('timing', 'aa')")
    for ekind, mkind, payload in db.execute(sql, [run_id]).fetchall():
        p = json.loads(payload) if payload else {}
        if mkind == "timing":
            for key, into in (("job_s", "children_s"), ("replicate_s", "replicates_s"), ("profile_s", "profiles_s"),
                              ("figures_s", "builds_waited_s")):
                out[into] += p.get(key) or 0.0
        elif ekind == "aa_null":
            out["nulls_s"] += p.get("job_s") or 0.0
    return out


def lever_evidence(db: Database, base_key: str, before_run: int, *, source_hash: str | None = None,
                   nvcc: str | None = None, problem_key: str | None = None) -> dict[str, dict]:
    """The latest paired margin of each lever measured against this base in earlier runs of this
    database (`problem_key`: at that problem only; a campaign's database holds several, see
    check_same_setup): a `run --screen`, or an earlier search that stood on the same kernel. Outcomes whose margin means nothing (WRONG, SUSPICIOUS) are left out.
    With `source_hash`/`nvcc`, only runs built from that kernel source by that compiler count (runs
    older than m004 recorded neither and count only when neither is asked for)."""
    sql = ("SELECT e.id, e.run_id, e.lever, e.margin, e.outcome FROM experiments e JOIN runs r ON r.id = e.run_id "
           "WHERE e.base_key = ? AND e.run_id < ? AND e.kind IN ('lever', 'rescreen', 'compound') AND e.margin IS NOT NULL "
           "AND e.outcome NOT IN ('WRONG', 'SUSPICIOUS')")
    args: list = [base_key, before_run]
    for col, val in (("source_hash", source_hash), ("nvcc", nvcc), ("problem_key", problem_key)):
        if val is not None:
            sql += f" AND r.{col} = ?"
            args.append(val)
    rows = db.query(sql + " ORDER BY e.id", args)
    return {r["lever"]: {"margin": r["margin"], "outcome": r["outcome"], "run_id": r["run_id"], "experiment_id": r["id"]}
            for r in rows}


def experiment(db: Database, exp_id: int) -> dict:
    """One experiment with its measurements, its latest diagnosis and its shelf entry (or None)."""
    row = _get(db, "experiments", exp_id)
    row["measurements"] = _select(db, "measurements", {"experiment_id": exp_id})
    diag = _select(db, "diagnoses", {"experiment_id": exp_id})
    row["diagnosis"] = diag[-1] if diag else None
    entry = _select(db, "shelf", {"experiment_id": exp_id})
    row["shelf"] = entry[-1] if entry else None
    return row


# -- shelf and diagnoses -----------------------------------------------------------------

def shelf(db: Database, run_id: int | None = None, status: str | None = None) -> list[dict]:
    return _select(db, "shelf", {"run_id": run_id, "status": status})


def mark_shelf(db: Database, shelf_id: int, status: str, rescreen_experiment_id: int | None = None) -> None:
    """Move a shelf entry to a new status, naming the experiment that re-screened it."""
    fields = {"status": status, "updated_at": _now()}
    if rescreen_experiment_id is not None:
        fields["rescreen_experiment_id"] = rescreen_experiment_id
    _update(db, "shelf", shelf_id, fields)


def diagnoses(db: Database, run_id: int) -> list[dict]:
    return _select(db, "diagnoses", {"run_id": run_id})


# -- calibrations --------------------------------------------------------------------------

def record_calibration(db: Database, **fields: Any) -> int:
    with atomic(db):
        return _insert(db, "calibrations", {"created_at": _now(), **fields})


def update_calibration(db: Database, cal_id: int, **fields: Any) -> None:
    with atomic(db):
        _update(db, "calibrations", cal_id, fields)


def latest_calibration(db: Database, gpu_name: str, problem_key: str) -> dict | None:
    """The newest calibration taken on this GPU for this problem, or None."""
    rows = [r for r in _select(db, "calibrations", {"gpu_name": gpu_name, "problem_key": problem_key})]
    return rows[-1] if rows else None


def get_calibration(db: Database, cal_id: int) -> dict:
    return _get(db, "calibrations", cal_id)
