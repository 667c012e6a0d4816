"""What every command shares: the typer app, the consoles, the shared options, and the few helpers
that turn the rooms' failures into one sentence and an exit code."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from enum import Enum
from typing import Literal, Optional

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape
from rich.table import Table

from agent.strategies import NAMES as STRATEGIES
from kernel_src.arch import TABLE as ARCHS
from kernel_src.knobs import DTYPES, HEAD_DIMS, KnobError
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


class _Console(Console):
    """In a terminal rich fits the terminal; into a pipe or a file nothing is folded or wrapped (a table
    keeps its natural width, a printed command stays on one line), so `history | cat` reads like a table.
    Decided at each print, not at import: the stream may change (CliRunner, a redirected test run)."""

    @property
    def size(self) -> ConsoleDimensions:
        got = Console.size.fget(self)
        return got if self.is_terminal else ConsoleDimensions(100_000, got.height)

    @size.setter
    def size(self, new_size) -> None:
        Console.size.fset(self, new_size)

    @property
    def soft_wrap(self) -> bool:
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value


console = _Console()
err = _Console(stderr=True)


# the columns of prose, which may fold in a narrow terminal; every other column holds a number, a
# name or a label and is never broken
_PROSE = {"detail", "hypothesis", "sets", "requires", "values", "the search reaches", "moved by", "how", "value",
          "configuration", "targets"}


def _print_table(t: Table, prose: tuple[str, ...] = ()) -> None:
    """A table folds its prose, never a number or a name: in a terminal too narrow even for that
    (`static`'s 21 columns at 80), it is printed at its minimum width and the terminal wraps the long
    lines, instead of rich squeezing columns to one character. In a pipe: natural width."""
    for c in t.columns:
        if str(c.header) in _PROSE or str(c.header) in prose:
            c.overflow = "fold"
        else:
            c.no_wrap = True
    if console.is_terminal:
        # rich measures a cell's minimum as its longest word; a column that must not break needs its
        # widest cell (private helpers of rich's Table, the only way to ask it)
        opts = console.options.update_width(10**6)
        m = [t._measure_column(console, opts, c) for c in t.columns]
        need = sum(x.minimum if c.overflow == "fold" and not c.no_wrap else x.maximum for c, x in zip(t.columns, m))
        need += t._extra_width
        if need > console.width:  # print(width=) is capped at the console's width: widen it for this table
            kept, console.width = console._width, need
            try:
                console.print(t)
            finally:
                console.width = kept
            return
    console.print(t)


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

# Choices are types, so --help lists them ([float16|bfloat16]) and a bad value is the same usage
# error (exit 2, one sentence naming the option) in every command.
Dtype = Literal[DTYPES]
HeadDim = Literal[HEAD_DIMS]
L2 = Literal["warm", "cold"]
Arch = Literal[tuple(ARCHS)]
Strategy = Literal[STRATEGIES]
OutcomeName = Literal[q.OUTCOMES]
Kind = Literal[q.EXPERIMENT_KINDS]
ShelfStatus = Literal[q.SHELF_STATUSES]
# a list of choices needs an Enum (typer takes no list of Literal)
Backend = Enum("Backend", {b: b for b in ("flash", "cudnn", "efficient", "math", "flash_attn")}, type=str)

DB_OPT = typer.Option(Path("fa5090.db"), "--db", envvar="FA5090_DB",
                      help="SQLite file holding runs, experiments and the shelf (a gzipped one, NAME.db.gz, the "
                           "commands that only read open as it is).")
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of a table.")
RUN_OPT = typer.Option(None, "--run", help="Run id (default: the latest run).")


def _fail(msg: str, code: int = 1) -> None:
    # the message is text, not markup: rich read `pip install 'fa5090-search[dist]'` as a style tag
    # and printed `pip install 'fa5090-search'`
    err.print(f"[bold red]error:[/] {escape(msg)}", soft_wrap=True)  # a command or path in it stays on one line
    raise typer.Exit(code)


def said_on_damage(command):
    """A command whose database turns out damaged past its header (SQLite raises on the first page it
    cannot read, anywhere in a listing) says so in one sentence naming the file, not a traceback."""
    import functools
    import sqlite3

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except sqlite3.DatabaseError as e:
            _fail(_damage_sentence(e, kwargs.values()))

    return run


def _damage_sentence(e: Exception, given) -> str:
    """Which of the databases a command was given is damaged (SQLite's quick check on each, read-only)."""
    from store.db import damage_of

    paths = [Path(os.environ.get("FA5090_DB", "fa5090.db"))]
    for v in given:
        for x in v if isinstance(v, (list, tuple)) else [v]:
            if isinstance(x, Path):
                paths.append(x)
            elif isinstance(x, str) and ".db" in x:  # compare's PATH.db[:RUN]
                head, _, tail = x.rpartition(":")
                paths.append(Path(head if head and tail.isdigit() else x))
    bad = [(p, d) for p in dict.fromkeys(paths) if (d := damage_of(p))]
    if not bad:
        return f"SQLite could not read or write the database ({e})"
    return ("; ".join(f"{p} is damaged ({d})" for p, d in bad) + ": its header and schema read but its data pages do "
            "not, so nothing in it can be trusted as shown; nothing was changed. Restore it from a copy, or use another --db.")


def plain_help(app: typer.Typer) -> None:
    """Help is rich markup in typer's default mode: `pip install 'fa5090-search[tpe]'` printed as `pip
    install 'fa5090-search'` (the extra read as a style tag). Each command's and option's help is
    escaped once, here, so every text prints as written."""
    import inspect

    from typer.models import ParameterInfo

    seen: set[int] = set()  # an option object shared by several commands is escaped once
    for c in app.registered_commands:
        c.help = escape(c.help if c.help is not None else inspect.getdoc(c.callback) or "")
        for p in inspect.signature(c.callback).parameters.values():
            info = p.default
            if isinstance(info, ParameterInfo) and info.help and id(info) not in seen:
                seen.add(id(info))
                info.help = escape(info.help)


def _open(db_path: Path, create: bool, read_only: bool = False):
    """`read_only`: commands that only read open the file read-only and never migrate it."""
    try:
        return open_db(db_path, create=create, read_only=read_only)
    except StoreError as e:
        _fail(str(e))


def _need_gpu(*shapes) -> None:
    """The GPU answers before a command that needs one opens a database for writing: opening read-write
    migrates the file and marks runs whose process is gone as interrupted, which a command that then
    refuses must not have done (a committed database stays as it was). `shapes`: the problems the command
    will build for, held to the probed GPU's memory before anything is built."""
    import agent.bench

    try:
        dev = agent.bench.GpuBench.require_device()
    except Exception as e:  # noqa: BLE001 - one sentence (NoGpu) or raised
        _known_or_raise(e)
    for shape in shapes:
        _fits(shape, dev)


def _artifacts_for(db_path: Path) -> Path:
    return db_path.parent / (db_path.stem + "_artifacts")


def _artifact_now(db_path: Path, stored: str | None) -> str:
    """Where an artifact of a run is on this machine. The database stores it relative to
    <db>_artifacts/ (runs before that: the recording machine's absolute path, e.g.
    /root/out/run/fa5090_artifacts/run-1/ncu_exp5_....csv); from run-N/ on it is looked up under
    <db stem>_artifacts/ or fa5090_artifacts/ beside the database."""
    if not stored:
        return "-"
    parts = Path(stored).parts
    at = next((i for i in range(len(parts) - 1, -1, -1) if parts[i].startswith("run-") and parts[i][4:].isdigit()), None)
    rel = Path(*parts[at:]) if at is not None else Path(parts[-1])
    for folder in dict.fromkeys((_artifacts_for(db_path), db_path.parent / "fa5090_artifacts")):
        if (folder / rel).is_file():
            return str(folder / rel)
    packed = sorted(p.name for pat in ("*.tgz", "*.tar.xz") for p in db_path.parent.glob(pat))  # the device's, or xz
    return f"{_artifacts_for(db_path) / rel} (not found" + (f"; it may be packed in {', '.join(packed)})" if packed else ")")


def _cache_dir() -> Path:
    return Path(os.environ.get("FA5090_CACHE", Path.home() / ".cache" / "fa5090-search"))


def _command_line() -> str:
    """The command as typed, recorded with each run and calibration."""
    return "fa5090-search " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _shape_opts(batch, heads, seqlen, head_dim, dtype, causal, kv_heads=None):
    from pydantic import ValidationError

    from experiments.problem import Shape

    try:
        shape = Shape(B=batch, H=heads, N=seqlen, D=head_dim, dtype=dtype, causal=causal, Hkv=kv_heads)
    except ValidationError as e:
        msgs = [(".".join(map(str, x["loc"])) + ": " if x["loc"] else "") + x["msg"].removeprefix("Value error, ")
                for x in e.errors()]
        _fail("bad problem shape: " + "; ".join(msgs))
    _fits(shape)
    return shape


def _fits(shape, device=None) -> None:
    """The problem's tensors fit the GPU's memory (`device`: a probed DeviceInfo), else before anything
    is built or created, against a plain bound where no GPU is known yet."""
    from experiments.problem import memory_refusal

    why = memory_refusal(shape, device.limits.global_mem if device else None, device.name if device else None)
    if why:
        _fail(why, 2)


def _known_or_raise(e: Exception) -> None:
    from agent.bench import ReplayMiss
    from agent.distributed import DistributedError
    from agent.levers import UnknownLever
    from agent.state import SearchError
    from agent.strategies.tpe import TpeMissing
    from experiments.build import BuildError
    from experiments.device import NoGpu

    if isinstance(e, (StoreError, KnobError, UnknownLever, SearchError, BuildError, NoGpu, ReplayMiss, FileNotFoundError,
                      TpeMissing, DistributedError)):
        _fail(str(e).strip().splitlines()[0] if not isinstance(e, SearchError) else str(e))
    raise e


GPUS_OPT = typer.Option(None, "--gpus", min=1, help="Spread the independent measurements (a --screen's levers, sweep's draws, --strategy random's next draws, the agent's top proposals) over N GPUs of this host: a local Dask cluster, one worker per GPU pinned by CUDA_VISIBLE_DEVICES (pip install 'fa5090-search[dist]').")
SCHEDULER_OPT = typer.Option(None, "--scheduler", help="Spread them over an existing Dask cluster, e.g. tcp://HOST:8786 (workers started with --nthreads 1 --resources GPU=1; README: Several GPUs).")


def _client(ctx: typer.Context, gpus: int | None, scheduler: str | None):
    """A Dask client (agent.distributed) when --gpus or --scheduler is given, else None; the cluster closes
    with the command. One GPU needs no Dask and imports none."""
    if not gpus and not scheduler:
        return None
    if gpus and scheduler:
        _fail("--gpus starts a local cluster and --scheduler joins one: give one of them", 2)
    try:
        from agent.distributed import DistributedError, open_cluster
    except ImportError as e:
        _fail(f"--gpus and --scheduler need Dask ({e.name} is missing): pip install 'fa5090-search[dist]'")
    from contextlib import ExitStack

    stack = ExitStack()
    ctx.call_on_close(stack.close)
    try:
        return stack.enter_context(open_cluster(gpus, scheduler))
    except DistributedError as e:
        _fail(str(e))


def _on_cluster(ctx: typer.Context, gpus: int | None, scheduler: str | None, make, local, null_repeats: int):
    """A bench over the Dask cluster of --gpus or --scheduler (see _client), else None."""
    client = _client(ctx, gpus, scheduler)
    if client is None:
        return None
    from agent.distributed import DaskBench, DistributedError

    try:
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
    _print_table(t)


def _some_run(db, db_path: Path) -> None:
    """A listing of a database with no run says so (an empty table with exit 0 read like a run with nothing in it)."""
    if q.latest_run(db) is None:
        _fail(f"{db_path} holds no run yet (start one with `fa5090-search run`)")


def _run_id(db, run_id: Optional[int]) -> int | None:
    if run_id is not None:
        q.get_run(db, run_id)
        return run_id
    latest = q.latest_run(db)
    return latest["id"] if latest else None
