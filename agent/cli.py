"""fa5090-search: profiling-driven search over a FlashAttention forward kernel's knobs.

Each command's docstring is its --help; every listing takes --json.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from kernel_src.knobs import KnobError, Knobs
from store import queries as q
from store.db import open_db
from store.errors import StoreError

app = typer.Typer(
    help="Search a CUDA FlashAttention forward kernel's knobs the way a kernel engineer would: build each "
    "candidate, check it against two references, time it paired against the current best, read ncu's "
    "counters into a diagnosis, keep or shelve, stop at a plateau. Start with `fa5090-search doctor`.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)

DB_OPT = typer.Option(Path("fa5090.db"), "--db", envvar="FA5090_DB", help="SQLite file holding runs, experiments and the shelf.")
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of a table.")


def _fail(msg: str, code: int = 1) -> None:
    err.print(f"[bold red]error:[/] {msg}")
    raise typer.Exit(code)


def _open(db_path: Path, create: bool):
    try:
        return open_db(db_path, create=create)
    except StoreError as e:
        _fail(str(e))


def _artifacts_for(db_path: Path) -> Path:
    return db_path.parent / (db_path.stem + "_artifacts")


def _cache_dir() -> Path:
    return Path(os.environ.get("FA5090_CACHE", Path.home() / ".cache" / "fa5090-search"))


# ---------------------------------------------------------------------------------------------
@app.command()
def doctor(
    arch: Optional[str] = typer.Option(None, help="Arch to test-compile for when no GPU is present, e.g. sm_90."),
):
    """What is there, what is missing, and how to fix it: GPU, nvcc, ninja, ncu and counter permission.

    Compiles the seed kernel for the device's arch; with a GPU it also profiles one launch with ncu,
    which is the only honest test of counter permission. Exits non-zero when `run` cannot work."""
    from agent.doctor import diagnose_environment

    rows, fatal = diagnose_environment(_cache_dir(), arch)
    t = Table(title="fa5090-search doctor")
    for c in ("check", "status", "detail"):
        t.add_column(c, overflow="fold")
    colour = {"ok": "green", "warn": "yellow", "missing": "red"}
    for name, status, detail in rows:
        t.add_row(name, f"[{colour[status]}]{status}[/]", detail)
    console.print(t)
    if fatal:
        _fail("`fa5090-search run` cannot work here yet: fix the red rows above.")


# ---------------------------------------------------------------------------------------------
@app.command()
def run(
    budget: int = typer.Option(20, min=1, help="Experiments to spend (levers and re-screens; the seed check, A/A null and final comparisons are not counted)."),
    batch: int = typer.Option(2, "--batch", "-b", min=1, help="B"),
    heads: int = typer.Option(16, "--heads", min=1, help="H"),
    seqlen: int = typer.Option(2048, "--seqlen", "-n", min=1, help="N (any; tails are masked)"),
    head_dim: int = typer.Option(128, "--head-dim", "-d", help="D: 64 or 128"),
    dtype: str = typer.Option("float16", help="float16 or bfloat16"),
    causal: bool = typer.Option(False, "--causal/--no-causal"),
    seed_knob: list[str] = typer.Option([], "--seed-knob", help="Start from the naive seed with NAME=VALUE changed (repeatable), e.g. --seed-knob compute=mma."),
    exclude_lever: list[str] = typer.Option([], "--exclude-lever", help="Never try this lever (repeatable); `fa5090-search levers` lists them."),
    aa_repeats: int = typer.Option(3, min=2, help="A/A null repeats, each in a fresh process; t_noise is their p95 |margin-1|."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement (each arm gets about half)."),
    plateau: int = typer.Option(3, min=1, help="Stop after this many consecutive experiments without a keep."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Diagnose with ncu (needs counter permission)."),
    jobs: Optional[int] = typer.Option(None, min=1, help="Parallel nvcc builds (default: ninja's choice)."),
    calibration: bool = typer.Option(True, "--calibration/--no-calibration", help="Use the newest `calibrate` result for this GPU and problem (t_keep, ceilings); without one, or with --no-calibration, the run measures its own A/A null on the seed."),
    reanchor_every: int = typer.Option(3, min=0, help="Re-anchor against the seed after every N keeps (0: only at the end)."),
    l2: str = typer.Option("warm", help="L2 state for timing: warm (inputs stay cached) or cold (flushed before every timed call)."),
    replay: Optional[Path] = typer.Option(None, help="Replay a recorded run's measurements (recording.jsonl) instead of a GPU: the same decisions, no GPU needed."),
    db_path: Path = DB_OPT,
):
    """Search from the naive seed kernel: seed check, A/A null, then lever experiments until the
    budget or the plateau, then the final kernel against the seed and against SDPA.

    Every experiment is one transaction in --db; its predicted margin band is written before it is
    measured. ncu CSVs, build logs and a replayable recording go to <db>_artifacts/run-N/."""
    from experiments.problem import Shape
    from pydantic import ValidationError

    from agent.bench import GpuBench, Recorder, Replay
    from agent.loop import run_search
    from agent.progress import Reporter

    try:
        shape = Shape(B=batch, H=heads, N=seqlen, D=head_dim, dtype=dtype, causal=causal)
    except ValidationError as e:
        _fail("bad problem shape: " + "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()))
    try:
        seed = Knobs.parse_assignments(seed_knob)
    except KnobError as e:
        _fail(str(e))
    if l2 not in ("warm", "cold"):
        _fail(f"--l2 must be warm or cold, not '{l2}'", 2)
    db = _open(db_path, create=True)
    artifacts = _artifacts_for(db_path)
    next_id = (db.execute("select coalesce(max(id), 0) + 1 from runs").fetchone()[0])
    if replay is not None:
        if not replay.exists():
            _fail(f"no recording at {replay}")
        bench = Replay(replay)
    else:
        bench = Recorder(GpuBench(shape, _cache_dir(), budget_s=time_budget, profile=profile, jobs=jobs, l2=l2),
                         artifacts / f"run-{next_id}" / "recording.jsonl")
    command = "fa5090-search " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        with Reporter(console, budget) as say:
            run_id = run_search(bench, db, shape=shape, budget=budget, seed=seed, artifacts=artifacts,
                                aa_repeats=aa_repeats, plateau=plateau, exclude=tuple(exclude_lever),
                                use_calibration=calibration, reanchor_every=reanchor_every, command=command, say=say)
    except KeyboardInterrupt:
        _fail("interrupted: every finished experiment is in the database; the run is marked interrupted", 130)
    except Exception as e:  # noqa: BLE001 - turned into one sentence below
        _known_or_raise(e)
    _print_history(q.history(db, run_id), q.get_run(db, run_id))


def _known_or_raise(e: Exception) -> None:
    from agent.bench import ReplayMiss
    from agent.levers import UnknownLever
    from agent.loop import SearchError
    from experiments.build import BuildError
    from experiments.device import NoGpu

    if isinstance(e, (StoreError, KnobError, UnknownLever, SearchError, BuildError, NoGpu, ReplayMiss, FileNotFoundError)):
        _fail(str(e).strip().splitlines()[0] if not isinstance(e, SearchError) else str(e))
    raise e


# ---------------------------------------------------------------------------------------------
def _fmt(x, spec=".4f"):
    return "" if x is None else format(x, spec)


def _print_history(rows: list[dict], run: dict | None) -> None:
    title = "experiments"
    if run:
        title = (f"run {run['id']} on {run['gpu_name']} ({run['arch']}), {run['problem_key']}, "
                 f"t_keep {_fmt(run['t_keep'], '.5f')}, {run['status']}: {run['stop_reason'] or ''}")
    t = Table(title=title)
    for c in ("id", "#", "kind", "lever", "outcome", "margin", "AB/BA", "predicted", "TFLOP/s", "detail"):
        t.add_column(c, overflow="fold")
    for e in rows:
        colour = {"KEPT": "green", "SLOWER": "red", "WRONG": "red", "NULL": "yellow"}.get(e["outcome"] or "", "white")
        tf = f"{_fmt(e['tflops_base'], '.1f')} -> {_fmt(e['tflops_cand'], '.1f')}" if e["tflops_cand"] else ""
        pred = f"{e['predicted_lo']:.2f}-{e['predicted_hi']:.2f}" if e["predicted_lo"] else ""
        ab = f"{_fmt(e['margin_ab'])}/{_fmt(e['margin_ba'])}" if e["margin_ab"] else ""
        t.add_row(str(e["id"]), str(e["seq"] or ""), e["kind"], e["lever"] or "", f"[{colour}]{e['outcome'] or ''}[/]",
                  _fmt(e["margin"]), ab, pred, tf, (e["detail"] or "")[:90])
    console.print(t)


def _run_id(db, run_id: Optional[int]) -> int | None:
    if run_id is not None:
        q.get_run(db, run_id)
        return run_id
    latest = q.latest_run(db)
    return latest["id"] if latest else None


@app.command()
def history(
    run_id: Optional[int] = typer.Option(None, "--run", help="Run id (default: the latest run)."),
    all_runs: bool = typer.Option(False, "--all", help="Every run in the database."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """One row per experiment: lever, outcome, margin (with AB/BA halves), predicted band, TFLOP/s."""
    db = _open(db_path, create=False)
    try:
        rid = None if all_runs else _run_id(db, run_id)
        rows = q.history(db, rid)
    except StoreError as e:
        _fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    _print_history(rows, q.get_run(db, rid) if rid else None)


@app.command()
def show(experiment_id: int = typer.Argument(..., help="Experiment id (first column of `history`)."),
         as_json: bool = JSON_OPT, db_path: Path = DB_OPT):
    """One experiment in full: knobs and what changed, prediction, outcome, margin, correctness, diagnosis."""
    db = _open(db_path, create=False)
    try:
        e = q.experiment(db, experiment_id)
    except StoreError as ex:
        _fail(str(ex))
    if as_json:
        print(json.dumps(e, indent=1, default=str))
        return
    from agent.progress import render_experiment

    render_experiment(console, e)


@app.command()
def shelf(
    run_id: Optional[int] = typer.Option(None, "--run", help="Run id (default: the latest run)."),
    status: Optional[str] = typer.Option(None, help="shelved, rescreened or resurrected (default: all)."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """Rejected levers and the conditions they lost under (registers, smem/CTA, CTAs/SM, warps/SM, diagnosis)."""
    db = _open(db_path, create=False)
    if status is not None and status not in q.SHELF_STATUSES:
        _fail(f"--status must be one of {', '.join(q.SHELF_STATUSES)}, not '{status}'", 2)
    try:
        rows = q.shelf(db, _run_id(db, run_id), status=status)
    except StoreError as e:
        _fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title="shelf")
    for c in ("id", "lever", "outcome", "margin", "status", "regs", "smem/CTA", "CTAs/SM", "warps/SM", "diagnosis", "exp"):
        t.add_column(c)
    for r in rows:
        c = r["conditions"] or {}
        t.add_row(str(r["id"]), r["lever"], r["outcome"], _fmt(r["margin"]), r["status"], str(c.get("registers")),
                  str(c.get("smem_per_cta")), str(c.get("ctas_per_sm")), str(c.get("warps_per_sm")),
                  str(c.get("diagnosis")), str(r["experiment_id"]))
    console.print(t)


@app.command()
def rescreen(
    run_id: Optional[int] = typer.Option(None, "--run", help="Run id (default: the latest run)."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement."),
    profile: bool = typer.Option(True, "--profile/--no-profile"),
    db_path: Path = DB_OPT,
):
    """Re-try shelved levers whose recorded conditions differ from the current best's (needs the GPU
    the run was recorded on). `run` does this by itself after every keep that changes them."""
    from experiments.problem import Shape

    from agent.bench import GpuBench
    from agent.loop import rescreen as do_rescreen
    from agent.progress import Reporter

    db = _open(db_path, create=False)
    try:
        rid = _run_id(db, run_id)
        if rid is None:
            _fail("the database has no run to re-screen; start one with `fa5090-search run`")
        shape = Shape(**q.get_run(db, rid)["problem"])
        bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, profile=profile)
        with Reporter(console, 0) as say:
            n = do_rescreen(bench, db, rid, artifacts=_artifacts_for(db_path), say=say)
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    console.print(f"re-screened {n} shelved lever(s)" if n else "nothing to re-screen: every shelved lever's conditions still hold")


@app.command()
def levers(as_json: bool = JSON_OPT):
    """The lever catalog: knob values each sets, diagnoses it targets, precondition, predicted band."""
    from agent.levers import CATALOG

    if as_json:
        print(json.dumps([lv.model_dump(mode="json") for lv in CATALOG], indent=1))
        return
    t = Table(title="levers")
    for c in ("lever", "sets", "targets", "requires", "predicted", "hypothesis"):
        t.add_column(c, overflow="fold")
    for lv in CATALOG:
        t.add_row(lv.name, json.dumps(lv.sets), ", ".join(lv.targets), json.dumps(lv.requires) if lv.requires else "",
                  f"{lv.predicted[0]:.2f}-{lv.predicted[1]:.2f}", lv.hypothesis)
    console.print(t)


if __name__ == "__main__":  # pragma: no cover
    app()
