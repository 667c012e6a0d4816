import sqlite3
from enum import Enum
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from store import SCHEMA_VERSION, open_db
from store import queries as q
from store.errors import ForeignDatabase, InvalidValue, MissingDatabase, NotFound, UnwritableDatabase
from store.migrations import migrations, names

# GOLDEN: change this only together with a new migration, never to make a test pass.
SCHEMA = {
    "runs": {
        "id": "INTEGER", "started_at": "TEXT", "finished_at": "TEXT", "gpu_name": "TEXT",
        "arch": "TEXT", "sm_count": "INTEGER", "problem_key": "TEXT", "problem": "TEXT",
        "toolchain": "TEXT", "seed_knobs": "TEXT", "budget": "INTEGER", "t_noise": "REAL",
        "t_keep": "REAL", "aa_margins": "TEXT", "status": "TEXT", "stop_reason": "TEXT",
        "command": "TEXT", "calibration_id": "INTEGER",  # m002
        "strategy": "TEXT", "source_hash": "TEXT", "nvcc": "TEXT", "noise": "TEXT",  # m004
        "owner_pid": "INTEGER", "owner_host": "TEXT", "owner_start": "TEXT", "resumes": "TEXT", "options": "TEXT",  # m005
    },
    "experiments": {
        "id": "INTEGER", "run_id": "INTEGER", "seq": "INTEGER", "kind": "TEXT", "lever": "TEXT",
        "base_key": "TEXT", "knob_key": "TEXT", "base_knobs": "TEXT", "knobs": "TEXT",
        "hypothesis": "TEXT", "predicted_lo": "REAL", "predicted_hi": "REAL", "outcome": "TEXT",
        "margin": "REAL", "margin_lo": "REAL", "margin_hi": "REAL", "margin_ab": "REAL",
        "margin_ba": "REAL", "tflops_base": "REAL", "tflops_cand": "REAL", "detail": "TEXT",
        "started_at": "TEXT", "finished_at": "TEXT",
        "move": "TEXT", "rationale": "TEXT", "static": "TEXT",  # m004
    },
    "measurements": {
        "id": "INTEGER", "experiment_id": "INTEGER", "kind": "TEXT", "ok": "INTEGER",
        "value": "REAL", "payload": "TEXT", "created_at": "TEXT",
    },
    "diagnoses": {
        "id": "INTEGER", "experiment_id": "INTEGER", "run_id": "INTEGER", "knob_key": "TEXT",
        "label": "TEXT", "summary": "TEXT", "metrics": "TEXT", "registers": "INTEGER",
        "smem_per_cta": "INTEGER", "ctas_per_sm": "INTEGER", "warps_per_sm": "INTEGER",
        "limiter": "TEXT", "ncu_csv": "TEXT", "created_at": "TEXT",
    },
    "shelf": {
        "id": "INTEGER", "run_id": "INTEGER", "lever": "TEXT", "experiment_id": "INTEGER",
        "outcome": "TEXT", "margin": "REAL", "conditions": "TEXT", "status": "TEXT",
        "rescreen_experiment_id": "INTEGER", "created_at": "TEXT", "updated_at": "TEXT",
    },
    "calibrations": {  # m002
        "id": "INTEGER", "created_at": "TEXT", "gpu_name": "TEXT", "arch": "TEXT", "problem_key": "TEXT",
        "knob_key": "TEXT", "knobs": "TEXT", "environment": "TEXT", "ceilings": "TEXT", "protocol": "TEXT",
        "aa_margins": "TEXT", "t_noise": "REAL", "t_keep": "REAL", "provisional": "INTEGER",
        "false_keeps": "INTEGER", "keep_trials": "INTEGER", "trials": "TEXT", "command": "TEXT",
        "aa_runs": "TEXT",  # m003
    },
}
FOREIGN_KEYS = {
    ("experiments", "run_id", "runs"), ("measurements", "experiment_id", "experiments"),
    ("diagnoses", "experiment_id", "experiments"), ("diagnoses", "run_id", "runs"),
    ("shelf", "run_id", "runs"), ("shelf", "experiment_id", "experiments"),
    ("shelf", "rescreen_experiment_id", "experiments"),
    ("runs", "calibration_id", "calibrations"),  # m002
}
GPU, PROBLEM = "NVIDIA H200", "B2-H16-N2048-D128-float16-noncausal"


def schema_of(db):
    tables = [t for t in db.table_names() if t != "_sqlite_migrations"]
    return {t: {r[1]: r[2] for r in db.execute(f"PRAGMA table_info([{t}])")} for t in tables}


@pytest.fixture
def db(tmp_path):
    db = open_db(tmp_path / "search.db")
    yield db
    db.close()


@pytest.fixture
def run_id(db):
    return q.create_run(db, gpu_name=GPU, arch="sm_90", sm_count=132, problem_key=PROBLEM,
                        problem={"B": 2, "H": 16, "N": 2048, "D": 128}, aa_margins=[0.9995, 1.0004],
                        toolchain={"nvcc": "12.8", "torch": "2.13.0"}, t_noise=0.0006, t_keep=0.0018)


def test_golden_schema(db):
    got = schema_of(db)
    assert sorted(got) == sorted(SCHEMA)  # m002's add_column with a foreign key rebuilds runs
    for table, columns in SCHEMA.items():
        assert list(got[table].items()) == list(columns.items()), table
    fks = {(fk.table, fk.column, fk.other_table) for t in SCHEMA for fk in db[t].foreign_keys}
    assert fks == FOREIGN_KEYS
    indexes = {(t, tuple(i.columns)) for t in SCHEMA for i in db[t].indexes}
    assert {("experiments", ("run_id",)), ("measurements", ("experiment_id",)),
            ("shelf", ("run_id", "status"))} <= indexes


def test_migrations_idempotent(tmp_path):
    path = tmp_path / "search.db"
    first = open_db(path)
    before = schema_of(first)
    migrations.apply(first)
    first.close()
    again = open_db(path)
    assert schema_of(again) == before
    rows = list(again.query("SELECT migration_set, name FROM _sqlite_migrations ORDER BY id"))
    assert [r["name"] for r in rows] == names() == ["m001_initial", "m002_calibrations", "m003_calibration_aa_runs",
                                                                  "m004_strategies", "m005_run_owner"]
    assert {r["migration_set"] for r in rows} == {"fa5090_search"}
    assert SCHEMA_VERSION == names()[-1]


def test_wal_and_foreign_keys_on(db):
    assert db.journal_mode == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_missing_database_refused_without_create(tmp_path):
    path = tmp_path / "nope.db"
    with pytest.raises(MissingDatabase, match="no database"):
        open_db(path, create=False)
    assert not path.exists()


def test_non_sqlite_file_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are not the tables you are looking for\n")
    with pytest.raises(ForeignDatabase, match="not a SQLite database"):
        open_db(path)


def test_a_gzipped_database_is_read_as_it_is_and_never_written(db, run_id, tmp_path):
    """A record's `name.db.gz`: the commands that only read open it as the .db it holds (unpacked into a temporary
    file, never beside it); a command that writes is told to unpack it first; a damaged archive is one sentence."""
    import gzip

    rows = q.history(db, run_id)
    assert q.latest_run(db) is not None
    db.execute("PRAGMA wal_checkpoint(TRUNCATE);")
    src = Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
    where = tmp_path / "record"
    where.mkdir()
    gz = where / "kept.db.gz"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    before = gz.read_bytes()
    ro = open_db(gz, create=False, read_only=True)
    assert q.history(ro, run_id) == rows and q.latest_run(ro) == q.latest_run(db)
    ro.close()
    assert gz.read_bytes() == before and [p.name for p in where.iterdir()] == ["kept.db.gz"]
    with pytest.raises(UnwritableDatabase, match="gunzip -k"):
        open_db(gz)
    bad = where / "bad.db.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(ForeignDatabase, match="cannot be unpacked"):
        open_db(bad, create=False, read_only=True)
    with pytest.raises(MissingDatabase, match="no database"):
        open_db(tmp_path / "gone.db.gz", create=False, read_only=True)


def test_other_programs_database_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE dogs (id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(ForeignDatabase, match="another program"):
        open_db(path)


def test_newer_schema_refused(tmp_path):
    path = tmp_path / "search.db"
    db = open_db(path)
    db["_sqlite_migrations"].insert({"migration_set": "fa5090_search", "name": "m999_future",
                                     "applied_at": "2099-01-01"})
    db.close()
    with pytest.raises(ForeignDatabase, match="newer"):
        open_db(path)


def test_check_same_setup(db, run_id):
    q.check_same_setup(db, GPU, PROBLEM)
    with pytest.raises(ForeignDatabase, match="recorded on NVIDIA H200 for problem B2-H16"):
        q.check_same_setup(db, "NVIDIA GeForce RTX 5090", PROBLEM)
    with pytest.raises(ForeignDatabase, match="use another --db"):
        q.check_same_setup(db, GPU, "B2-H16-N4096-D128-float16-noncausal")


def test_empty_database_accepts_any_setup(db):
    q.check_same_setup(db, "anything", "any-problem")


def test_runs_round_trip(db, run_id):
    run = q.get_run(db, run_id)
    assert run["status"] == "running" and run["started_at"]
    assert run["problem"] == {"B": 2, "H": 16, "N": 2048, "D": 128}
    assert run["aa_margins"] == [0.9995, 1.0004]
    q.update_run(db, run_id, status="plateau", stop_reason="3 nulls in a row", finished_at="2025-01-01T00:00:00")
    assert q.latest_run(db)["status"] == "plateau"
    assert [r["id"] for r in q.runs(db)] == [run_id]
    with pytest.raises(NotFound):
        q.update_run(db, run_id + 1, status="error")
    with pytest.raises(InvalidValue, match="runs.status"):
        q.update_run(db, run_id, status="finished")


def test_latest_run_none_when_empty(db):
    assert q.latest_run(db) is None


def test_finish_experiment_is_atomic(db, run_id):
    exp_id = q.start_experiment(db, run_id, kind="lever", lever="deferred_rescale",
                                knobs={"warps": 8}, predicted_lo=0.3, predicted_hi=1.0)
    measurements = [{"kind": "c1", "ok": True}, {"kind": "paired", "value": 1.0098}]
    # The diagnosis names a run that does not exist: the foreign key fails after the measurements went in.
    with pytest.raises(sqlite3.IntegrityError):
        q.finish_experiment(db, exp_id, outcome="KEPT", margin=1.0098, measurements=measurements,
                            diagnosis={"label": "mio_throttle", "run_id": run_id + 99})
    assert db["measurements"].count == 0
    assert db["diagnoses"].count == 0
    row = q.experiment(db, exp_id)
    assert row["outcome"] is None and row["finished_at"] is None and row["measurements"] == []


def test_record_experiment_is_atomic(db, run_id):
    with pytest.raises(sqlite3.IntegrityError):
        q.record_experiment(db, run_id, kind="lever", lever="x", outcome="SLOWER",
                            measurements=[{"kind": "paired"}], shelf={"run_id": 999})
    assert db["experiments"].count == 0 and db["measurements"].count == 0


def test_history_experiment_shelf_round_trip(db, run_id):
    seed = q.record_experiment(db, run_id, kind="seed", knob_key="k0", knobs={"warps": 4, "bm": 64},
                               outcome="KEPT", measurements=[{"kind": "c2", "ok": True, "payload": {"max_abs": 0.00774}}])
    assert q.next_seq(db, run_id) == 1
    exp_id = q.start_experiment(db, run_id, seq=q.next_seq(db, run_id), kind="lever",
                                lever="deferred_rescale", base_key="k0", knob_key="k1",
                                base_knobs={"warps": 4, "bm": 64}, knobs={"warps": 4, "bm": 64, "rescale_skip": 1},
                                hypothesis="skip rescale when the max did not move", predicted_lo=0.2, predicted_hi=1.0)
    q.finish_experiment(
        db, exp_id, outcome="NULL", margin=0.9983, margin_lo=0.9970, margin_hi=0.9996,
        tflops_base=180.1, tflops_cand=179.8, detail="within t_noise at 8 warps/SM",
        measurements=[{"kind": "paired", "ok": True, "value": 0.9983, "payload": {"ab": 0.998, "ba": 0.9986}}],
        diagnosis={"label": "issue_bound", "metrics": {"sm__warps_active": 8.0}, "registers": 168,
                   "smem_per_cta": 65536, "ctas_per_sm": 2, "warps_per_sm": 8, "ncu_csv": "ncu/k1.csv"},
        shelf={"conditions": {"registers": 168, "ctas_per_sm": 2, "warps_per_sm": 8, "diagnosis": "issue_bound"}},
    )
    assert q.next_seq(db, run_id) == 2

    hist = q.history(db, run_id)
    assert [(h["id"], h["lever"], h["outcome"], h["seq"]) for h in hist] == [
        (seed, None, "KEPT", None), (exp_id, "deferred_rescale", "NULL", 1)]
    assert hist[1]["margin"] == 0.9983 and hist[1]["tflops_cand"] == 179.8
    assert q.history(db) == hist

    # Canonical JSON: the same knobs are the same text whatever order they came in.
    raw = db.execute("SELECT knobs FROM experiments WHERE id = ?", [seed]).fetchone()[0]
    assert raw == '{"bm": 64, "warps": 4}'

    exp = q.experiment(db, exp_id)
    assert exp["knobs"] == {"warps": 4, "bm": 64, "rescale_skip": 1}
    assert exp["measurements"][0]["payload"] == {"ab": 0.998, "ba": 0.9986}
    assert exp["measurements"][0]["ok"] is True
    assert exp["diagnosis"]["metrics"] == {"sm__warps_active": 8.0}
    assert exp["diagnosis"]["run_id"] == run_id and exp["diagnosis"]["knob_key"] == "k1"
    entry = exp["shelf"]
    assert (entry["lever"], entry["outcome"], entry["margin"], entry["status"]) == (
        "deferred_rescale", "NULL", 0.9983, "shelved")
    assert entry["conditions"]["warps_per_sm"] == 8
    assert q.experiment(db, seed)["shelf"] is None and q.experiment(db, seed)["diagnosis"] is None

    # The occupancy moved: re-screen the shelf and resurrect the lever.
    rescreen = q.record_experiment(db, run_id, seq=q.next_seq(db, run_id), kind="rescreen",
                                   lever="deferred_rescale", outcome="KEPT", margin=1.0098)
    assert [s["id"] for s in q.shelf(db, run_id, status="shelved")] == [entry["id"]]
    q.mark_shelf(db, entry["id"], "resurrected", rescreen)
    assert q.shelf(db, run_id, status="shelved") == []
    [moved] = q.shelf(db, status="resurrected")
    assert moved["rescreen_experiment_id"] == rescreen and moved["conditions"]["diagnosis"] == "issue_bound"
    assert [d["label"] for d in q.diagnoses(db, run_id)] == ["issue_bound"]
    with pytest.raises(InvalidValue, match="shelf.status"):
        q.mark_shelf(db, entry["id"], "forgotten", None)
    with pytest.raises(NotFound):
        q.mark_shelf(db, entry["id"] + 1, "rescreened", None)


def test_seq_is_unique_within_a_run(db, run_id):
    q.start_experiment(db, run_id, seq=1, kind="lever")
    with pytest.raises(sqlite3.IntegrityError):
        q.start_experiment(db, run_id, seq=1, kind="lever")


def test_closed_sets_and_unknown_columns_refused(db, run_id):
    with pytest.raises(InvalidValue, match="experiments.outcome"):
        q.record_experiment(db, run_id, kind="lever", outcome="FASTER")
    with pytest.raises(InvalidValue, match="experiments.kind"):
        q.start_experiment(db, run_id, kind="guess")
    with pytest.raises(InvalidValue, match="no column 'speedup'"):
        q.start_experiment(db, run_id, kind="lever", speedup=1.1)
    with pytest.raises(InvalidValue, match="measurements.kind"):
        q.record_experiment(db, run_id, kind="lever", measurements=[{"kind": "vibes"}])
    assert db["experiments"].count == 0


def test_enums_and_pydantic_models_are_stored_as_data(db, run_id):
    class Outcome(str, Enum):
        WRONG = "WRONG"

    class Knobs(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        warps: int = 4
        bm: int = 64

    exp_id = q.record_experiment(db, run_id, kind="lever", outcome=Outcome.WRONG, knobs=Knobs())
    row = q.experiment(db, exp_id)
    assert row["outcome"] == "WRONG" and row["knobs"] == {"bm": 64, "warps": 4}


def test_not_found(db):
    with pytest.raises(NotFound):
        q.experiment(db, 1)
    with pytest.raises(NotFound):
        q.get_run(db, 1)
    with pytest.raises(NotFound):
        q.finish_experiment(db, 1, outcome="KEPT")


def test_a_database_written_by_m001_migrates_and_keeps_its_rows(tmp_path):
    """The H200 run's file was written before m002; opening it applies m002 and loses nothing."""
    import shutil
    from pathlib import Path

    from store import queries as q

    src = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_run2" / "fa5090.db"
    path = tmp_path / "old.db"
    shutil.copy(src, path)
    db = open_db(path)
    assert "calibrations" in db.table_names()
    assert len(q.history(db, 1)) == 14
    assert q.get_run(db, 1)["calibration_id"] is None


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_a_database_at_every_older_schema_migrates_and_keeps_its_rows(tmp_path, k):
    """Written by m001..m00k (a run still `running`, as a SIGKILL left the H200's before m005): opening
    it applies the rest; a run with no recorded owner is never judged stale, nor does it block a new run."""
    from sqlite_utils import Database

    path = tmp_path / f"m00{k}.db"
    old = Database(path)
    migrations.apply(old, stop_before=names()[k])
    assert [m.name for m in migrations.applied(old)] == names()[:k]
    old["runs"].insert({"id": 1, "started_at": "2026-11-30T00:00:00", "gpu_name": GPU, "problem_key": PROBLEM,
                        "status": "running"})
    old["experiments"].insert({"id": 1, "run_id": 1, "seq": 1, "kind": "lever", "lever": "exp2",
                               "started_at": "2026-11-30T00:00:01"})
    old.close()
    ro = open_db(path, read_only=True)  # read as it is, columns added since read as missing
    assert q.get_run(ro, 1)["status"] == "running"
    ro.close()
    db = open_db(path)
    assert [m.name for m in migrations.applied(db)] == names() and SCHEMA_VERSION == names()[-1]
    run = q.get_run(db, 1)
    assert run["status"] == "running" and run["owner_pid"] is None and q.history(db, 1)[0]["lever"] == "exp2"
    assert q.create_run(db, gpu_name=GPU, problem_key=PROBLEM) == 2
