"""The commands around the search: doctor (the environment), derive-tolerance (the correctness rule
held to data), static (what the compiler made, for any arch) and export (one self-contained .cu)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.markup import escape

from kernel_src.knobs import KnobError, Knobs
from store import queries as q
from store.errors import StoreError

from .common import (
    DB_OPT,
    JSON_OPT,
    Arch,
    Dtype,
    HeadDim,
    _cache_dir,
    _fail,
    _print_table,
    _fmt,
    _known_or_raise,
    _open,
    app,
    console,
    err,
)


@app.command()
def doctor(
    arch: Optional[Arch] = typer.Option(None, help="Arch to test-compile for when no GPU is present."),
    as_json: bool = JSON_OPT,
):
    """What is there, what is missing, and how to fix it: GPU, nvcc, ninja, ncu and counter permission.

    Compiles the seed kernel for the device's arch; with a GPU it also profiles one launch with ncu,
    which is the only honest test of counter permission. Exits non-zero when `run` cannot work.
    Example: `doctor`, or on a machine without a GPU `doctor --arch sm_90`."""
    from agent.doctor import diagnose_environment

    rows, fatal = diagnose_environment(_cache_dir(), arch)
    if as_json:
        print(json.dumps([{"check": n, "status": st, "detail": d} for n, st, d in rows], indent=1))
        if fatal:
            raise typer.Exit(1)
        return
    t = Table(title="fa5090-search doctor")
    for c in ("check", "status", "detail"):
        t.add_column(c, overflow="fold")
    colour = {"ok": "green", "warn": "yellow", "missing": "red"}
    for name, status, detail in rows:
        t.add_row(name, f"[{colour[status]}]{status}[/]", detail)
    _print_table(t)
    if fatal:
        _fail("`fa5090-search run` cannot work here yet: fix the red rows above.")



@app.command("derive-tolerance")
def derive_tolerance(
    limit: Optional[int] = typer.Option(None, min=1, help="Only the first N of the 1,024 envelope configurations."),
    battery: bool = typer.Option(True, "--battery/--no-battery", help="Also run the defect battery through the keep path at the run shape."),
    out: Path = typer.Option(Path("tolerance-report.json"), "-o", "--out", help="Where to write the report."),
    replay: Optional[Path] = typer.Option(None, help="Re-summarise a recorded report's raw rows (no GPU) instead of measuring; a gzipped report (.gz) is read as it is."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON (the raw rows stay in the report file) instead of tables."),
    db_path: Path = DB_OPT,
):
    """Hold the correctness rule to data: over 1,024 configurations (fp16/bf16, D 64/128, causal or
    not, 32 values of N with odd tails, 4 (B, H)) report the worst correct kernel's error as a
    fraction of the bound and every injected defect's as a multiple of it; then evaluate each of
    the defects exactly as the search evaluates a candidate: every one must be rejected.
    Examples: `derive-tolerance --limit 64 --no-battery`, `derive-tolerance --replay tolerance-report.json --json`,
    `derive-tolerance --replay results/2026-11-30_h200_instrument/tolerance-report.json.gz`."""
    import json

    from agent.bench import GpuBench
    from experiments.battery import defect_battery, tolerance_report
    from experiments.problem import Shape

    shape = Shape(B=2, H=16, N=2048, D=128)
    if replay is not None:
        from experiments.battery import CORRECT
        from experiments.defects import DEFECTS
        from experiments.tolerance import summarize

        if not replay.exists():
            _fail(f"no report at {replay}")
        try:
            raw = replay.read_bytes()
            if replay.suffix == ".gz":
                import gzip

                raw = gzip.decompress(raw)
            recorded = json.loads(raw.decode(errors="replace"))
            rows = recorded["rows"]
        except (ValueError, KeyError, TypeError, OSError, EOFError):
            _fail(f"{replay} is not a tolerance report (a JSON object with the raw `rows` that "
                  "`derive-tolerance` writes as tolerance-report.json)")
        report = {**recorded, **summarize(rows, list(CORRECT), list(DEFECTS))}
        battery = "battery" in report
        _print_tolerance(report, battery, as_json)
        return
    _check_writable(out)  # before minutes of GPU work, not after them
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
    _write(out, json.dumps(report, indent=1, default=str))
    _print_tolerance(report, battery, as_json)
    if not as_json:
        console.print(f"report in {out}")


def _print_tolerance(report: dict, battery: bool, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1, default=str))
        return

    t = Table(title=f"correct kernels over {report['n_configs']} configurations: error as a fraction of the bound")
    for c in ("kernel", "configs", "failures", "worst", "median"):
        t.add_column(c)
    for name, r in report["correct"].items():
        t.add_row(name, str(r["configs"]), str(r["failures"]), _fmt(r["worst_fraction_of_bound"]), _fmt(r["median_fraction_of_bound"]))
    _print_table(t)
    t = Table(title="defects over the envelope: error as a multiple of the bound")
    for c in ("defect", "caught", "how", "min multiple", "median multiple"):
        t.add_column(c)
    for name, r in report["defects"].items():
        t.add_row(name, f"{r['caught']}/{r['configs']}", json.dumps(r["reasons"]), _fmt(r["min_multiple"], ".3g"), _fmt(r["median_multiple"], ".3g"))
    _print_table(t)
    if battery:
        t = Table(title="defect battery through the keep path (B2 H16 N2048 D128 fp16)")
        for c in ("defect", "outcome", "rejected", "detail"):
            t.add_column(c, overflow="fold")
        for r in report["battery"]:
            t.add_row(r["defect"], r["outcome"], "yes" if r["rejected"] else "[red]NO[/]", r["detail"][:120])
        _print_table(t)
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
CENSUS = ("HMMA", "HGMMA", "MUFU.EX2", "FFMA", "FMUL", "LDSM", "LDGSTS", "UTMALDG", "LDS", "LDG", "STS", "STG", "BAR", "SHFL", "LDL", "STL")


@app.command()
def static(
    arch: Arch = typer.Option(..., help="Target to compile for (no GPU needed)."),
    knob: list[str] = typer.Option([], "--knob", help="One candidate: the seed with NAME=VALUE changed (repeatable)."),
    covering: bool = typer.Option(False, "--covering", help="The pairwise covering set of knob combinations instead of the ladder."),
    head_dim: HeadDim = typer.Option(128, "--head-dim", "-d", help="D of the instantiation to compile."),
    dtype: Dtype = typer.Option("float16", help="Dtype of the instantiation to compile."),
    as_json: bool = JSON_OPT,
):
    """Compile candidates for an arch you may not have and read what the compiler made: registers,
    spills, shared memory per CTA, predicted CTAs/SM and warps/SM with the limiting resource (from
    the arch table), whether it can launch at all, and a SASS census by instruction family
    (cuobjdump; `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` if the toolkit has none).
    Default set: the ladder seed -> tensor cores -> swizzle -> cp.async -> exp2 -> padding -> pipelining,
    then the H200's best finds (Q from shared memory; double buffering + persistent grid + BC 32).
    Examples: `static --arch sm_120`, `static --arch sm_90 --knob compute=mma --knob bc=32 --json`."""
    from experiments.build import BuildSpec, build
    from kernel_src.arch import TABLE
    from kernel_src.covering import covering_set
    from profiler.static import static_report

    try:
        cands = [Knobs.parse_assignments(knob)] if knob else covering_set() if covering else [Knobs.parse(d) for d in _LADDER]
    except KnobError as e:
        _fail(str(e))
    for k in cands:  # refused before any build, as a search refuses it
        if k.needs_arch() not in (None, arch):
            _fail(f"{k.label()} uses instructions that exist on {k.needs_arch()} only (built as {k.needs_arch()}a): "
                  f"compile it with --arch {k.needs_arch()}", 2)
    lim = TABLE[arch]
    # the device code alone (nvcc -cubin): nothing here loads a library, and cuobjdump reads a candidate's cubin in
    # about 1.0 s against 1.8-2.3 s for its library; the ladder on sm_120 took 26 CPU s instead of 45, the same
    # report (results/2026-12-01_cpu_ci_time/static_cubin.txt)
    specs = [BuildSpec(knobs=k, arch=arch, dtypes=(dtype,), dims=(head_dim,), causals=(False,), host=False) for k in cands]
    try:
        with console.status(f"compiling {len(specs)} candidate(s) for {arch}"):
            res = build(specs, _cache_dir() / "static")
    except Exception as e:  # noqa: BLE001
        _known_or_raise(e)
    rows, warned = static_report([s.knobs for s in specs], [res[s.key()] for s in specs], arch, head_dim)
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
                  r["refusal"] or r["limiter"] + (" [red](wgmma serialised by ptxas, C7520)[/]" if r.get("wgmma_serialized") else ""),
                  *[str(c.get(f, 0)) if r["census"] is not None else "n/a" for f in CENSUS])
    _print_table(t)
    if warned:
        err.print(f"[yellow]no SASS census:[/] {warned}")


@app.command()
def export(
    what: Optional[list[str]] = typer.Argument(None, help="`best` (the latest run's best kernel), `best:RUN`, `RUN:SEQ` (run RUN's experiment #SEQ), an experiment id from `history`, or knob assignments NAME=VALUE. Not with --dispatch."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="The .cu file to write (its folder must exist); default attn.cu, with --dispatch fa_dispatch.cu (the library beside it, .so)."),
    head_dim: Optional[HeadDim] = typer.Option(None, "--head-dim", "-d", help="D (default: the run's, else 128)."),
    dtype: Optional[Dtype] = typer.Option(None, help="Dtype (default: the run's, else float16)."),
    dispatch: bool = typer.Option(False, "--dispatch", help="One library over every --db: per (dtype, D, causal, N bucket) the fastest KEPT kernel measured there."),
    torch_dir: Optional[Path] = typer.Option(None, "--torch", help="With the --dispatch table: an installable PyTorch package in this folder (`pip install DIR`, then `fa5090_kernels.attention(q, k, v, causal=...)`, registered as torch.ops.fa5090.attention)."),
    arch: Optional[list[str]] = typer.Option(None, "--arch", help="With --dispatch: the arch(es) to build for, e.g. sm_90 (default: the runs' own)."),
    build: bool = typer.Option(True, "--build/--no-build", help="With --dispatch: build the .so when nvcc is there."),
    as_json: bool = JSON_OPT,
    db_paths: Optional[list[Path]] = typer.Option(None, "--db", help="SQLite file holding runs (default: $FA5090_DB, else fa5090.db); with --dispatch repeat it, one per problem measured."),
):
    """Write one self-contained .cu file: the kernel at those knobs, a CPU reference check on sampled
    rows and a timing loop printing TFLOP/s. Taken from a run, the head dim and dtype are the run's.
    Build it with one command, e.g. `nvcc -O3 -std=c++17 -arch=sm_90 attn.cu -o attn && ./attn 2 16 2048 0`
    (B H N causal). Examples: `export best -o best.cu`, `export 2:9`, `export compute=mma layout=pad`.

    `export --dispatch --db a.db --db b.db -o out/fa_dispatch.cu` writes one .cu (and, with nvcc,
    builds out/fa_dispatch.so) whose `fa_fwd` picks per (dtype, D, causal, N bucket) the fastest KEPT
    kernel of the databases' runs at that problem: each run's final best (a --screen run's fastest
    keep), the highest TFLOP/s where runs share a bucket. N buckets have power-of-two edges (N<=512,
    513-1024, ..., N>32768); an empty bucket takes the nearest measured one (said in the output and
    the file's header); a (dtype, D, causal) never measured returns the not-built error.
    `fa_dispatch_table()` returns the table the library was built with, `fa_dispatch_pick()` the row
    for a problem; `scale` is the softmax scale itself (log2(e) is folded in per kernel).

    `export --torch DIR --db a.db --db b.db` makes that table a PyTorch package: `pip install DIR`, then
    `fa5090_kernels.attention(q, k, v, causal=..., scale=None)` in SDPA's layout (also
    `torch.ops.fa5090.attention`, traceable by torch.compile); what the table does not cover runs SDPA,
    with one warning naming why (`fallback="error"` raises), and the backward recomputes with SDPA."""
    # not envvar=: click splits a repeatable option's variable at whitespace, and a path may hold a space
    db_paths = db_paths or [Path(os.environ.get("FA5090_DB", "fa5090.db"))]
    if torch_dir is not None:
        if what:
            _fail("export --torch takes no kernel argument: it packages the dispatch table of every --db", 2)
        if out is not None:
            _fail("export --torch writes into its folder (DIR/fa5090_kernels/); -o does not apply", 2)
        return _export_torch(db_paths, torch_dir, arch, build, as_json)
    if dispatch:
        if what:
            _fail("export --dispatch takes no kernel argument: it reads the best kernels of every --db", 2)
        _export_dispatch(db_paths, out or Path("fa_dispatch.cu"), arch, build, as_json)
        return
    if not what:
        _fail("say what to export: `best`, `best:RUN`, `RUN:SEQ`, an experiment id or NAME=VALUE ... (or --dispatch)", 2)
    if len(db_paths) > 1:
        _fail(f"--db was given {len(db_paths)} times; only export --dispatch reads several databases", 2)
    if arch:
        _fail("--arch applies to export --dispatch only (build the single file for any arch yourself)", 2)
    _export_one(what, out or Path("attn.cu"), head_dim, dtype, db_paths[0], as_json)

def _export_one(what: list[str], out: Path, head_dim, dtype, db_path: Path, as_json: bool) -> None:
    """The one-configuration .cu: a run's kernel (best, best:RUN, RUN:SEQ, an experiment id) or knob assignments."""
    from kernel_src.export import nvcc_arch, standalone

    problem: dict = {}
    note = None  # what the exported kernel is, where that is not what was asked for
    ref = what[0] if len(what) == 1 else ""
    if ref == "best" or ref.startswith("best:") or ref.isdigit() or (ref.count(":") == 1 and ref.replace(":", "").isdigit()):
        db = _open(db_path, create=False, read_only=True)
        try:
            knobs, problem, note = _kernel_of(db, ref)
        except StoreError as e:
            _fail(str(e))
    else:
        try:
            knobs = Knobs.parse_assignments(what)
        except KnobError as e:
            _fail(str(e))
    head_dim = head_dim or problem.get("D", 128)
    dtype = dtype or problem.get("dtype", "float16")
    _check_out(out)
    try:
        _write(out, standalone(knobs, head_dim, dtype))
    except ValueError as e:
        _fail(str(e), 2)
    causal = f" {int(problem['causal'])}" if "causal" in problem else ""
    build = f"nvcc -O3 -std=c++17 {nvcc_arch(knobs)[0]} {out} -o attn"
    problem_line = f"./attn {problem['B']} {problem['H']} {problem['N']}{causal}" if problem else None
    if as_json:
        print(json.dumps({"file": str(out), "knobs": knobs.label(), "knobs_canonical": knobs.canonical(),
                          "head_dim": head_dim, "dtype": dtype, "build": build, "run_problem": problem_line,
                          "note": note}, indent=1))
        return
    if note:
        console.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)
    console.print(f"wrote {out} ({knobs.label()}, D={head_dim}, {dtype}); build: {build}"
                  + (f"; the run's problem: {problem_line}" if problem_line else ""),
                  soft_wrap=True, highlight=False)  # the nvcc command stays one line, to copy


def _write(out: Path, text: str) -> None:
    """The file written, or one sentence: a read-only folder is the user's to fix, not a traceback."""
    try:
        out.write_text(text)
    except OSError as e:
        _fail(f"cannot write {out} ({e.strerror}); give -o a file in a folder you can write")


def _check_out(out: Path) -> None:
    if out.is_dir():
        _fail(f"{out} is a folder; give the file to write, e.g. -o {out / 'attn.cu'}", 2)
    if not out.parent.exists():
        _fail(f"the folder {out.parent} does not exist; create it or write elsewhere", 2)


def _check_writable(out: Path) -> None:
    """`out` can be written where it is asked for: tried, not judged from permission bits (root passes
    those on a read-only file system); a file that was not there is removed again."""
    _check_out(out)
    if not out.parent.is_dir():
        _fail(f"cannot write {out} ({out.parent} is not a folder); give -o a file in a folder you can write")
    existed = out.exists()
    try:
        with out.open("a"):
            pass
    except OSError as e:
        _fail(f"cannot write {out} ({e.strerror}); give -o a file in a folder you can write")
    if not existed:
        out.unlink()


def _measured_bests(db, name: str) -> tuple[list, list[str], set[tuple[str, str]]]:
    """Each run's best kernel at its problem (agent.summary.measured_best: the last KEPT, a --screen run's
    fastest keep, or a chosen seed that nothing beat); comparator rows carry no kernel and never count.
    Returns the measurements, a note per run left out, and the GPUs."""
    from agent.summary import measured_best
    from kernel_src.dispatch import Measured

    found, notes, gpus = [], [], set()
    for run in q.runs(db):
        best = measured_best(db, run)
        if best is None:
            notes.append(f"{name} run {run['id']} ({run['problem_key']}): no KEPT kernel, left out")
            continue
        knobs, tflops, where = best
        p = run["problem"]
        gqa = f" Hkv{p['Hkv']}" if p.get("Hkv") not in (None, p["H"]) else ""
        found.append(Measured(dtype=p["dtype"], head_dim=p["D"], causal=bool(p["causal"]), n=p["N"],
                              knobs=knobs, tflops=tflops,
                              source=f"{name} run {run['id']} {where} (B{p['B']} H{p['H']}{gqa})"))
        gpus.add((run["gpu_name"], run["arch"]))
    return found, notes, gpus


def _export_torch(db_paths: list[Path], where: Path, archs: Optional[list[str]], build_it: bool, as_json: bool) -> None:
    from kernel_src import torch_package as tp

    if where.exists() and not where.is_dir():
        _fail(f"--torch {where}: not a folder", 2)
    if (where / "pyproject.toml").exists() and not (where / tp.PACKAGE).is_dir():
        _fail(f"--torch {where}: holds a pyproject.toml of another project; give an empty or new folder", 2)
    try:
        (where / tp.PACKAGE).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _fail(f"--torch {where}: cannot create it ({e.strerror})")
    cu = where / tp.PACKAGE / "fa_dispatch.cu"
    rows, archs, gpu, so = _export_dispatch(db_paths, cu, archs, build_it, as_json)
    files = tp.write_package(where, rows, archs, gpu, cu, so)
    say = err.print if as_json else console.print
    say(f"wrote the package {where} ({', '.join(str(f.relative_to(where)) for f in files)})"
        + ("" if so else ": without a built library, every call runs SDPA until fa_dispatch.so is built beside it"))
    say(f"install: pip install {where}   then: import fa5090_kernels; fa5090_kernels.attention(q, k, v, causal=...)")


def _export_dispatch(db_paths: list[Path], out: Path, archs: Optional[list[str]], build_it: bool, as_json: bool):
    """Writes the dispatch .cu (and builds its .so); returns (rows, archs, gpu, the .so or None)."""
    from kernel_src import dispatch as dsp
    from kernel_src.arch import launch_refusal

    measured, notes, gpu, measured_arch, archs, lims = _measured_for_dispatch(db_paths, archs)
    _check_out(out)
    rows = dsp.choose(measured)
    kernels = dsp.kernels(rows)
    for kn, dt, d, c in kernels:
        for lim in lims:
            why = launch_refusal(lim, smem=kn.smem_bytes(d), threads=kn.threads(), needs_arch=kn.needs_arch())
            if why:
                _fail(f"{kn.label()} (measured on {measured_arch}) cannot launch on {lim.arch}: {why}")
    so = out.with_suffix(".so")
    from experiments.build import FLAGS

    targets = build_targets(archs, [kn for kn, *_ in kernels])
    cmd = " ".join(["nvcc", *FLAGS, *[f"-gencode=arch=compute_{a.removeprefix('sm_')},code={a}" for a in targets],
                    out.name, "-o", so.name])
    fallbacks = [r for r in rows if r.fallback]
    have = {r.key() for r in rows}
    missing = [f"{dt} D{d} {'causal' if c else 'non-causal'}" for dt in dsp.DTYPES for d in dsp.HEAD_DIMS
               for c in (False, True) if (dt, d, c) not in have]

    header = _dispatch_header(rows, kernels, gpu, measured_arch, archs, db_paths, missing, notes, cmd)
    _write(out, dsp.source(rows, header))
    _print_dispatch_table(rows, gpu, measured_arch, as_json)
    say = err.print if as_json else console.print
    for n in notes:
        say(f"[yellow]left out:[/] {n}")
    if fallbacks:
        say(f"[yellow]{len(fallbacks)} of {len(rows)} rows fall back to the nearest measured N bucket[/] (marked above and in {out.name}'s header)")
    say(f"not built (fa_fwd returns FA_NOT_BUILT): {', '.join(missing) or 'none'}")
    say(f"wrote {out} ({len(kernels)} kernel(s), {len(rows)} rows)")
    if not build_it:
        say(f"not built (--no-build); build: cd {out.parent} && {cmd}")
        return rows, archs, gpu, None
    from experiments.build import BuildError, build_file

    try:
        with err.status(f"nvcc: {len(kernels)} kernel(s) for {', '.join(targets)}"):
            res = build_file(out, so, targets)
    except BuildError as e:
        say(f"[yellow]{e}[/]: wrote the .cu only; build: cd {out.parent} && {cmd}")
        return rows, archs, gpu, None
    if not res.ok:
        _fail(f"nvcc failed on {out} (log: {so}.log): " + (res.log.strip().splitlines() or ["no output"])[-1])
    say(f"built {so} for {', '.join(targets)} in {res.seconds:.0f} s (log: {so.name}.log)")
    return rows, archs, gpu, so


def build_targets(archs: list[str], kernels: list[Knobs]) -> list[str]:
    """The nvcc targets of a dispatch library for these device archs: sm_90a in place of sm_90 when a kernel
    issues Hopper's warpgroup MMA (its instructions exist on sm_90a alone: plain sm_90 refuses them)."""
    hopper = any(k.needs_arch() == "sm_90" for k in kernels)
    return [f"{a}a" if hopper and a == "sm_90" else a for a in archs]

def _measured_for_dispatch(db_paths: list[Path], archs: Optional[list[str]]):
    """Every database's measured bests, read-only: (bests, notes, the GPU, its arch, the archs to build for, their
    limits); refused in one sentence where nothing was kept or the databases come from different GPUs."""
    from kernel_src.arch import ArchError, limits

    measured, notes, gpus = [], [], set()
    for path in db_paths:
        db = _open(path, create=False, read_only=True)
        try:
            m, n, g = _measured_bests(db, f"{path.parent.name}/{path.name}" if path.parent.name else path.name)
        except StoreError as e:
            _fail(str(e))
        measured += m
        notes += n
        gpus |= g
    if not measured:
        _fail(f"no KEPT kernel in {', '.join(str(p) for p in db_paths)}: nothing measured to dispatch to")
    if len({g for g, _ in gpus}) > 1:
        _fail("the databases were recorded on different GPUs (" + ", ".join(sorted(g for g, _ in gpus))
              + "): a dispatch table holds one GPU's measurements; export one per GPU")
    gpu, measured_arch = next(iter(gpus))
    archs = list(dict.fromkeys(archs or [measured_arch]))
    try:
        lims = [limits(a) for a in archs]
    except ArchError as e:
        _fail(str(e), 2)
    return measured, notes, gpu, measured_arch, archs, lims


def _dispatch_header(rows, kernels, gpu: str, measured_arch: str, archs: list[str], db_paths: list[Path],
                     missing: list[str], notes: list[str], cmd: str) -> list[str]:
    """The dispatch .cu's header: what it holds, where each row was measured, what is not built, how to build it."""
    from kernel_src import dispatch as dsp

    def where(r) -> str:
        return f"{r.dtype} D{r.head_dim} {'causal' if r.causal else 'non-causal'} {r.bucket()}"

    header = [
        (f"fa5090-search export --dispatch: {len(kernels)} kernel(s), {len(rows)} rows, measured on {gpu} ({measured_arch}),"
         f" built for {', '.join(archs)}"),
        "from: " + ", ".join(str(p) for p in db_paths),
        "the kernels are built from today's kernel_src/fa_fwd.cu (knobs added since a run keep their old kernel at",
        "their defaults); the TFLOP/s are those each run measured, paired, on its own problem, clocks unlocked.",
        "N buckets (power-of-two edges): " + ", ".join(dsp.bucket_name(i) for i in range(len(dsp.EDGES) + 1)),
        "",
        "table (also fa_dispatch_table()):",
        *[f"  {where(r)}: {r.knobs.label()}  " + (f"[fallback: nothing measured here; nearest measured N={r.measured_n}, {r.source}]"
                                                  if r.fallback else f"[measured at N={r.measured_n}, {_fmt(r.tflops, '.1f')} TFLOP/s, {r.source}]")
          for r in rows],
        "not built, fa_fwd returns -2 (FA_NOT_BUILT): " + (", ".join(missing) or "none"),
        *[f"left out: {n}" for n in notes],
        "",
        "entry points: fa_fwd (the one-configuration library's arguments; scale = the softmax scale itself),",
        "  fa_dispatch_pick(dtype, D, causal, N) -> row, fa_dispatch_table(), fa_dispatch_attributes(row, out[6]),",
        "  fa_error_string(code); each kernel's own API as fa5090_k<i>_fa_fwd/_fa_attributes/_fa_config.",
        f"build: {cmd}",
    ]
    return header


def _print_dispatch_table(rows, gpu: str, measured_arch: str, as_json: bool) -> None:
    """The table chosen, as JSON or as a rich table."""
    if as_json:
        print(json.dumps([{**r.model_dump(mode="json", exclude={"knobs"}), "knobs": r.knobs.label(),
                           "knobs_canonical": r.knobs.canonical(), "bucket": r.bucket()} for r in rows], indent=1))
    else:
        t = Table(title=f"dispatch table: best measured kernel per bucket ({gpu}, {measured_arch})")
        for c in ("dtype", "D", "causal", "N bucket", "knobs", "measured at", "TFLOP/s", "source"):
            t.add_column(c, overflow="fold")
        for r in rows:
            t.add_row(r.dtype, str(r.head_dim), "yes" if r.causal else "no", r.bucket(), r.knobs.label(),
                      f"[yellow]N={r.measured_n} (fallback: nearest measured bucket)[/]" if r.fallback else f"N={r.measured_n}",
                      _fmt(r.tflops, ".1f"), r.source)
        console.print(t)


def _kernel_of(db, ref: str) -> tuple[Knobs, dict, str | None]:
    """The knobs and the run's problem for `best`, `best:RUN`, `RUN:SEQ` or an experiment id, and a
    note where `best` is no candidate at all (a run that kept nothing: its seed)."""
    from agent.summary import best_of_run

    if ref == "best" or ref.startswith("best:"):
        run = q.get_run(db, int(ref[5:])) if ref.startswith("best:") else q.latest_run(db)
        if run is None:
            raise StoreError("the database holds no run yet")
        best, note = best_of_run(db, run["id"]), None
        rows = [e for e in q.history(db, run["id"]) if e["seq"]]
        if not any(e["outcome"] == "KEPT" for e in rows):
            note = (f"run {run['id']} kept nothing ({len(rows)} experiment(s), none KEPT), so its best is its seed: "
                    + ("the naive seed, " if best == Knobs() else "") + "exported as it is, not an optimised kernel")
        return best, run["problem"], note
    if ":" in ref:
        run_id, seq = (int(x) for x in ref.split(":"))
        hit = [e for e in q.history(db, run_id) if e["seq"] == seq]
        if not hit:
            raise StoreError(f"run {run_id} has no experiment #{seq}")
        e = hit[0]
    else:
        e = q.experiment(db, int(ref))
    if not e.get("knobs"):
        raise StoreError(f"experiment {e['id']} is a {e['kind']} row with no kernel of ours to export"
                         + (" (it times SDPA against the best: export the best with `export best`)"
                            if e["kind"] == "comparator" else ""))
    return Knobs.parse(e["knobs"]), q.get_run(db, e["run_id"])["problem"], None
