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
    kv_heads: Optional[int] = typer.Option(None, "--kv-heads", min=1, help="K/V heads for grouped-query attention (must divide --heads; 1 is MQA; default: --heads, MHA)."),
    seed_knob: list[str] = typer.Option([], "--seed-knob", help="Start from the naive seed with NAME=VALUE changed (repeatable), e.g. --seed-knob compute=mma."),
    exclude_lever: list[str] = typer.Option([], "--exclude-lever", help="Never try this lever (repeatable); `fa5090-search levers` lists them."),
    strategy: str = typer.Option("agent", help="agent (the compiler's figures and the diagnosis rank every candidate; compound moves from the shelf), random (uniform over valid configurations of the same space), tpe (Optuna's TPE; pip install 'fa5090-search[tpe]'), ladder (the first agent, for recorded runs). Every strategy's candidates pass the same keep gate."),
    rng_seed: int = typer.Option(0, "--rng-seed", help="Seed of the random and TPE draws."),
    aa_repeats: int = typer.Option(5, min=2, help="A/A null repeats, each in a fresh process; t_noise is their p95 |margin-1|. Measured on the seed, and again on the best whenever its time per call has moved more than 2x since the last null."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement (each arm gets about half)."),
    plateau: int = typer.Option(3, min=1, help="Stop after this many consecutive experiments without a keep, once no candidate left is predicted to reach t_keep (the agent prints what remained and why)."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Diagnose with ncu (needs counter permission)."),
    jobs: Optional[int] = typer.Option(None, min=1, help="Parallel nvcc builds (default: ninja's choice)."),
    calibration: bool = typer.Option(True, "--calibration/--no-calibration", help="Use the newest `calibrate` result for this GPU and problem (t_keep, ceilings); without one, or with --no-calibration, the run measures its own A/A null on the seed."),
    reanchor_every: int = typer.Option(3, min=0, help="Re-anchor against the seed after every N keeps (0: only at the end)."),
    l2: str = typer.Option("warm", help="L2 state for timing: warm (inputs stay cached) or cold (flushed before every timed call)."),
    screen: bool = typer.Option(False, "--screen", help="Measure every applicable lever once against the seed (which never moves) and stop: each lever's paired margin against its off setting."),
    evidence: bool = typer.Option(True, "--evidence/--no-evidence", help="Rank levers by margins already measured against the current kernel in earlier runs of this database (e.g. a --screen), and predict those margins, before the catalog's bands."),
    replay: Optional[Path] = typer.Option(None, help="Replay a recorded run's measurements (recording.jsonl) instead of a GPU: the same decisions, no GPU needed."),
    db_path: Path = DB_OPT,
):
    """Search from the naive seed kernel: seed check, A/A null, then lever experiments until the
    budget or the plateau, then the final kernel against the seed and against SDPA.

    Every experiment is one transaction in --db; its predicted margin band is written before it is
    measured. ncu CSVs, build logs and a replayable recording go to <db>_artifacts/run-N/."""
    from agent.bench import GpuBench, Recorder, Replay
    from agent.loop import SearchOptions, run_search
    from agent.progress import Reporter

    shape = _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads)
    from agent.strategies import NAMES

    if strategy not in NAMES:
        _fail(f"unknown --strategy '{strategy}'; known: {', '.join(NAMES)}", 2)
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
            options = SearchOptions(budget=budget, aa_repeats=aa_repeats, plateau=plateau, exclude=tuple(exclude_lever),
                                    use_calibration=calibration, reanchor_every=reanchor_every, screen=screen,
                                    evidence=evidence, strategy=strategy, rng_seed=rng_seed)
            run_id = run_search(bench, db, shape=shape, seed=seed, artifacts=artifacts, options=options,
                                command=command, say=say)
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
    from agent.strategies.tpe import TpeMissing
    from experiments.device import NoGpu

    if isinstance(e, (StoreError, KnobError, UnknownLever, SearchError, BuildError, NoGpu, ReplayMiss, FileNotFoundError,
                      TpeMissing)):
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
                  _fmt(e["margin"]), ab, pred, tf, e["detail"] or "")
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


def _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads=None):
    from experiments.problem import Shape
    from pydantic import ValidationError

    try:
        return Shape(B=batch, H=heads, N=seqlen, D=head_dim, dtype=dtype, causal=causal, Hkv=kv_heads)
    except ValidationError as e:
        msgs = [(".".join(map(str, x["loc"])) + ": " if x["loc"] else "") + x["msg"].removeprefix("Value error, ")
                for x in e.errors()]
        _fail("bad problem shape: " + "; ".join(msgs))


@app.command()
def calibrate(
    batch: int = typer.Option(2, "--batch", "-b", min=1), heads: int = typer.Option(16, "--heads", min=1),
    seqlen: int = typer.Option(2048, "--seqlen", "-n", min=1), head_dim: int = typer.Option(128, "--head-dim", "-d"),
    dtype: str = typer.Option("float16"), causal: bool = typer.Option(False, "--causal/--no-causal"),
    knob: list[str] = typer.Option([], "--knob", help="Calibrate on the seed with NAME=VALUE changed (default: the latest run's best, else the seed)."),
    repeats: int = typer.Option(10, min=2, help="A/A experiments, each in a fresh process."),
    keep_trials: int = typer.Option(0, min=0, help="Also run this many full A/A keep decisions and count the false keeps."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement, as the runs will use."),
    l2: str = typer.Option("warm", help="warm or cold, as the runs will use."),
    clocks_locked: bool = typer.Option(False, "--clocks-locked", help="Say the clocks were locked outside this tool (it never sets them); still checked against the clocks read under load."),
    db_path: Path = DB_OPT,
):
    """The instrument against itself, before any result: environment and clocks (read, never set),
    the dtype's ceilings (torch GEMM, mma.sync register loop), the A/A null (t_noise = p95 |margin-1|,
    t_keep = 1 + t_noise) and optionally N A/A keep decisions. Every later run on this GPU and
    problem reads t_keep and the ceiling from the newest calibration."""
    from agent.bench import GpuBench
    from agent.calibrate import calibrate as do_calibrate
    from agent.loop import best_of_run
    from agent.progress import Reporter

    if l2 not in ("warm", "cold"):
        _fail(f"--l2 must be warm or cold, not '{l2}'", 2)
    shape = _shape_opts(batch, heads, seqlen, head_dim, dtype, causal)
    db = _open(db_path, create=True)
    try:
        if knob:
            knobs = Knobs.parse_assignments(knob)
        else:
            runs = [r for r in q.runs(db) if r["problem_key"] == shape.key()]
            knobs = best_of_run(db, runs[-1]["id"]) if runs else Knobs()
        bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, l2=l2)
        command = "fa5090-search " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        with Reporter(console, keep_trials) as say:
            cal = do_calibrate(bench, db, shape=shape, knobs=knobs, repeats=repeats, keep_trials=keep_trials,
                               clocks_locked=clocks_locked, artifacts=_artifacts_for(db_path), command=command, say=say)
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    c = cal["ceilings"]
    t = Table(title=f"calibration {cal['id']} on {cal['gpu_name']}, {cal['problem_key']}" + (" (provisional: clocks not locked)" if cal["provisional"] else ""))
    for col in ("quantity", "value"):
        t.add_column(col)
    t.add_row("knobs", Knobs.parse(cal["knobs"]).label())
    t.add_row("A/A margins", ", ".join(f"{m:.5f}" for m in cal["aa_margins"]))
    t.add_row("t_noise / t_keep", f"{cal['t_noise']:.4%} / {cal['t_keep']:.5f}")
    t.add_row(f"ceiling: torch GEMM {c['dtype']}", f"{c['gemm_tflops']:.1f} TFLOP/s")
    t.add_row(f"ceiling: mma.sync {c['dtype']}", f"{c['mma_sync_tflops']:.1f} TFLOP/s")
    t.add_row("SM clock idle / under GEMM", f"{cal['environment']['clocks_idle'].get('clocks.sm')} / {(c.get('clocks_under_gemm') or {}).get('clocks.sm')} MHz")
    if cal["keep_trials"]:
        t.add_row("A/A keep decisions", f"{cal['false_keeps']} false keeps in {cal['keep_trials']}")
    console.print(t)


@app.command()
def baseline(
    run_id: Optional[int] = typer.Option(None, "--run", help="Run whose best kernel to compare (default: the latest)."),
    seqlen: list[int] = typer.Option([], "--seqlen", "-n", help="Shapes to compare at (repeatable; default: the run's N)."),
    backend: list[str] = typer.Option(["flash", "cudnn", "efficient", "flash_attn"], "--backend", help="SDPA backends (flash, cudnn, efficient, math) and flash_attn."),
    time_budget: float = typer.Option(2.0, min=0.2),
    db_path: Path = DB_OPT,
):
    """PyTorch SDPA's backends (and flash_attn where importable) against the run's best kernel, in the
    same paired protocol, per shape: margins measured here, not quoted numbers."""
    from experiments.problem import Shape

    from agent.bench import GpuBench
    from agent.loop import best_of_run

    known = ("flash", "cudnn", "efficient", "math", "flash_attn")
    for b in backend:
        if b not in known:
            _fail(f"unknown backend '{b}'; known: {', '.join(known)}", 2)
    db = _open(db_path, create=False)
    rows = []
    try:
        rid = _run_id(db, run_id)
        if rid is None:
            _fail("the database has no run; start one with `fa5090-search run`")
        run = q.get_run(db, rid)
        best = best_of_run(db, rid)
        for n in seqlen or [run["problem"]["N"]]:
            shape = Shape(**{**run["problem"], "N": n})
            bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, profile=False)
            q.check_same_setup(db, bench.device().name, run["problem_key"])
            for b in backend:
                job = bench.paired({"knobs": best}, {"sdpa": b})
                p = job.value("paired")
                err_step = next((s for s in job.steps if "error" in s), None)
                q.record_experiment(db, rid, kind="comparator", lever=f"{b}@{shape.key()}", base_key=best.key(),
                                    base_knobs=best, margin=p and p["margin"], margin_ab=p and p["margin_ab"],
                                    margin_ba=p and p["margin_ba"], tflops_base=p and p["tflops_base"],
                                    tflops_cand=p and p["tflops_cand"],
                                    detail=f"{b} against the best at {shape.key()}; margin > 1 means {b} is faster"
                                    if p else f"{b} unavailable: {(err_step or {}).get('error', job.stderr[-200:])[:200]}",
                                    measurements=[{"kind": "comparator", "ok": p is not None, "value": p and p["margin"],
                                                   "payload": p or {"steps": job.steps, "stderr": job.stderr}}])
                rows.append((shape.key(), b, p))
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    t = Table(title=f"baseline: run {rid}'s best {best.label()} against the comparators, paired")
    for c in ("shape", "comparator", "ours TFLOP/s", "theirs TFLOP/s", "margin (theirs/ours)", "AB/BA"):
        t.add_column(c)
    for shape_key, b, p in rows:
        if p:
            t.add_row(shape_key, b, f"{p['tflops_base']:.1f}", f"{p['tflops_cand']:.1f}", f"{p['margin']:.3f}",
                      f"{p['margin_ab']:.3f}/{p['margin_ba']:.3f}")
        else:
            t.add_row(shape_key, b, "", "", "unavailable", "")
    console.print(t)


@app.command("derive-tolerance")
def derive_tolerance(
    limit: Optional[int] = typer.Option(None, min=1, help="Only the first N of the 1,024 envelope configurations."),
    battery: bool = typer.Option(True, "--battery/--no-battery", help="Also run the defect battery through the keep path at the run shape."),
    out: Path = typer.Option(Path("tolerance-report.json"), "-o", "--out", help="Where to write the report."),
    replay: Optional[Path] = typer.Option(None, help="Re-summarise a recorded report's raw rows (no GPU) instead of measuring."),
    db_path: Path = DB_OPT,
):
    """Hold the correctness rule to data: over 1,024 configurations (fp16/bf16, D 64/128, causal or
    not, 32 values of N with odd tails, 4 (B, H)) report the worst correct kernel's error as a
    fraction of the bound and every injected defect's as a multiple of it; then evaluate each of
    the defects exactly as the search evaluates a candidate: every one must be rejected."""
    import json

    from experiments.battery import defect_battery, tolerance_report
    from experiments.problem import Shape

    from agent.bench import GpuBench

    shape = Shape(B=2, H=16, N=2048, D=128)
    if replay is not None:
        from experiments.battery import CORRECT
        from experiments.defects import DEFECTS
        from experiments.tolerance import summarize

        if not replay.exists():
            _fail(f"no report at {replay}")
        recorded = json.loads(replay.read_text())
        report = {**recorded, **summarize(recorded["rows"], list(CORRECT), list(DEFECTS))}
        battery = "battery" in report
        _print_tolerance(report, battery)
        return
    try:
        bench = GpuBench(shape, _cache_dir(), budget_s=1.0, profile=False)
        dev = bench.device()
        with console.status("running the envelope (every kernel on every configuration)"):
            report = tolerance_report(bench.lab, limit=limit)
        report["device"] = dev.model_dump(mode="json")
        if battery:
            db = _open(db_path, create=True)
            cal = q.latest_calibration(db, dev.name, shape.key())
            tn = cal["t_noise"] if cal else 0.001
            with console.status("defect battery through the keep path"):
                report["battery"] = defect_battery(bench.lab, t_keep=1 + tn, t_noise=tn)
            report["battery_t_noise"] = tn
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    out.write_text(json.dumps(report, indent=1, default=str))
    _print_tolerance(report, battery)
    console.print(f"report in {out}")


def _print_tolerance(report: dict, battery: bool) -> None:
    import json

    t = Table(title=f"correct kernels over {report['n_configs']} configurations: error as a fraction of the bound")
    for c in ("kernel", "configs", "failures", "worst", "median"):
        t.add_column(c)
    for name, r in report["correct"].items():
        t.add_row(name, str(r["configs"]), str(r["failures"]), _fmt(r["worst_fraction_of_bound"]), _fmt(r["median_fraction_of_bound"]))
    console.print(t)
    t = Table(title="defects over the envelope: error as a multiple of the bound")
    for c in ("defect", "caught", "how", "min multiple", "median multiple"):
        t.add_column(c)
    for name, r in report["defects"].items():
        t.add_row(name, f"{r['caught']}/{r['configs']}", json.dumps(r["reasons"]), _fmt(r["min_multiple"], ".3g"), _fmt(r["median_multiple"], ".3g"))
    console.print(t)
    if battery:
        t = Table(title="defect battery through the keep path (B2 H16 N2048 D128 fp16)")
        for c in ("defect", "outcome", "rejected", "detail"):
            t.add_column(c, overflow="fold")
        for r in report["battery"]:
            t.add_row(r["defect"], r["outcome"], "yes" if r["rejected"] else "[red]NO[/]", r["detail"][:120])
        console.print(t)
    console.print(f"worst correct kernel: {_fmt(report['worst_correct_fraction'])} of the bound; defects caught by their "
                  f"error: smallest median multiple {_fmt(report['smallest_defect_median_multiple'], '.3g')}, smallest single "
                  f"multiple {_fmt(report.get('smallest_defect_error_multiple'), '.3g')}")


_LADDER = [{}, {"compute": "mma"}, {"compute": "mma", "layout": "swizzle"},
           {"compute": "mma", "layout": "swizzle", "staging": "cp_async"},
           {"compute": "mma", "layout": "swizzle", "staging": "cp_async", "exp": "ex2"},
           {"compute": "mma", "layout": "pad", "staging": "cp_async", "exp": "ex2"},
           {"compute": "mma", "layout": "pad", "staging": "cp_async", "exp": "ex2", "kv_stages": 2},
           {"compute": "mma", "layout": "pad", "staging": "cp_async", "exp": "ex2", "kv_stages": 3},
           # the H200's third CTA/SM (results/2026-11-30_h200_margins, _search_n8192)
           {"compute": "mma", "layout": "pad", "staging": "cp_async", "exp": "ex2", "q_in": "smem"},
           {"compute": "mma", "layout": "pad", "staging": "cp_async", "exp": "ex2", "kv_stages": 2, "persistent": "on",
            "bc": 32}]
CENSUS = ("HMMA", "MUFU.EX2", "FFMA", "FMUL", "LDSM", "LDGSTS", "LDS", "LDG", "STS", "STG", "BAR", "SHFL", "LDL", "STL")


@app.command()
def static(
    arch: str = typer.Option(..., help="Target to compile for: sm_80, sm_86, sm_89, sm_90 or sm_120 (no GPU needed)."),
    knob: list[str] = typer.Option([], "--knob", help="One candidate: the seed with NAME=VALUE changed (repeatable)."),
    covering: bool = typer.Option(False, "--covering", help="The pairwise covering set of knob combinations instead of the ladder."),
    head_dim: int = typer.Option(128, "--head-dim", "-d"),
    dtype: str = typer.Option("float16"),
    as_json: bool = JSON_OPT,
):
    """Compile candidates for an arch you may not have and read what the compiler made: registers,
    spills, shared memory per CTA, predicted CTAs/SM and warps/SM with the limiting resource (from
    the arch table), whether it can launch at all, and a SASS census by instruction family
    (cuobjdump; `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` if the toolkit has none).
    Default set: the ladder seed -> tensor cores -> swizzle -> cp.async -> exp2 -> padding -> pipelining,
    then the H200's best finds (Q from shared memory; double buffering + persistent grid + BC 32)."""
    from experiments.build import BuildSpec, build
    from kernel_src.arch import TABLE, ctas_per_sm, launch_refusal
    from kernel_src.covering import covering_set
    from profiler.ptxas import find_entry, parse_ptxas
    from profiler.sass import CuobjdumpMissing, census, dump_sass

    if arch not in TABLE:
        _fail(f"unknown arch '{arch}'; known: {', '.join(TABLE)}", 2)
    if head_dim not in (64, 128) or dtype not in ("float16", "bfloat16"):
        _fail("--head-dim must be 64 or 128 and --dtype float16 or bfloat16", 2)
    try:
        cands = [Knobs.parse_assignments(knob)] if knob else covering_set() if covering else [Knobs.parse(d) for d in _LADDER]
    except KnobError as e:
        _fail(str(e))
    lim = TABLE[arch]
    specs = [BuildSpec(knobs=k, arch=arch, dtypes=(dtype,), dims=(head_dim,), causals=(False,)) for k in cands]
    try:
        with console.status(f"compiling {len(specs)} candidate(s) for {arch}"):
            res = build(specs, _cache_dir() / "static")
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    rows, warned = [], None
    for spec in specs:
        r = res[spec.key()]
        row = {"knobs": spec.knobs.model_dump(mode="json"), "label": spec.knobs.label(), "arch": arch, "built": r.ok}
        if not r.ok:
            row["error"] = r.log.strip().splitlines()[-1][:200] if r.log.strip() else "nvcc failed"
            rows.append(row)
            continue
        # the attention kernel itself; split-KV libraries also hold the combine kernel
        rec = find_entry(parse_ptxas(r.log), "fa_fwd_kernel")
        smem = spec.knobs.smem_bytes(head_dim)
        ctas, limiter = ctas_per_sm(lim, threads=spec.knobs.threads(), smem=smem, regs=rec.registers)
        row.update(registers=rec.registers, spill_bytes=rec.spill_stores + rec.spill_loads, smem_per_cta=smem,
                   ctas_per_sm=ctas, warps_per_sm=ctas * spec.knobs.warps, limiter=limiter,
                   refusal=launch_refusal(lim, smem=smem, threads=spec.knobs.threads()))
        try:
            counts = {f: c for f, c in census(dump_sass(r.library)).items() if "fa_fwd_kernel" in f}
            row["census"] = dict(next(iter(counts.values())).most_common()) if counts else {}
        except CuobjdumpMissing as e:
            warned, row["census"] = str(e), None
        rows.append(row)
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    t = Table(title=f"static report for {arch} ({lim.smem_per_block_optin // 1024} KB smem/block, {lim.max_warps_per_sm} warps/SM), D={head_dim} {dtype}")
    for c in ("candidate", "regs", "spill B", "smem/CTA", "CTAs/SM", "warps/SM", "limiter", *CENSUS):
        t.add_column(c, overflow="fold")
    for r in rows:
        if not r["built"]:
            t.add_row(r["label"], "[red]build failed[/]", r.get("error", ""), *[""] * (5 + len(CENSUS)))
            continue
        c = r["census"] or {}
        t.add_row(r["label"], str(r["registers"]), str(r["spill_bytes"]), str(r["smem_per_cta"]),
                  "[red]cannot launch[/]" if r["refusal"] else str(r["ctas_per_sm"]), str(r["warps_per_sm"]),
                  r["refusal"] or r["limiter"], *[str(c.get(f, 0)) if r["census"] is not None else "n/a" for f in CENSUS])
    console.print(t)
    if warned:
        err.print(f"[yellow]no SASS census:[/] {warned}")


@app.command()
def export(
    what: list[str] = typer.Argument(..., help="An experiment id from `history`, or knob assignments NAME=VALUE."),
    out: Path = typer.Option(Path("attn.cu"), "-o", "--out"),
    head_dim: int = typer.Option(128, "--head-dim", "-d"),
    dtype: str = typer.Option("float16"),
    db_path: Path = DB_OPT,
):
    """Write one self-contained .cu file: the kernel at those knobs, a CPU reference check on sampled
    rows and a timing loop printing TFLOP/s. Build it with one command, e.g.
    `nvcc -O3 -std=c++17 -arch=sm_90 attn.cu -o attn && ./attn 2 16 2048 0`."""
    from kernel_src.export import standalone

    if len(what) == 1 and what[0].isdigit():
        db = _open(db_path, create=False)
        try:
            knobs = Knobs.parse(q.experiment(db, int(what[0]))["knobs"] or {})
        except StoreError as e:
            _fail(str(e))
    else:
        try:
            knobs = Knobs.parse_assignments(what)
        except KnobError as e:
            _fail(str(e))
    try:
        out.write_text(standalone(knobs, head_dim, dtype))
    except ValueError as e:
        _fail(str(e), 2)
    console.print(f"wrote {out} ({knobs.label()}, D={head_dim}, {dtype}); build: nvcc -O3 -std=c++17 -arch=sm_90 {out} -o attn")


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
