"""The schema, as an ordered, append-only list of named migrations.

Never edit a migration that has been applied somewhere; add a new one below it.
Every migration carries a one-line "why".
"""

from sqlite_utils import Database, Migrations

migrations = Migrations("fa5090_search")


# why: the first schema - runs, their experiments, raw measurements, diagnoses and the shelf.
@migrations(name="m001_initial")
def m001_initial(db: Database) -> None:
    db["runs"].create(
        {
            "id": int, "started_at": str, "finished_at": str,
            "gpu_name": str, "arch": str, "sm_count": int,
            "problem_key": str, "problem": str, "toolchain": str, "seed_knobs": str,
            "budget": int, "t_noise": float, "t_keep": float, "aa_margins": str,
            "status": str, "stop_reason": str, "command": str,
        },
        pk="id",
        not_null=["started_at", "gpu_name", "problem_key", "status"],
    )
    db["experiments"].create(
        {
            "id": int, "run_id": int, "seq": int, "kind": str, "lever": str,
            "base_key": str, "knob_key": str, "base_knobs": str, "knobs": str,
            "hypothesis": str, "predicted_lo": float, "predicted_hi": float,
            "outcome": str, "margin": float, "margin_lo": float, "margin_hi": float,
            "margin_ab": float, "margin_ba": float,
            "tflops_base": float, "tflops_cand": float,
            "detail": str, "started_at": str, "finished_at": str,
        },
        pk="id",
        foreign_keys=[("run_id", "runs", "id")],
        not_null=["run_id", "kind", "started_at"],
    )
    db["measurements"].create(
        {
            "id": int, "experiment_id": int, "kind": str, "ok": int,
            "value": float, "payload": str, "created_at": str,
        },
        pk="id",
        foreign_keys=[("experiment_id", "experiments", "id")],
        not_null=["experiment_id", "kind", "created_at"],
    )
    db["diagnoses"].create(
        {
            "id": int, "experiment_id": int, "run_id": int, "knob_key": str,
            "label": str, "summary": str, "metrics": str,
            "registers": int, "smem_per_cta": int, "ctas_per_sm": int, "warps_per_sm": int,
            "limiter": str, "ncu_csv": str, "created_at": str,
        },
        pk="id",
        foreign_keys=[("experiment_id", "experiments", "id"), ("run_id", "runs", "id")],
        not_null=["run_id", "created_at"],
    )
    db["shelf"].create(
        {
            "id": int, "run_id": int, "lever": str, "experiment_id": int,
            "outcome": str, "margin": float, "conditions": str, "status": str,
            "rescreen_experiment_id": int, "created_at": str, "updated_at": str,
        },
        pk="id",
        foreign_keys=[
            ("run_id", "runs", "id"),
            ("experiment_id", "experiments", "id"),
            ("rescreen_experiment_id", "experiments", "id"),
        ],
        not_null=["run_id", "lever", "experiment_id", "outcome", "status",
                  "created_at", "updated_at"],
    )
    db["experiments"].create_index(["run_id"])
    # A unique seq per run: two experiments numbered the same would break the ledger.
    # SQLite lets many NULLs through, so uncounted rows (seed, aa_null, ...) are fine.
    db["experiments"].create_index(["run_id", "seq"], unique=True)
    db["measurements"].create_index(["experiment_id"])
    db["shelf"].create_index(["run_id", "status"])



# why: the instrument's calibration is an artifact every keep decision reads, taken
# before any result exists; it outlives one run, so it gets a table of its own.
@migrations(name="m002_calibrations")
def m002_calibrations(db: Database) -> None:
    db["calibrations"].create(
        {
            "id": int, "created_at": str, "gpu_name": str, "arch": str, "problem_key": str,
            "knob_key": str, "knobs": str, "environment": str, "ceilings": str, "protocol": str,
            "aa_margins": str, "t_noise": float, "t_keep": float, "provisional": int,
            "false_keeps": int, "keep_trials": int, "trials": str, "command": str,
        },
        pk="id",
        not_null=["created_at", "gpu_name", "problem_key", "t_noise", "t_keep", "provisional"],
    )
    db["calibrations"].create_index(["gpu_name", "problem_key"])
    db["runs"].add_column("calibration_id", int, fk="calibrations", fk_col="id")



# why: a calibration kept only the A/A margins; the per-repeat arm times, halves and rates are
# what show an L2 or clock effect, so they are kept beside the margins.
@migrations(name="m003_calibration_aa_runs")
def m003_calibration_aa_runs(db: Database) -> None:
    db["calibrations"].add_column("aa_runs", str)


# why: runs are made by a named strategy, their noise is measured on the kernels they
# compare (how, recorded), and evidence from earlier runs is reused only when the kernel source and
# the compiler that built it are the same; an experiment may be a move of several levers, and the
# compiler's figures and the one-line rationale that ranked it are kept beside its prediction.
@migrations(name="m004_strategies")
def m004_strategies(db: Database) -> None:
    db["runs"].add_column("strategy", str)
    db["runs"].add_column("source_hash", str)
    db["runs"].add_column("nvcc", str)
    db["runs"].add_column("noise", str)  # JSON: every A/A null of the run, on which kernel, how obtained
    db["experiments"].add_column("move", str)  # JSON list of lever names (a compound move has 2-3)
    db["experiments"].add_column("rationale", str)
    db["experiments"].add_column("static", str)  # JSON: the candidate's compiler figures on this device


# why: a run killed with SIGKILL stayed `running` forever and could not be continued. The
# process that owns a run (pid, host, and that process's start time, so a reused pid is not taken
# for it) tells a live run from a dead one; `resumes` lists each continuation (when, which process,
# from which experiment), so a resumed run says that it was resumed; `options` keeps every setting
# the run's decisions and its bench depend on, so `run --resume` continues with the same ones.
@migrations(name="m005_run_owner")
def m005_run_owner(db: Database) -> None:
    db["runs"].add_column("owner_pid", int)
    db["runs"].add_column("owner_host", str)
    db["runs"].add_column("owner_start", str)  # "<boot id>:<start ticks>" of the owning process
    db["runs"].add_column("resumes", str)  # JSON list of {at, pid, host, after_seq}
    db["runs"].add_column("options", str)  # JSON: {"search": SearchOptions, "bench": the bench's settings}


def names() -> list[str]:
    """Every migration name in order (read through the public API on an empty database)."""
    return [m.name for m in migrations.pending(Database(memory=True))]
