"""The commands that measure: run (the search), rescreen, calibrate (the instrument against itself)
and baseline (the comparators, paired)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import typer
from rich.table import Table

from kernel_src.knobs import KnobError, Knobs
from store import queries as q
from store.db import close_db
from store.errors import StoreError

from .common import (
    DB_OPT,
    JSON_OPT,
    RUN_OPT,
    L2,
    Backend,
    Dtype,
    HeadDim,
    Strategy,
    GPUS_OPT,
    SCHEDULER_OPT,
    _artifacts_for,
    _cache_dir,
    _command_line,
    _fail,
    _fits,
    _print_table,
    _known_or_raise,
    _need_gpu,
    _on_cluster,
    _open,
    _print_history,
    _run_id,
    _shape_opts,
    app,
    console,
)


@app.command()
def run(
    ctx: typer.Context,
    budget: int = typer.Option(20, min=1, help="Experiments to spend (levers and re-screens; the seed check, A/A null and final comparisons are not counted)."),
    batch: int = typer.Option(2, "--batch", "-b", min=1, help="Batch size B."),
    heads: int = typer.Option(16, "--heads", min=1, help="Query heads H."),
    seqlen: int = typer.Option(2048, "--seqlen", "-n", min=1, help="Sequence length N (any; tails are masked)."),
    head_dim: HeadDim = typer.Option(128, "--head-dim", "-d", help="Head dimension D."),
    dtype: Dtype = typer.Option("float16", help="Input and output dtype (accumulation is fp32)."),
    causal: bool = typer.Option(False, "--causal/--no-causal", help="Causal mask."),
    kv_heads: Optional[int] = typer.Option(None, "--kv-heads", min=1, help="K/V heads for grouped-query attention (must divide --heads; 1 is MQA; default: --heads, MHA)."),
    seed_knob: list[str] = typer.Option([], "--seed-knob", help="Start from the naive seed with NAME=VALUE changed (repeatable), e.g. --seed-knob compute=mma."),
    exclude_lever: list[str] = typer.Option([], "--exclude-lever", help="Never try this lever (repeatable); `fa5090-search levers` lists them."),
    strategy: Strategy = typer.Option("agent", help="agent (the compiler's figures and the diagnosis rank every candidate; compound moves from the shelf), random (uniform over valid configurations of the same space), tpe (Optuna's TPE; pip install 'fa5090-search[tpe]'), ladder (the first agent, for recorded runs). Every strategy's candidates pass the same keep gate."),
    rng_seed: int = typer.Option(0, "--rng-seed", help="Seed of the random and TPE draws."),
    aa_repeats: int = typer.Option(5, min=2, help="A/A null repeats, each in a fresh process; t_noise is their p95 |margin-1|. Measured on the seed, and again on the best once its time per call has moved more than 2x since the last null (when a decision needs it: see --lazy-null)."),
    lazy_null: bool = typer.Option(True, "--lazy-null/--eager-null", help="Lazy: a re-measured null is owed until a decision needs it (an experiment predicted within +-2% of 1, a simplification, or a margin that lands there); until then margins outside +-2% are decided as under any null up to 2%. Eager: measured right after the keep that moved the time per call."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement (each arm gets about half)."),
    plateau: int = typer.Option(3, min=1, help="Stop after this many consecutive experiments without a keep, once no candidate left is predicted to reach t_keep (the agent prints what remained and why)."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Diagnose with ncu (needs counter permission)."),
    jobs: Optional[int] = typer.Option(None, min=1, help="Parallel nvcc builds (default: ninja's choice)."),
    calibration: bool = typer.Option(True, "--calibration/--no-calibration", help="Use the newest `calibrate` result for this GPU and problem (t_keep, ceilings); without one, or with --no-calibration, the run measures its own A/A null on the seed."),
    reanchor_every: int = typer.Option(3, min=0, help="Re-anchor against the seed after every N keeps (0: only at the end)."),
    l2: L2 = typer.Option("warm", help="L2 state for timing: warm (inputs stay cached) or cold (flushed before every timed call)."),
    screen: bool = typer.Option(False, "--screen", help="Measure every applicable lever once against the seed (which never moves) and stop: each lever's paired margin against its off setting. Every single lever comes before any compound move; compounds fill what budget is left."),
    evidence: bool = typer.Option(True, "--evidence/--no-evidence", help="Rank levers by margins already measured against the current kernel in earlier runs of this database (e.g. a --screen), and predict those margins, before the catalog's bands."),
    replay: Optional[Path] = typer.Option(None, help="Replay a recorded run's measurements (recording.jsonl; a resumed run's recording.resume-N.jsonl beside it are read after it) instead of a GPU: the same decisions, no GPU needed. The recorded run's options are reused by themselves (problem, budget, seed knobs, ...); an option given here wins, and a replay it makes diverge says so."),
    gpus: Optional[int] = GPUS_OPT,
    scheduler: Optional[str] = SCHEDULER_OPT,
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run (RUN, default the latest interrupted one) from its last finished experiment, with its own problem, options, seed, null, best, shelf and budget left; the options given here are ignored."),
    resume_run: Optional[int] = typer.Argument(None, metavar="RUN", help="With --resume: the run to continue."),
    db_path: Path = DB_OPT,
):
    """Search from the naive seed kernel: seed check, A/A null, then lever experiments until the
    budget or the plateau, then the final kernel against the seed and against SDPA.

    Every experiment is one transaction in --db; its predicted margin band is written before it is
    measured. ncu CSVs, build logs and a replayable recording go to <db>_artifacts/run-N/.
    Replay: `run --replay results/2026-11-30_h200_run2/fa5090_artifacts/run-1/recording.jsonl --db /tmp/r.db`
    takes the recorded run's options from the recording's header or, for older recordings, from the
    run's row in the database beside it (<stem>_artifacts/run-N/ -> <stem>.db, read-only). Options
    given on the command line override them; where that asks what the recorded run never measured,
    the replay stops with one sentence naming the options that changed.
    Examples: `run --budget 20`, `run --seqlen 8192 --dtype bfloat16 --causal --strategy tpe`,
    `run --screen --seed-knob compute=mma --budget 30`.
    `run --resume [RUN]` continues a run that was killed or interrupted."""
    if resume_run is not None and not resume:
        _fail(f"a run number ({resume_run}) is only read with --resume: `run --resume {resume_run}`", 2)
    if resume:
        return _resume(resume_run, replay, db_path)
    args = locals()  # the parameters, taken by name
    given = {k: args[k] for k in _RUN_PARAMS}
    replayed, replay_line, changed = None, "", []
    if replay is not None:  # a bad recording is refused before anything is created
        replayed, given, replay_line, changed = _open_replay(ctx, replay, given)
    o = SimpleNamespace(**given)
    shape = _shape_opts(o.batch, o.heads, o.seqlen, o.head_dim, o.dtype, o.causal, o.kv_heads)
    seed = _seed_and_exclusions(o.seed_knob, o.exclude_lever)
    # what can refuse the run (no recording, no GPU) is asked before a database is created, so a
    # run that cannot start leaves nothing behind
    _refuse_fan_out(replayed, o.strategy, o.screen, gpus, scheduler)
    bench = (_replay_bench(ctx, replay, replayed, gpus, scheduler) if replay is not None else
             _gpu_bench(ctx, shape, o, gpus, scheduler, jobs))
    _search_and_print(db_path, bench, replay is not None, shape, seed, o, given, jobs, replay_line, changed)


def _open_replay(ctx: typer.Context, replay: Path, given: dict):
    """The recording, and the options a replay of it runs with (this command line's over the recorded run's)."""
    from agent.bench import Replay

    try:
        replayed = Replay(replay)
    except Exception as e:  # noqa: BLE001 - one sentence below
        _known_or_raise(e)
    given, replay_line, changed = _replay_options(ctx, given, replayed)
    return replayed, given, replay_line, changed


def _seed_and_exclusions(seed_knob: list[str], exclude_lever: list[str]) -> Knobs:
    """The seed's knobs; an unknown knob or excluded lever refused in one sentence, before anything is created."""
    try:
        seed = Knobs.parse_assignments(seed_knob)
    except KnobError as e:
        _fail(str(e))
    from agent.levers import UnknownLever, get

    for name in exclude_lever:
        try:
            get(name)
        except UnknownLever as e:
            _fail(str(e).strip("'\""), 2)
    return seed


def _refuse_fan_out(replayed, strategy: str, screen: bool, gpus, scheduler) -> None:
    """--gpus/--scheduler with a strategy that decides one experiment at a time: refused, with why."""
    ran, screened = strategy, screen
    if replayed is not None and (gpus or scheduler):  # the recorded run's strategy, unless this command line gives one
        recorded = replayed.settings({"strategy": strategy, "screen": screen})
        ran, screened = recorded.get("strategy", strategy), recorded.get("screen", screen)
    if (gpus or scheduler) and not screened and ran not in ("random", "agent"):
        if ran == "tpe":
            _fail("--strategy tpe cannot fan out over --gpus/--scheduler: TPE's next draw depends on the outcome of "
                  "the one before it (Optuna fits its densities to every finished trial), so a draw measured ahead "
                  "would not be the one a one-GPU run makes; run it on one GPU, or use --strategy random", 2)
        _fail(f"--gpus and --scheduler spread a --screen's measurements, sweep's, --strategy random's draws and "
              f"the agent's top proposals (measured ahead, decided in order); --strategy {ran} (the first agent, "
              "kept for its recorded runs) decides one experiment at a time: run it without them", 2)


def _replay_bench(ctx: typer.Context, replay: Path, replayed, gpus, scheduler):
    """The recording as the bench; on a cluster every worker answers from its own copy (CPU processes will do)."""
    from agent.bench import Replay

    try:
        return _on_cluster(ctx, gpus, scheduler, partial(Replay, replay), replayed, 0) or replayed
    except Exception as e:  # noqa: BLE001 - one sentence below
        _known_or_raise(e)


def _gpu_bench(ctx: typer.Context, shape, o: SimpleNamespace, gpus, scheduler, jobs):
    """This machine's GPU (or a cluster's) as the bench, the problem held to its memory before a database exists."""
    from agent.bench import GpuBench

    gpu = GpuBench(shape, _cache_dir(), budget_s=o.time_budget, profile=o.profile, jobs=jobs, l2=o.l2)
    try:
        if gpus or scheduler:  # each worker judges its pairs with its own device's A/A null
            from agent.distributed import gpu_worker_bench

            gpu = _on_cluster(ctx, gpus, scheduler, partial(gpu_worker_bench, shape, o.time_budget, o.l2, o.profile),
                              gpu, o.aa_repeats)
        dev = gpu.device()
    except Exception as e:  # noqa: BLE001 - one sentence below
        _known_or_raise(e)
    _fits(shape, dev)  # against this GPU's own memory, before the database is created
    return gpu


def _search_and_print(db_path: Path, bench, replaying: bool, shape, seed: Knobs, o: SimpleNamespace, given: dict,
                      jobs, replay_line: str, changed: list[str]) -> None:
    """The database opened (created), the search run on the bench (a GPU's recorded as it goes), its history printed."""
    from agent.bench import Recorder, ReplayMiss
    from agent.loop import SearchOptions, run_search
    from agent.progress import Reporter

    db = _open(db_path, create=True)
    artifacts = _artifacts_for(db_path)
    next_id = (db.execute("select coalesce(max(id), 0) + 1 from runs").fetchone()[0])
    command = _command_line()
    if not replaying:
        bench = Recorder(bench, artifacts / f"run-{next_id}" / "recording.jsonl")
        bench.header({"command": command, "problem": shape.model_dump(), "budget": o.budget,
                      "params": {k: (str(v) if isinstance(v, Path) else v) for k, v in given.items()}})
    elif replay_line:
        console.print(replay_line, markup=False, highlight=False, soft_wrap=True)
    try:  # the file holds the whole run when the command ends, however it ends
        try:
            with Reporter(console, o.budget) as say:
                options = SearchOptions(budget=o.budget, aa_repeats=o.aa_repeats, plateau=o.plateau,
                                        exclude=tuple(o.exclude_lever), use_calibration=o.calibration,
                                        reanchor_every=o.reanchor_every, screen=o.screen, evidence=o.evidence,
                                        strategy=o.strategy, rng_seed=o.rng_seed, lazy_null=o.lazy_null)
                run_id = run_search(bench, db, shape=shape, seed=seed, artifacts=artifacts, options=options,
                                    command=command, say=say,
                                    bench_settings={"time_budget": o.time_budget, "profile": o.profile, "jobs": jobs,
                                                    "l2": o.l2, "settle": "any", "spare": True})
        except KeyboardInterrupt:
            _interrupted(db)
        except ReplayMiss as e:
            _fail(f"{e}" + (f"; this command line changed the recorded run's {', '.join(changed)}" if changed else ""))
        except Exception as e:  # noqa: BLE001 - turned into one sentence below
            _known_or_raise(e)
        _print_history(q.history(db, run_id), q.get_run(db, run_id))
    finally:
        close_db(db)


# run's options in their order (a replay takes each one not given on its command line from the
# recorded run); --replay, --db and --jobs belong to this invocation, never to the recording
_RUN_PARAMS = ("budget", "batch", "heads", "seqlen", "head_dim", "dtype", "causal", "kv_heads", "seed_knob", "exclude_lever",
               "strategy", "rng_seed", "aa_repeats", "time_budget", "plateau", "profile", "calibration", "reanchor_every",
               "l2", "screen", "evidence", "lazy_null")
# those that are SearchOptions fields: given explicitly, they win over the recording's own settings too
_SEARCH_FIELDS = {"budget": "budget", "aa_repeats": "aa_repeats", "plateau": "plateau", "exclude_lever": "exclude",
                  "calibration": "use_calibration", "reanchor_every": "reanchor_every", "screen": "screen",
                  "evidence": "evidence", "strategy": "strategy", "rng_seed": "rng_seed", "lazy_null": "lazy_null"}
_PROBLEM = {"B": "batch", "H": "heads", "N": "seqlen", "D": "head_dim", "dtype": "dtype", "causal": "causal", "Hkv": "kv_heads"}


def _replay_options(ctx: typer.Context, given: dict, replayed) -> tuple[dict, str, list[str]]:
    """A replay's options: each one given on this command line as given, every other one as the
    recorded run had it (Replay.recorded_run: the recording's header, else the command and problem
    stored with the run in the database beside it). Returns the options, a line saying where they
    came from, and the options this command line changed against the recording."""
    import shlex

    def typed(source) -> bool:  # by name: typer may carry its own copy of click's ParameterSource
        return getattr(source, "name", None) == "COMMANDLINE"

    explicit = {n for n in given if typed(ctx.get_parameter_source(n))}
    replayed.explicit = {_SEARCH_FIELDS[n] for n in explicit if n in _SEARCH_FIELDS}
    rec = replayed.recorded_run()
    if rec is None:
        return given, "", []
    if rec.get("params"):
        recorded = {k: v for k, v in rec["params"].items() if k in given}
        adopt = set(recorded)
    else:
        recorded, adopt = {}, set()
        args = shlex.split(rec.get("command") or "")
        try:
            sub = ctx.command.make_context("run", args[args.index("run") + 1:], resilient_parsing=True)
            recorded = {k: v for k, v in sub.params.items() if k in given}
            adopt = {n for n in recorded if typed(sub.get_parameter_source(n))}
        except Exception:  # noqa: BLE001 - no `run` in it, or options this version does not know: the row still counts
            pass
        for key, name in _PROBLEM.items():  # the stored problem is authoritative over the command's defaults
            if key in (rec.get("problem") or {}):
                recorded[name], adopt = rec["problem"][key], adopt | {name}
        if rec.get("budget"):
            recorded["budget"], adopt = rec["budget"], adopt | {"budget"}

    def norm(v):
        return list(v) if isinstance(v, (list, tuple)) else v

    out = {**given, **{n: norm(recorded[n]) for n in adopt - explicit}}
    opts = {p.name: p.opts[0] for p in ctx.command.params}
    changed = [opts[n] for n in _RUN_PARAMS if n in explicit and n in recorded and norm(recorded[n]) != norm(given[n])]
    line = (f"replaying {rec['source']}: {rec.get('command') or '(no command recorded)'}"
            + (f" (changed here: {', '.join(changed)})" if changed else ""))
    return out, line, changed



def _interrupted(db) -> None:
    """Ctrl-C: the loop has already recorded the run as interrupted (store.queries.interrupt_run)."""
    import os

    mine = [r for r in q.runs(db) if r.get("owner_pid") == os.getpid() and r["status"] == "interrupted"]
    if not mine:
        _fail("interrupted before the run started; nothing was recorded.", 130)
    n = mine[-1]["id"]
    _fail(f"interrupted: run {n} keeps every finished experiment; continue it with `fa5090-search run --resume {n}`.", 130)


def _resume(run_id: Optional[int], replay: Optional[Path], db_path: Path) -> None:
    """`run --resume [RUN]`: the run's own options rebuild its bench; it continues where it stopped."""
    from agent.bench import GpuBench, Recorder
    from agent.progress import Reporter
    from agent.resume import pick, resume_search
    from experiments.problem import Shape

    if replay is not None:
        _fail("--resume continues a run on its GPU; a --replay runs a recording from its start", 2)
    # the file is a database of ours holding that run, before the GPU is asked (only read: which runs are
    # resumable is decided after the read-write open below, which marks runs whose process is gone)
    ro = _open(db_path, create=False, read_only=True)
    if run_id is not None:
        try:
            q.get_run(ro, run_id)
        except Exception as e:  # noqa: BLE001 - one sentence below
            _known_or_raise(e)
    _need_gpu()
    db = _open(db_path, create=False)  # opening read-write marks runs whose process is gone as interrupted
    try:
        try:
            run = pick(db, run_id)
            settings = run["options"].get("bench") or {}
            gpu = GpuBench(Shape(**run["problem"]), _cache_dir(), budget_s=settings.get("time_budget", 2.0),
                           profile=settings.get("profile", True), jobs=settings.get("jobs"), l2=settings.get("l2", "warm"),
                           # a run recorded before the settle rule measured without it (and without spare workers)
                           settle=settings.get("settle", False), spare=settings.get("spare", False))
            gpu.device()
            n = len(run.get("resumes") or []) + 1
            bench = Recorder(gpu, _artifacts_for(db_path) / f"run-{run['id']}" / f"recording.resume-{n}.jsonl")
            with Reporter(console, run["budget"]) as say:
                rid = resume_search(bench, db, run["id"], artifacts=_artifacts_for(db_path), say=say)
        except KeyboardInterrupt:
            _interrupted(db)
        except Exception as e:  # noqa: BLE001 - turned into one sentence below
            _known_or_raise(e)
        _print_history(q.history(db, rid), q.get_run(db, rid))
    finally:
        close_db(db)


@app.command()
def rescreen(
    run_id: Optional[int] = RUN_OPT,
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Diagnose the current best with ncu first (needs counter permission)."),
    db_path: Path = DB_OPT,
):
    """Re-try shelved levers whose recorded conditions differ from the current best's (needs the GPU
    the run was recorded on). `run` does this by itself after every keep that changes them.
    Example: `rescreen --run 2 --db results.db`."""
    from agent.bench import GpuBench
    from agent.rescreen import rescreen as do_rescreen
    from agent.progress import Reporter
    from experiments.problem import Shape

    if _run_id(_open(db_path, create=False, read_only=True), run_id) is None:
        _fail("the database has no run to re-screen; start one with `fa5090-search run`")
    _need_gpu()
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
def calibrate(
    batch: int = typer.Option(2, "--batch", "-b", min=1, help="Batch size B."), heads: int = typer.Option(16, "--heads", min=1, help="Query heads H."),
    seqlen: int = typer.Option(2048, "--seqlen", "-n", min=1, help="Sequence length N."),
    head_dim: HeadDim = typer.Option(128, "--head-dim", "-d", help="Head dimension D."),
    dtype: Dtype = typer.Option("float16", help="Input and output dtype."),
    causal: bool = typer.Option(False, "--causal/--no-causal", help="Causal mask, as the runs will use."),
    kv_heads: Optional[int] = typer.Option(None, "--kv-heads", min=1, help="K/V heads, as a grouped-query run will use (its calibration is found by the same problem key)."),
    knob: list[str] = typer.Option([], "--knob", help="Calibrate on the seed with NAME=VALUE changed (default: the latest run's best, else the seed)."),
    repeats: int = typer.Option(10, min=2, help="A/A experiments, each in a fresh process."),
    keep_trials: int = typer.Option(0, min=0, help="Also run this many full A/A keep decisions and count the false keeps."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement, as the runs will use."),
    l2: L2 = typer.Option("warm", help="L2 state, as the runs will use."),
    clocks_locked: bool = typer.Option(False, "--clocks-locked", help="Say the clocks were locked outside this tool (it never sets them); still checked against the clocks read under load."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """The instrument against itself, before any result: environment and clocks (read, never set),
    the dtype's ceilings (torch GEMM, mma.sync register loop), the A/A null (t_noise = p95 |margin-1|,
    t_keep = 1 + t_noise) and optionally N A/A keep decisions. Every later run on this GPU and
    problem reads t_keep and the ceiling from the newest calibration.
    Example: `calibrate --seqlen 8192 --repeats 6 --keep-trials 10`."""
    from agent.bench import GpuBench
    from agent.calibrate import calibrate as do_calibrate
    from agent.summary import best_of_run
    from agent.progress import Reporter

    shape = _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads)
    if knob:
        try:
            Knobs.parse_assignments(knob)
        except KnobError as e:
            _fail(str(e))
    _need_gpu(shape)
    db = _open(db_path, create=True)
    try:
        if knob:
            knobs = Knobs.parse_assignments(knob)
        else:
            runs = [r for r in q.runs(db) if r["problem_key"] == shape.key()]
            knobs = best_of_run(db, runs[-1]["id"]) if runs else Knobs()
        bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, l2=l2)
        command = _command_line()
        with Reporter(console, keep_trials) as say:
            cal = do_calibrate(bench, db, shape=shape, knobs=knobs, repeats=repeats, keep_trials=keep_trials,
                               clocks_locked=clocks_locked, artifacts=_artifacts_for(db_path), command=command, say=say)
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    if as_json:
        print(json.dumps(cal, indent=1, default=str))
        return
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
    _print_table(t)


@app.command()
def baseline(
    run_id: Optional[int] = typer.Option(None, "--run", help="Run whose best kernel to compare (default: the latest)."),
    seqlen: list[int] = typer.Option([], "--seqlen", "-n", help="Shapes to compare at (repeatable; default: the run's N, or 2048 without a run)."),
    backend: list[Backend] = typer.Option(["flash", "cudnn", "efficient", "flash_attn"], "--backend", help="SDPA backends and flash_attn (repeatable)."),
    knob: list[str] = typer.Option([], "--knob", help="Compare the seed with NAME=VALUE changed (repeatable) instead of a run's best; needs no database, and nothing is stored."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """PyTorch SDPA's backends (and flash_attn where importable) against the run's best kernel, in the
    same paired protocol, per shape: margins measured here, not quoted numbers. The margins are stored
    with the run (comparator rows). With `--knob`, or with no database or no run (and no `--run`), the
    kernel compared is the seed with those knobs, at B2-H16-D128 fp16 non-causal: measured and printed,
    stored nowhere (there is no run to hold them; no database is created).
    Example: `baseline --seqlen 2048 --seqlen 8192 --backend flash --backend cudnn`."""
    from agent.bench import GpuBench
    from agent.summary import best_of_run
    from experiments.problem import Shape

    backend = [b.value for b in backend]
    try:
        own = Knobs.parse_assignments(knob) if knob else None
    except KnobError as e:
        _fail(str(e))
    if own is not None and run_id is not None:
        _fail("--knob compares a kernel of your own and --run a run's best: give one of them")
    db = rid = None
    problem = Shape(B=2, H=16, N=2048, D=128, dtype="float16").model_dump()
    stored = own is None and (run_id is not None or Path(db_path).exists())  # a run's best, stored with the run
    if stored:  # which run and problem, read-only: the shapes are held to the GPU before a read-write open
        ro = _open(db_path, create=False, read_only=True)
        try:
            if (rid := _run_id(ro, run_id)) is not None:
                problem = q.get_run(ro, rid)["problem"]
        except StoreError as e:
            _fail(str(e))
        ro.close()
    shapes = [_shape_opts(problem["B"], problem["H"], n, problem["D"], problem["dtype"], problem["causal"],
                          problem.get("Hkv")) for n in seqlen or [problem["N"]]]
    _need_gpu(*shapes)  # and each shape against its memory
    if stored:
        db = _open(db_path, create=False)
        rid = _run_id(db, run_id)
    rows = []
    try:
        if rid is not None:
            run = q.get_run(db, rid)
            best = best_of_run(db, rid)
        else:
            best = own or Knobs()
        for shape in shapes:
            bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, profile=False)
            if rid is not None:
                q.check_same_setup(db, bench.device().name, run["problem_key"], one_problem=False)  # a `tune` database holds several
            for b in backend:
                job = bench.paired({"knobs": best}, {"sdpa": b})
                if rid is not None:
                    _record_comparator(db, rid, best, b, shape, job)
                rows.append((shape.key(), b, job.value("paired")))
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    _print_baseline(rows, rid, best, own, db, db_path, as_json)


def _record_comparator(db, rid: int, best: Knobs, b: str, shape, job) -> None:
    """One backend's pair against the run's best, stored with the run as a comparator row (a backend that did not
    run there: a row with no margin and why)."""
    p = job.value("paired")
    err_step = next((s for s in job.steps if s.error is not None), None)
    skipped = next((s.skipped for s in job.steps if s.skipped), None)  # "unavailable: why" (experiments.sdpa)
    q.record_experiment(db, rid, kind="comparator", lever=f"{b}@{shape.key()}", base_key=best.key(),
                        base_knobs=best, margin=p and p["margin"], margin_ab=p and p["margin_ab"],
                        margin_ba=p and p["margin_ba"], tflops_base=p and p["tflops_base"],
                        tflops_cand=p and p["tflops_cand"],
                        detail=f"{b} against the best at {shape.key()}; margin > 1 means {b} is faster"
                        if p else f"{b} {skipped}" if skipped else
                        f"{b} unavailable: {(err_step.error if err_step else job.stderr[-200:])[:200]}",
                        measurements=[{"kind": "comparator", "ok": p is not None, "value": p and p["margin"],
                                       "payload": p or {"steps": [s.model_dump() for s in job.steps],
                                                           "stderr": job.stderr}}])


def _print_baseline(rows: list, rid, best: Knobs, own, db, db_path: Path, as_json: bool) -> None:
    """The pairs as JSON or a table, and where nothing was stored, why."""
    if as_json:
        print(json.dumps([{"shape": k, "comparator": b, "paired": p, "knobs": best.key(), "run": rid}
                          for k, b, p in rows], indent=1, default=str))
        return
    whose = f"run {rid}'s best" if rid is not None else "the kernel"
    t = Table(title=f"baseline: {whose} {best.label()} against the comparators, paired")
    for c in ("shape", "comparator", "ours TFLOP/s", "theirs TFLOP/s", "margin (theirs/ours)", "AB/BA"):
        t.add_column(c)
    for shape_key, b, p in rows:
        if p:
            t.add_row(shape_key, b, f"{p['tflops_base']:.1f}", f"{p['tflops_cand']:.1f}", f"{p['margin']:.3f}",
                      f"{p['margin_ab']:.3f}/{p['margin_ba']:.3f}")
        else:
            t.add_row(shape_key, b, "", "", "unavailable", "")
    _print_table(t)
    if rid is None:
        why = "--knob" if own is not None else f"no run in {db_path}" if db is not None else f"no database at {db_path}"
        console.print(f"not stored: {why}; the margins above are this measurement's only record")



@app.command()
def sweep(
    ctx: typer.Context,
    n: int = typer.Option(20, "--n", min=1, help="Configurations to draw."),
    rng_seed: int = typer.Option(0, "--rng-seed", help="Seed of the draws."),
    batch: int = typer.Option(2, "--batch", "-b", min=1, help="Batch size B."),
    heads: int = typer.Option(16, "--heads", min=1, help="Query heads H."),
    seqlen: int = typer.Option(2048, "--seqlen", "-n", min=1, help="Sequence length N."),
    head_dim: HeadDim = typer.Option(128, "--head-dim", "-d", help="Head dimension D."),
    dtype: Dtype = typer.Option("float16", help="Input and output dtype."),
    causal: bool = typer.Option(False, "--causal/--no-causal", help="Causal mask."),
    kv_heads: Optional[int] = typer.Option(None, "--kv-heads", min=1, help="K/V heads (grouped-query attention)."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement."),
    as_json: bool = JSON_OPT,
    gpus: Optional[int] = GPUS_OPT,
    scheduler: Optional[str] = SCHEDULER_OPT,
):
    """The best-of-N reference: N random configurations of the search's space, each paired against SDPA flash.

    The N configurations are drawn uniformly from the search's own space (valid and launchable on this
    GPU), built in one ninja call, checked by the C1 tier, each timed paired against SDPA flash in a
    fresh process; fastest first. Nothing is kept or
    stored: compare the best row with `run --strategy agent --budget N`. Example: `sweep --n 20 --seqlen 8192`."""
    from agent.bench import GpuBench
    from agent.sweep import draw, sweep as do_sweep
    from agent.progress import Reporter

    shape = _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads)
    try:
        bench = GpuBench(shape, _cache_dir(), budget_s=time_budget, profile=False)
        if gpus or scheduler:
            from agent.distributed import gpu_worker_bench

            bench = _on_cluster(ctx, gpus, scheduler, partial(gpu_worker_bench, shape, time_budget, "warm", False), bench, 0)
        configs = draw(n, rng_seed, shape, bench.device().limits, Knobs())
        with Reporter(console, len(configs)) as say:
            rows = do_sweep(bench, shape, configs, say)
    except Exception as e:  # noqa: BLE001 - one sentence for what the rooms refuse
        _known_or_raise(e)
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title=f"sweep of {len(rows)} draws (rng seed {rng_seed}) at {shape.key()}, paired against SDPA flash")
    for c in ("rank", "configuration", "status", "vs SDPA flash", "TFLOP/s", "SDPA TFLOP/s", "regs", "CTAs/SM"):
        t.add_column(c, overflow="fold")
    for i, r in enumerate(rows, 1):
        f = r.get("static") or {}
        t.add_row(str(i), r["label"], r["status"], f"{r['vs_sdpa']:.3f}" if r.get("vs_sdpa") else "",
                  f"{r['tflops']:.1f}" if r.get("tflops") else "", f"{r['sdpa_tflops']:.1f}" if r.get("sdpa_tflops") else "",
                  str(f.get("registers", "")), str(f.get("ctas_per_sm", "")))
    _print_table(t)
