"""`tune`: a model's attention shapes in one command, one search per dispatch bucket (agent.campaign)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from store import queries as q

from .common import (
    DB_OPT,
    GPUS_OPT,
    JSON_OPT,
    SCHEDULER_OPT,
    L2,
    Dtype,
    Strategy,
    _artifacts_for,
    _cache_dir,
    _client,
    _command_line,
    _fail,
    _fits,
    _known_or_raise,
    _need_gpu,
    _open,
    _print_table,
    app,
    console,
    err,
)


@app.command()
def tune(
    ctx: typer.Context,
    config: Optional[Path] = typer.Option(None, "--config", help="A Hugging Face config.json: num_attention_heads, num_key_value_heads (absent: as many as the heads), head_dim (absent: hidden_size / num_attention_heads), torch_dtype or dtype, causal for a decoder (architectures naming a CausalLM, or is_decoder)."),
    shapes: Optional[Path] = typer.Option(None, "--shapes", help="Instead of --config: a text file of problem keys, one a line, as `history` prints them: B1-H32-Hkv8-N4096-D128-bfloat16-causal (-HkvK only for grouped-query attention; `#` starts a comment)."),
    seqlen: list[int] = typer.Option([], "--seqlen", "-n", help="With --config: a sequence length to serve (repeatable). Lengths are grouped into the dispatch's N buckets; one search per bucket."),
    batch: list[int] = typer.Option([], "--batch", "-b", help="With --config: a batch size to serve (repeatable; default 1). A bucket is searched at the largest."),
    dtype: Optional[Dtype] = typer.Option(None, help="With --config: the dtype to serve (default: the config's torch_dtype or dtype)."),
    causal: Optional[bool] = typer.Option(None, "--causal/--no-causal", help="With --config: the mask (default: causal for a decoder; an encoder non-causal)."),
    seed_knob: list[str] = typer.Option([], "--seed-knob", help="Start every search from the naive seed with NAME=VALUE changed (repeatable), as `run --seed-knob`: e.g. a kernel an earlier search found on this GPU, so each bucket's search spends its budget near it."),
    budget: int = typer.Option(20, min=1, help="Experiments per search, as `run --budget`."),
    strategy: Strategy = typer.Option("agent", help="As `run --strategy`."),
    time_budget: float = typer.Option(2.0, min=0.2, help="Seconds per paired measurement."),
    plateau: int = typer.Option(3, min=1, help="As `run --plateau`."),
    aa_repeats: int = typer.Option(5, min=2, help="A/A null repeats, as `run --aa-repeats`."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Diagnose with ncu (needs counter permission)."),
    jobs: Optional[int] = typer.Option(None, min=1, help="Parallel nvcc builds (default: ninja's choice)."),
    l2: L2 = typer.Option("warm", help="L2 state for timing, as `run --l2`."),
    gpus: Optional[int] = GPUS_OPT,
    scheduler: Optional[str] = SCHEDULER_OPT,
    export_torch: Optional[Path] = typer.Option(None, "--export-torch", help="At the end, write the campaign's PyTorch package into this folder (as `export --torch DIR --db DB`)."),
    build: bool = typer.Option(True, "--build/--no-build", help="With --export-torch: build the library when nvcc is there."),
    plan_only: bool = typer.Option(False, "--plan", help="Print the searches the campaign would run, and which --db already holds, and stop (no GPU needed)."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """A model's attention shapes as one campaign: one `run` search per problem, all in one --db.

    The problems come from a Hugging Face config.json with the lengths and batch sizes to serve
    (--seqlen, --batch), or from a --shapes file. They are grouped the way `export --dispatch`
    serves them, by N bucket (power-of-two edges: N<=512, 513-1024, ..., N>32768) per (dtype, D,
    causal): one kernel serves a whole bucket, so one search runs per bucket, at its longest
    requested length and largest batch (a call's work grows as B*N^2: the costliest call the bucket
    serves, and one that is served). Each search is `run`'s, with its keep protocol, its own run in
    the database. Run the same command again to continue: a problem whose run finished is skipped,
    an interrupted one is resumed, the rest are searched. --gpus N spreads each search's
    measurements over N GPUs (as `run --gpus`); the problems run one after another. At the end it
    prints the export command (or, with --export-torch DIR, writes the package).

    Example: `tune --config Llama-3.1-8B/config.json --seqlen 512 --seqlen 2048 --seqlen 4096
    --seqlen 8192 --batch 1 --batch 4 --db llama.db --export-torch llama_kernels`, then
    `pip install llama_kernels`; `tune --shapes shapes.txt --plan` prints the searches only."""
    source, planned = _planned(config, shapes, seqlen, batch, dtype, causal)
    seed = _seed(seed_knob)
    for p in planned:  # a length no GPU holds is refused before the plan is printed
        _fits(p.shape)
    if (gpus or scheduler) and strategy not in ("random", "agent"):
        _fail(f"--gpus and --scheduler spread the agent's and --strategy random's measurements; --strategy {strategy} "
              "decides one experiment at a time (see `run --help`): run it without them", 2)
    if plan_only:
        return _print_plan(planned, source, db_path, as_json)
    _print_plan(planned, source, None, as_json, to_err=as_json)

    _need_gpu(*(p.shape for p in planned))  # before the database is opened for writing (GPU first: agent/commands/common.py)
    from agent.campaign import tune as run_campaign
    from agent.progress import CampaignReporter
    from agent.state import SearchOptions

    client = _client(ctx, gpus, scheduler)
    artifacts = _artifacts_for(db_path)
    command = _command_line()
    settings = {"time_budget": time_budget, "profile": profile, "jobs": jobs, "l2": l2, "settle": "any", "spare": True}
    options = SearchOptions(budget=budget, aa_repeats=aa_repeats, plateau=plateau, strategy=strategy)

    bench_for = _bench_maker(client, settings, options, artifacts, command, budget, aa_repeats, seed_knob)
    db = _open(db_path, create=True)
    reporter = CampaignReporter(console if not as_json else err, len(planned), budget)
    try:
        with reporter as say:
            done = run_campaign(planned, db, bench_for=bench_for, options=options, bench_settings=settings,
                                artifacts=artifacts, command=command, seed=seed, say=say, starting=reporter.starting)
            reporter.finished()
    except KeyboardInterrupt:
        mine = [r for r in q.runs(db) if r["status"] == "interrupted"]
        which = f"run {mine[-1]['id']} ({mine[-1]['problem_key']}) keeps every finished experiment; " if mine else ""
        _fail(f"interrupted: {which}run this same `tune` command again to resume it and search the problems after it", 130)
    except Exception as e:  # noqa: BLE001 - one sentence for what the rooms refuse
        _known_or_raise(e)
    if not as_json:
        _print_done(done, as_json)
    _export_or_say_how(db_path, export_torch, build, as_json, done)


def _planned(config, shapes, seqlen: list[int], batch: list[int], dtype, causal):
    """The campaign's source line and its searches (agent.campaign.plan), each problem held to the GPU's memory;
    a wrong combination of options refused in one sentence."""
    from agent.campaign import ConfigError, from_hf_config, plan, read_shapes

    if (config is None) == (shapes is None):
        _fail("give the model's --config config.json, or a --shapes file (one of them)", 2)
    if shapes is not None and (seqlen or batch or dtype or causal is not None):
        _fail("a --shapes file names every problem itself: --seqlen, --batch, --dtype and --causal go with --config", 2)
    if config is not None and not seqlen:
        _fail("say the sequence lengths to serve: --seqlen N (repeatable), e.g. --seqlen 2048 --seqlen 8192", 2)
    bad = [x for x in (*seqlen, *batch) if x < 1]
    if bad:
        _fail(f"--seqlen and --batch take positive integers, not {bad[0]}", 2)
    try:
        if config is not None:
            attn = from_hf_config(config, dtype=dtype, causal=causal)
            source, problems = attn.source, attn.problems(list(dict.fromkeys(seqlen)), list(dict.fromkeys(batch or [1])))
        else:
            problems = read_shapes(shapes)
            source = f"{shapes}: {len(problems)} problem(s)"
    except ConfigError as e:
        _fail(str(e))
    return source, plan(problems)


def _seed(seed_knob: list[str]):
    """The searches' seed: the naive kernel with --seed-knob's changes, refused in one sentence when a name, value or
    combination is not the kernel's (as `run --seed-knob`)."""
    from kernel_src.knobs import KnobError, Knobs

    try:
        return Knobs.parse_assignments(seed_knob)
    except KnobError as e:
        _fail(str(e))


def _bench_maker(client, settings: dict, options, artifacts: Path, command: str, budget: int, aa_repeats: int,
                 seed_knob: list[str]):
    """The campaign's bench for one search: this GPU (or the cluster), recorded into the run's artifacts."""
    from agent.bench import Recorder

    def bench_for(shape, bench_settings: dict, run_id: int, resume_n: int):
        import agent.bench

        s = {**settings, **bench_settings}
        gpu = agent.bench.GpuBench(shape, _cache_dir(), budget_s=s["time_budget"], profile=s["profile"], jobs=s["jobs"],
                                   l2=s["l2"], settle=s.get("settle", False), spare=s.get("spare", False))
        if client is not None:  # each worker judges its pairs with its own device's A/A null, as `run --gpus`
            from agent.distributed import DaskBench, gpu_worker_bench

            gpu = DaskBench(client, partial(gpu_worker_bench, shape, s["time_budget"], s["l2"], s["profile"]), gpu,
                            null_repeats=aa_repeats)
        name = f"recording.resume-{resume_n}.jsonl" if resume_n else "recording.jsonl"
        bench = Recorder(gpu, artifacts / f"run-{run_id}" / name)
        if not resume_n:  # what `run --replay` reads to replay this search as `run` would have run it
            bench.header({"command": command, "problem": shape.model_dump(), "budget": budget,
                          "params": _run_params(shape, options, s, seed_knob)})
        return bench
    return bench_for


def _export_or_say_how(db_path: Path, export_torch: Path | None, build: bool, as_json: bool, done) -> None:
    """With --export-torch the campaign's package written; else the command that writes it. The summary printed
    (with --json: stdout holds the campaign's JSON alone)."""
    if not as_json:
        _print_done(done, as_json)
    export = f"fa5090-search export --torch {export_torch or 'DIR'} --db {db_path}"
    if export_torch is not None:
        import contextlib
        import sys

        from .tools import _export_torch

        err.print(f"exporting: {export}", soft_wrap=True, highlight=False, markup=False)
        # with --json the package's listing goes to stderr: stdout holds the campaign's JSON alone
        with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
            _export_torch([db_path], export_torch, None, build, as_json)
    if as_json:
        _print_done(done, as_json)
    if export_torch is None:
        (err if as_json else console).print(f"export the campaign as a PyTorch package: {export}   then: pip install DIR",
                                            soft_wrap=True, highlight=False, markup=False)


def _run_params(shape, options, s: dict, seed_knob: list[str]) -> dict:
    """`run`'s parameters for this search, by name (agent/commands/search.py _RUN_PARAMS)."""
    from .search import _RUN_PARAMS

    p = {"budget": options.budget, "batch": shape.B, "heads": shape.H, "seqlen": shape.N, "head_dim": shape.D,
         "dtype": shape.dtype, "causal": shape.causal, "kv_heads": shape.Hkv, "seed_knob": list(seed_knob), "exclude_lever": [],
         "strategy": options.strategy, "rng_seed": options.rng_seed, "aa_repeats": options.aa_repeats,
         "time_budget": s["time_budget"], "plateau": options.plateau, "profile": s["profile"],
         "calibration": options.use_calibration, "reanchor_every": options.reanchor_every, "l2": s["l2"],
         "screen": options.screen, "evidence": options.evidence, "lazy_null": options.lazy_null}
    assert set(p) == set(_RUN_PARAMS), set(p) ^ set(_RUN_PARAMS)
    return p


def _print_plan(planned, source: str, db_path: Path | None, as_json: bool, to_err: bool = False) -> None:
    """The searches, and with a database what it already holds of each."""
    stands = {}
    if db_path is not None and Path(db_path).exists():
        from agent.campaign import where_stands

        db = _open(db_path, create=False, read_only=True)
        stands = {p.shape.key(): where_stands(db, p.shape) for p in planned}
    rows = [{"problem": p.shape.key(), "bucket": p.bucket, "seqlens": list(p.seqlens), "batches": list(p.batches),
             "state": stands.get(p.shape.key(), ("new", None))[0],
             "run": (stands.get(p.shape.key(), (None, None))[1] or {}).get("id")} for p in planned]
    if as_json and not to_err:
        print(json.dumps({"source": source, "searches": rows}, indent=1))
        return
    t = Table(title=f"tune: {len(planned)} search(es), one per N bucket; {source}")
    for c in ("#", "N bucket", "serves N", "serves B", "searched at", *(("in the database",) if db_path else ())):
        t.add_column(c)
    for i, r in enumerate(rows, 1):
        st = {"new": "not yet", "done": f"run {r['run']} finished", "resume": f"run {r['run']} to resume",
              "running": f"run {r['run']} running"}[r["state"]]
        t.add_row(str(i), r["bucket"], ", ".join(map(str, r["seqlens"])), ", ".join(map(str, r["batches"])), r["problem"],
                  *((st,) if db_path else ()))
    if to_err:
        err.print(t)
    else:
        _print_table(t)


def _print_done(done, as_json: bool) -> None:
    if as_json:
        print(json.dumps([{"problem": d.planned.shape.key(), "bucket": d.planned.bucket, "seqlens": list(d.planned.seqlens),
                           "batches": list(d.planned.batches), "run": d.run_id, "action": d.action, "status": d.status,
                           "best": d.best, "tflops": d.tflops} for d in done], indent=1))
        return
    t = Table(title="tune: the campaign's searches")
    for c in ("N bucket", "problem", "run", "this time", "status", "best kernel", "TFLOP/s"):
        t.add_column(c)
    for d in done:
        t.add_row(d.planned.bucket, d.planned.shape.key(), str(d.run_id), d.action, d.status, d.best,
                  "" if d.tflops is None else f"{d.tflops:.1f}")
    _print_table(t)
