"""What every command shares: the typer app, the consoles, the shared options, and the few helpers
that turn the rooms' failures into one sentence and an exit code."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kernel_src.knobs import KnobError
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
# In a terminal rich fits the terminal; into a pipe or a file nothing is folded or wrapped (a table
# keeps its natural width, a printed command stays on one line), so `history | cat` reads like a table.
console = Console() if sys.stdout.isatty() else Console(width=100_000, soft_wrap=True)
err = Console(stderr=True) if sys.stderr.isatty() else Console(stderr=True, width=100_000, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("fa5090-search")
        except PackageNotFoundError:  # run from a checkout that was never installed
            v = "unknown (not installed)"
        print(f"fa5090-search {v}")
        raise typer.Exit()


@app.callback()
def _main(_v: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                  help="Print the version and exit.")) -> None:
    pass

DB_OPT = typer.Option(Path("fa5090.db"), "--db", envvar="FA5090_DB", help="SQLite file holding runs, experiments and the shelf.")
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of a table.")
RUN_OPT = typer.Option(None, "--run", help="Run id (default: the latest run).")


def _fail(msg: str, code: int = 1) -> None:
    err.print(f"[bold red]error:[/] {msg}")
    raise typer.Exit(code)


def _open(db_path: Path, create: bool, read_only: bool = False):
    """`read_only`: commands that only read open the file read-only and never migrate it."""
    try:
        return open_db(db_path, create=create, read_only=read_only)
    except StoreError as e:
        _fail(str(e))


def _artifacts_for(db_path: Path) -> Path:
    return db_path.parent / (db_path.stem + "_artifacts")


def _cache_dir() -> Path:
    return Path(os.environ.get("FA5090_CACHE", Path.home() / ".cache" / "fa5090-search"))


def _command_line() -> str:
    """The command as typed, recorded with each run and calibration."""
    return "fa5090-search " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _check_l2(l2: str) -> None:
    if l2 not in ("warm", "cold"):
        _fail(f"--l2 must be warm or cold, not '{l2}'", 2)


def _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads=None):
    from pydantic import ValidationError

    from experiments.problem import Shape

    try:
        return Shape(B=batch, H=heads, N=seqlen, D=head_dim, dtype=dtype, causal=causal, Hkv=kv_heads)
    except ValidationError as e:
        msgs = [(".".join(map(str, x["loc"])) + ": " if x["loc"] else "") + x["msg"].removeprefix("Value error, ")
                for x in e.errors()]
        _fail("bad problem shape: " + "; ".join(msgs))


def _known_or_raise(e: Exception) -> None:
    from agent.bench import ReplayMiss
    from agent.distributed import DistributedError
    from agent.levers import UnknownLever
    from agent.loop import SearchError
    from agent.strategies.tpe import TpeMissing
    from experiments.build import BuildError
    from experiments.device import NoGpu

    if isinstance(e, (StoreError, KnobError, UnknownLever, SearchError, BuildError, NoGpu, ReplayMiss, FileNotFoundError,
                      TpeMissing, DistributedError)):
        _fail(str(e).strip().splitlines()[0] if not isinstance(e, SearchError) else str(e))
    raise e


GPUS_OPT = typer.Option(None, "--gpus", min=1, help="Spread the independent measurements over N GPUs of this host: a local Dask cluster, one worker per GPU pinned by CUDA_VISIBLE_DEVICES (pip install 'fa5090-search[dist]').")
SCHEDULER_OPT = typer.Option(None, "--scheduler", help="Spread them over an existing Dask cluster, e.g. tcp://HOST:8786 (workers started with --nthreads 1 --resources GPU=1; README: Several GPUs).")


def _on_cluster(ctx: typer.Context, gpus: int | None, scheduler: str | None, make, local, null_repeats: int):
    """A bench over a Dask cluster (agent.distributed) when --gpus or --scheduler is given, else
    None; the cluster closes with the command. One GPU needs no Dask and imports none."""
    if not gpus and not scheduler:
        return None
    if gpus and scheduler:
        _fail("--gpus starts a local cluster and --scheduler joins one: give one of them", 2)
    try:
        from agent.distributed import DaskBench, DistributedError, open_cluster
    except ImportError as e:
        _fail(f"--gpus and --scheduler need Dask ({e.name} is missing): pip install 'fa5090-search[dist]'")
    from contextlib import ExitStack

    stack = ExitStack()
    ctx.call_on_close(stack.close)
    try:
        client = stack.enter_context(open_cluster(gpus, scheduler))
        return DaskBench(client, make, local, null_repeats=null_repeats)
    except DistributedError as e:
        _fail(str(e))


def _fmt(x, spec=".4f"):
    return "" if x is None else format(x, spec)


def _print_history(rows: list[dict], run: dict | None, runs: dict[int, dict] | None = None) -> None:
    """`runs`: several runs in one table (history --all): a run column, screens labelled."""
    title = "experiments"
    if run:
        strategy = f", strategy {run['strategy']}" if run.get("strategy") else ""
        title = (f"run {run['id']} on {run['gpu_name']} ({run['arch']}), {run['problem_key']}{strategy}, "
                 f"t_keep {_fmt(run['t_keep'], '.5f')}, {run['status']}: {run['stop_reason'] or ''}")
    t = Table(title=title)
    cols = ("id", "run", "#", "kind", "lever", "outcome", "margin", "AB/BA", "predicted", "TFLOP/s", "detail")
    for c in cols if runs else cols[:1] + cols[2:]:
        t.add_column(c, overflow="fold")
    for e in rows:
        kind = e["kind"]
        if runs:
            r = runs.get(e["run_id"]) or {}
            if "--screen" in (r.get("command") or "") and kind == "lever":
                kind = "screen"  # measured against a fixed seed: a KEPT here was never stacked
        colour = {"KEPT": "green", "SLOWER": "red", "WRONG": "red", "NULL": "yellow"}.get(e["outcome"] or "", "white")
        tf = f"{_fmt(e['tflops_base'], '.1f')} -> {_fmt(e['tflops_cand'], '.1f')}" if e["tflops_cand"] else ""
        pred = f"{e['predicted_lo']:.2f}-{e['predicted_hi']:.2f}" if e["predicted_lo"] else ""
        ab = f"{_fmt(e['margin_ab'])}/{_fmt(e['margin_ba'])}" if e["margin_ab"] else ""
        cells = [str(e["id"]), str(e["seq"] or ""), kind, e["lever"] or "", f"[{colour}]{e['outcome'] or ''}[/]",
                 _fmt(e["margin"]), ab, pred, tf, escape(e["detail"] or "")]
        t.add_row(*(cells[:1] + [str(e["run_id"])] + cells[1:] if runs else cells))
    console.print(t)


def _run_id(db, run_id: Optional[int]) -> int | None:
    if run_id is not None:
        q.get_run(db, run_id)
        return run_id
    latest = q.latest_run(db)
    return latest["id"] if latest else None
