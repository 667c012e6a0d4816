"""What SDPA's cuDNN kernel is, next to ours, at a suite's shapes: one ncu profile per shape of one cuDNN
call and one call of our kernel (launch configuration, occupancy, tensor pipe, issue, stalls, bytes), both
in the same process after a warm-up, so that the vendor's choice of tile, grid and registers is read off
the hardware rather than guessed.

    python3 scripts/device_anatomy.py OUT_DIR [--shape 'B2 H16 N2048 D128 fp16=ws_op_lazy_qp']... [--sass]

Each --shape names a shape (device_suite.py's spelling) and the kernel of device_suite.KERNELS profiled
beside cuDNN. Writes OUT_DIR/<shape>__<kernel>.csv (ncu's raw page), OUT_DIR/anatomy.json and prints a table.
--sass: our kernel alone, once more, with ncu's SourceCounters (warp-state samples per SASS instruction):
OUT_DIR/<shape>__<kernel>.ncu-rep and its source page as OUT_DIR/<shape>__<kernel>_sass.csv, and the
instructions holding the most samples printed.

    python3 scripts/device_anatomy.py OUT_DIR --trace [--shape 'B16 H16 N512 D64 fp16=ws3_lazy_qp']...

--trace: no ncu; each shape's cuDNN and our kernel in blocks of back-to-back calls under torch.profiler (CUPTI's
kernel records): each kernel's own duration and the gap from one kernel's end to the next one's start in the same
stream, next to the events' time per call. Says whether the paired timing's per-call figure is the kernel or the
kernel plus its launch, and whether the vendor's kernels overlap their neighbours (programmatic dependent launch).
Writes OUT_DIR/trace.json.

    python3 scripts/device_anatomy.py OUT_DIR --items [--launches 3] [--shape 'B16 H16 N512 D64 fp16=KERNEL']...

--items: no ncu; each kernel built with the item trace (kernel_src/trace.cuh, FA_ITEM_TRACE=1) and without it, each
timed (200 calls after 50: what the instrument costs), then single launches of the traced build, each after a GPU spin
and read by profiler.item_trace (where each CTA's time went: before its first item, between items, after its last;
an item's cost by query tile). Writes OUT_DIR/trace.json.gz (every record and summary).

    python3 scripts/device_anatomy.py --segments OUT_DIR/<shape>__<kernel>_sass.csv
    python3 scripts/device_anatomy.py --families OUT_DIR/<shape>__<kernel>_sass.csv

CPU only: that source page cut into runs of one execution count, each with its share of the samples (what an item's
boundary costs against the key-block loop); or its samples by opcode family (wgmma, MUFU, float, sync, memory, ...) and
the opcodes each large stall sits on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

EXTRA = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "sm__cycles_active.avg",
         "gpc__cycles_elapsed.max", "smsp__warps_launched.sum", "launch__cluster_dim_x", "launch__thread_count",
         # the pipes beside the tensor pipe: MUFU (xu: ex2 at a quarter of the FMA rate) against FMA and ALU, for
         # whether a D=64 kernel is bound by its exponentials (exp_poly's premise)
         "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_xu.sum",
         "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
         "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
         # shared memory's data stage: the wavefronts HGMMA's operands take (P read by descriptor adds its tile to
         # every PV's) beside all shared wavefronts, and L1TEX's throughput against its peak
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
         "l1tex__throughput.avg.pct_of_peak_sustained_active"]

DEFAULT = ["B2 H16 N2048 D128 fp16=ws_op_lazy_qp", "B4 H16 N4096 D128 bf16=ws_op_bc176_lazy",
           "B16 H16 N512 D64 fp16=ws2c", "B8 H32 N1024 D128 bf16 causal Hkv8=ws_op_lazy_qp_hf",
           "B2 H16 N8192 D128 fp16=ws_op_bc176_lazy", "B2 H16 N8192 D64 fp16=ws3_lazy_qp"]


def _inputs(shape_spec: str):
    """(the shape, q, k, v, o, lse): one set of inputs of the shape (seeded) on the current GPU."""
    import torch

    from device_suite import shape

    sh = shape(shape_spec)
    dt = getattr(torch, sh.dtype)
    g = torch.Generator().manual_seed(7)
    q = torch.randn(sh.B, sh.H, sh.N, sh.D, generator=g).to("cuda", dt)
    k, v = (torch.randn(sh.B, sh.Hkv or sh.H, sh.N, sh.D, generator=g).to("cuda", dt) for _ in range(2))
    return sh, q, k, v, torch.empty_like(q), torch.empty(sh.B, sh.H, sh.N, device="cuda")


def _arms(shape_spec: str, lib_path: str):
    """(cuDNN's call, ours) on one set of inputs of the shape (seeded), on the current GPU."""
    from experiments import sdpa
    from kernel_src.binding import KernelLib

    sh, q, k, v, o, lse = _inputs(shape_spec)
    lib = KernelLib(lib_path)
    return (sdpa.call("cudnn", q, k, v, sh.causal, bool(sh.Hkv and sh.Hkv != sh.H)),
            lambda: lib.forward(q, k, v, o, lse, sh.causal))


def items(out: Path, pairs: list, launches: int, arch: str) -> int:
    """--items: each (shape, kernel) built with the item trace and without, both timed, the traced build's single
    launches read by profiler.item_trace; OUT_DIR/trace.json.gz."""
    import ctypes
    import gzip

    import torch

    from device_suite import KERNELS, shape
    from experiments.build import BuildSpec, build
    from kernel_src.binding import KernelLib
    from kernel_src.knobs import Knobs
    from profiler import item_trace as it

    bad = [n for _, n in pairs if KERNELS[n].get("mainloop") != "ws"]
    if bad:
        print(f"--items traces the warp-specialised mainloop's kernels; not {bad}", flush=True)
        return 2
    specs = {(spec, n, tr): BuildSpec(knobs=Knobs(**KERNELS[n]), arch=arch, dtypes=(shape(spec).dtype,),
                                      dims=(shape(spec).D,), causals=(shape(spec).causal,), trace=tr)
             for spec, n in pairs for tr in (True, False)}
    t = time.time()
    built = build(list(specs.values()), Path("/tmp/facache/build"))
    print(f"built {len(specs)} libraries in {time.time() - t:.0f} s", flush=True)
    buf = ctypes.create_string_buffer(it.CAP * it.RECORD)
    runs = []
    for spec, n in pairs:
        res = {tr: built[specs[spec, n, tr].key()] for tr in (True, False)}
        if not all(r.ok for r in res.values()):
            print(f"{n}: build failed\n{next(r.log for r in res.values() if not r.ok)[-1500:]}", flush=True)
            continue
        sh, q, k, v, o, lse = _inputs(spec)
        libs = {tr: KernelLib(res[tr].library) for tr in (True, False)}
        read = libs[True]._lib.fa_item_trace
        read.argtypes, read.restype = [ctypes.c_void_p, ctypes.c_int], ctypes.c_int
        ms = {}
        for tr, lib in libs.items():  # each build's time per call, 200 calls after 50 (the instrument's cost)
            for _ in range(50):
                lib.forward(q, k, v, o, lse, sh.causal)
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(200):
                lib.forward(q, k, v, o, lse, sh.causal)
            e.record()
            torch.cuda.synchronize()
            ms[tr] = s.elapsed_time(e) / 200
        read(buf, 0)  # the warm-up's records cleared
        traced = []
        for _ in range(launches):
            torch.cuda._sleep(1_000_000)  # the GPU busy while the launch is queued, as in the paired timing
            libs[True].forward(q, k, v, o, lse, sh.causal)
            torch.cuda.synchronize()
            got = read(buf, it.CAP)
            if got < 0:
                print(f"{n}: fa_item_trace returned {got}", flush=True)
                break
            traced.append(it.decode(buf.raw, got))
        print(f"{n}: {ms[False] * 1e3:.2f} us a call without the trace, {ms[True] * 1e3:.2f} us with it", flush=True)
        summaries = [it.summarise(r) for r in traced]
        for i, sm in enumerate(summaries):
            print(it.line(f"{n} launch {i + 1}", sm), flush=True)
        runs.append({"shape": spec, "kernel": n, "knobs": KERNELS[n], "summaries": summaries, "records": traced,
                     "us_per_call": {"plain": ms[False] * 1e3, "traced": ms[True] * 1e3}})
    doc = {"gpu": torch.cuda.get_device_name(), "runs": runs}
    (out / "trace.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    return 0


def inner(shape_spec: str, lib_path: str) -> int:
    """The profiled program: warm both, then one cuDNN call and one of ours inside the profiler range."""
    import torch

    cudnn, ours = _arms(shape_spec, lib_path)
    for _ in range(30):
        cudnn()
        ours()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    cudnn()
    torch.cuda.synchronize()
    ours()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    return 0


def trace(shape_spec: str, lib_path: str, blocks: int = 6, calls: int = 50) -> dict:
    """--trace's measurement of one shape (in this process): blocks of `calls` back-to-back calls of cuDNN and of
    ours, alternating, behind a GPU spin so each block's calls are queued before it starts; CUPTI's records of every
    kernel in the blocks (kept, as [start us, end us] from the first record), and each block's event time."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    arms = dict(zip(("cudnn", "ours"), _arms(shape_spec, lib_path)))
    for _ in range(20):
        for fn in arms.values():
            fn()
    torch.cuda.synchronize()
    event_ms: dict[str, list[float]] = {n: [] for n in arms}
    marks = []
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for b in range(blocks):
            for name in (("cudnn", "ours") if b % 2 == 0 else ("ours", "cudnn")):
                torch.cuda._sleep(2_000_000)  # the GPU busy while the block is queued
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(calls):
                    arms[name]()
                e.record()
                marks.append((name, s, e))
        torch.cuda.synchronize()
    for name, s, e in marks:
        event_ms[name].append(s.elapsed_time(e) / calls)
    kernels = sorted(((ev.time_range.start, ev.time_range.end, ev.name) for ev in prof.events()
                      if ev.device_type == torch.autograd.DeviceType.CUDA
                      and not any(w in ev.name.lower() for w in ("sleep", "spin"))
                      and ev.time_range.end > ev.time_range.start), key=lambda t: t[0])
    out = {"shape": shape_spec, "calls_per_block": calls, "blocks_per_arm": blocks}
    for name in arms:
        mine = [t for t in kernels if ("fa_fwd" in t[2]) == (name == "ours")]
        t0 = kernels[0][0] if kernels else 0.0
        out[name] = {**kernel_gaps(mine), "event_us_per_call": [round(x * 1e3, 3) for x in event_ms[name]],
                     "records": [[round(a - t0, 3), round(b - t0, 3)] for a, b, _ in mine]}
    return out


def kernel_gaps(records: list[tuple[float, float, str]], block_gap_us: float = 50.0) -> dict:
    """One arm's kernel records (start us, end us, name), in start order: the kernels' names, their count, the median
    duration, and the gaps from each kernel's end to the next one's start inside a block (a gap of block_gap_us or
    more is the boundary between two blocks); a negative gap is two kernels overlapping. A call of more than one
    kernel (cuDNN's SDPA: a memset, then its kernel) has each kernel's median duration in kernel_us_median_by_name."""
    import statistics

    dur = [e - s for s, e, _ in records]
    gaps = [b[0] - a[1] for a, b in zip(records, records[1:]) if b[0] - a[1] < block_gap_us]
    names = sorted({n[:120] for _, _, n in records})
    by_name = {n: statistics.median([e - s for s, e, m in records if m[:120] == n]) for n in names}
    return {"kernels": names, "n": len(records), "kernel_us_median_by_name": by_name,
            "kernel_us_median": statistics.median(dur) if dur else None,
            "gap_us_median": statistics.median(gaps) if gaps else None,
            "gap_us_min": min(gaps) if gaps else None, "overlapping": sum(g < 0 for g in gaps)}


SAMPLES = "Warp Stall Sampling (All Samples)"


def num(v) -> float:
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return 0.0


def source_rows(csv_path: Path, option: str) -> list[dict] | None:
    """The instructions of a source page that --sass wrote (ncu's CSV after its "Kernel Name" line), or None with
    the reason on stderr."""
    import csv
    import io

    if not csv_path.is_file():
        print(f"{csv_path}: no such file ({option} takes a source page that --sass wrote)", file=sys.stderr)
        return None
    text = csv_path.read_text(errors="replace")
    head = text.find('"Address"')
    if head < 0:
        print(f"{csv_path}: not ncu's source page (no \"Address\" column)", file=sys.stderr)
        return None
    return list(csv.DictReader(io.StringIO(text[head:])))


def opcode(source: str) -> str:
    """The SASS opcode of a source-page line, its predicate dropped: '@!P0 BRA `(.L_x_3)' -> 'BRA'."""
    parts = source.split()
    if parts and parts[0].startswith("@"):
        parts = parts[1:]
    return parts[0] if parts else ""


# the opcode families an instruction's samples are counted under (first match of its opcode's prefix)
FAMILIES = (("wgmma", ("HGMMA", "WARPGROUP")), ("mufu", ("MUFU",)),
            ("float", ("FFMA", "FMUL", "FADD", "FMNMX", "FSEL", "FSETP", "F2FP", "F2F", "HADD2", "HMUL2", "HFMA2")),
            ("sync", ("BAR", "SYNCS", "WARPSYNC", "ELECT", "NANOSLEEP", "DEPBAR", "MEMBAR", "USETMAXREG")),
            ("memory", ("LDS", "STS", "LDSM", "STSM", "LDG", "STG", "LDL", "STL", "UTMA", "UBLKCP", "LDC", "ULDC")),
            ("shuffle", ("SHFL", "VOTE")), ("branch", ("BRA", "BSSY", "BSYNC", "EXIT", "RET", "CALL", "YIELD")))


def family(op: str) -> str:
    return next((name for name, prefixes in FAMILIES if op.startswith(prefixes)), "integer/other")


def families(csv_path: Path, top: int = 4) -> int:
    """--families: where the warp-state samples of a source page sit by opcode family (CPU only), with each family's
    leading stalls; then, for the stalls that hold the most samples, the opcodes they sit on. Answers which
    instructions a kernel's `wait`, `mio` (MUFU's queue full) or `long_sb` stalls belong to, beside the per-kernel
    counters that only give their totals."""
    import collections

    rows = source_rows(csv_path, "--families")
    if rows is None:
        return 2
    stalls = [c for c in rows[0] if c and c.startswith("stall_") and "Not Issued" not in c]
    total = sum(num(r[SAMPLES]) for r in rows) or 1.0
    fam: collections.Counter = collections.Counter()
    fam_stall: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    stall_op: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        op = opcode(str(r["Source"]))
        f = family(op)
        fam[f] += num(r[SAMPLES])
        for c in stalls:
            v = num(r[c])
            if v:
                fam_stall[f][c[6:]] += v
                stall_op[c[6:]][op] += v
    print(f"{csv_path.name}: {len(rows)} instructions, {total:.0f} samples")
    print("by opcode family (share of all samples; its leading stalls, as shares of all samples):")
    for f, v in fam.most_common():
        lead = ", ".join(f"{k} {n / total:.1%}" for k, n in fam_stall[f].most_common(top))
        print(f"  {f:14s} {v / total:6.1%}  {lead}")
    print("the largest stalls by opcode (share of all samples):")
    for st, v in sorted(((k, sum(c.values())) for k, c in stall_op.items()), key=lambda kv: -kv[1])[:top + 2]:
        ops = ", ".join(f"{k} {n / total:.1%}" for k, n in stall_op[st].most_common(top))
        print(f"  {st:14s} {v / total:6.1%}  {ops}")
    return 0


def segments(csv_path: Path, min_share: float = 0.004) -> int:
    """--segments: where the warps spend their time, by how often the code runs (CPU only). ncu's source page cut
    into runs of consecutive SASS instructions with the same execution count, each with its share of the warp-state
    samples, its leading stalls and its opcodes: a run executed once per work item per warp against the key-block
    loop's runs says what an item's boundary costs. The consumers' code is the part before the producer's
    setmaxnreg.dec (USETMAXREG.DEALLOC)."""
    import collections

    rows = source_rows(csv_path, "--segments")
    if rows is None:
        return 2
    stalls = [c for c in rows[0] if c and c.startswith("stall_") and "Not Issued" not in c]
    total = sum(num(r[SAMPLES]) for r in rows) or 1.0
    split = next((i for i, r in enumerate(rows) if "DEALLOC" in r["Source"]), len(rows))
    by_count: collections.Counter = collections.Counter()
    runs: list[list] = []
    for i, r in enumerate(rows[:split]):
        e = int(num(r["Instructions Executed"]))
        by_count[e] += num(r[SAMPLES])
        if runs and runs[-1][0] == e:
            runs[-1][2] = i
            runs[-1][3].append(r)
        else:
            runs.append([e, i, i, [r]])
    print(f"{csv_path.name}: {len(rows)} instructions, {total:.0f} samples; consumers {sum(by_count.values()) / total:.1%}, "
          f"producer {1 - sum(by_count.values()) / total:.1%}")
    print("consumers' samples by execution count:")
    for e, v in by_count.most_common(6):
        print(f"  executed {e:>8}: {v / total:6.1%}")
    print("runs of one execution count (first-last instruction):")
    for e, lo, hi, rs in runs:
        s = sum(num(r[SAMPLES]) for r in rs)
        if s / total < min_share:
            continue
        st = collections.Counter({c[6:]: sum(num(r[c]) for r in rs) for c in stalls})
        ops = collections.Counter((r["Source"].split()[1] if r["Source"].strip().startswith("@") else r["Source"].split()[0])
                                  for r in rs if r["Source"].strip())
        print(f"  [{lo:5d}-{hi:5d}] executed {e:>7} x{len(rs):4d} instr {s / total:6.1%}  stalls "
              f"{', '.join(f'{k} {v / total:.1%}' for k, v in st.most_common(3))}  ops "
              f"{', '.join(f'{k} {n}' for k, n in ops.most_common(4))}")
    return 0


def sass_sites(out: Path, tag: str, spec: str, lib: str, top: int = 40) -> None:
    """ncu's warp-state samples per SASS instruction of our kernel (SourceCounters), kept as a report and as
    its source page in CSV; prints the instructions with the most samples and each one's leading stall."""
    import csv
    import io

    rep = out / f"{tag}.ncu-rep"
    cmd = ["ncu", "--section", "SourceCounters", "--section", "WarpStateStats", "--clock-control", "none",
           "--profile-from-start", "off", "--kernel-name", "regex:fa_fwd_kernel", "--target-processes", "all",
           "-f", "-o", str(rep.with_suffix("")), sys.executable, __file__, "x", "--inner", spec, lib]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not rep.exists():
        print(f"{tag}: ncu (SourceCounters) exited {p.returncode}\n{p.stderr[-1500:]}", flush=True)
        return
    q = subprocess.run(["ncu", "-i", str(rep), "--page", "source", "--csv", "--print-source", "sass"],
                       capture_output=True, text=True, timeout=600)
    (out / f"{tag}_sass.csv").write_text(q.stdout)
    head = q.stdout.find('"Address"')  # (a "Kernel Name" line comes first)
    rows = list(csv.DictReader(io.StringIO(q.stdout[head:]))) if head >= 0 else []
    if not rows:
        print(f"{tag}: no source page ({q.returncode}): {q.stderr[-800:]}", flush=True)
        return
    cols = list(rows[0])
    samp = next((c for c in cols if c and "Sampling (All" in c), None)
    if samp is None:
        print(f"{tag}: source page columns {cols[:30]}", flush=True)
        return
    num = lambda v: float(str(v).replace(",", "") or 0) if str(v).replace(",", "").replace(".", "").isdigit() else 0.0
    total = sum(num(r[samp]) for r in rows) or 1.0
    print(f"\n{tag}: {len(rows)} instructions, {total:.0f} samples ({samp}); the top {top}:", flush=True)
    for r in sorted(rows, key=lambda r: -num(r[samp]))[:top]:
        print(f"  {num(r[samp]) / total:6.2%}  {r.get('Address', '')}  {str(r.get('Source', ''))[:90]}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--segments", type=Path, metavar="SASS_CSV",
                    help="CPU only: cut a --sass source page into runs of one execution count (no GPU, no OUT_DIR)")
    ap.add_argument("--families", type=Path, metavar="SASS_CSV",
                    help="CPU only: a --sass source page's samples by opcode family, and each large stall's opcodes")
    ap.add_argument("--sass", action="store_true", help="also sample warp states per SASS instruction of ours")
    ap.add_argument("--items", action="store_true", help="the item trace of each kernel (no ncu): where its SMs idle")
    ap.add_argument("--launches", type=int, default=3, help="--items: single launches traced per kernel")
    ap.add_argument("--trace", action="store_true",
                    help="no ncu: kernel durations and the gaps between back-to-back calls (torch.profiler)")
    ap.add_argument("--inner", nargs=2, metavar=("SHAPE", "LIB"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inner:
        return inner(*a.inner)
    if a.segments:
        return segments(a.segments)
    if a.families:
        return families(a.families)
    if a.out is None:
        ap.error("OUT_DIR is needed (or --segments / --families SASS_CSV)")

    from device_suite import KERNELS, d64_only, shape
    from experiments.build import BuildSpec, build
    from experiments.device import probe
    from kernel_src.knobs import Knobs
    from profiler.metrics import metric_names
    from profiler.ncu import parse_raw_csv

    pairs = [s.rsplit("=", 1) for s in (a.shape or DEFAULT)]
    bad = [s for s in (a.shape or DEFAULT) if "=" not in s or s.rsplit("=", 1)[1] not in KERNELS]
    if bad:
        ap.error(f"--shape takes 'SHAPE=KERNEL' with KERNEL one of scripts/device_suite.py's KERNELS; not {bad}")
    for spec, _ in pairs:
        try:
            shape(spec)
        except (ValueError, KeyError, IndexError) as e:
            ap.error(f"--shape {spec!r}: not a shape like 'B2 H16 N2048 D128 fp16 causal Hkv4' ({str(e).splitlines()[0]})")
    names = sorted({n for _, n in pairs})
    a.out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    if a.items:
        return items(a.out, pairs, a.launches, dev.arch)
    specs = {n: BuildSpec(knobs=Knobs(**KERNELS[n]), arch=dev.arch, dtypes=("float16", "bfloat16"),
                          dims=(64,) if d64_only(n) else (64, 128), causals=(False, True)) for n in names}
    t0 = time.time()
    built = build(list(specs.values()), Path("/tmp/facache/build"))
    print(f"built {len(names)} libraries in {time.time() - t0:.0f} s", flush=True)
    def libraries():
        """(shape, kernel name, library path) of each --shape whose build succeeded."""
        for spec, name in pairs:
            res = built[specs[name].key()]
            if res.ok:
                yield spec, name, str(res.library)
            else:
                print(f"{name}: build failed\n{res.log[-1500:]}", flush=True)

    if a.trace:
        rows = []
        for spec, name, lib in libraries():
            r = {**trace(spec, lib), "ours_name": name}
            rows.append(r)
            for arm in ("cudnn", "ours"):
                x = r[arm]
                ev = sorted(x["event_us_per_call"])
                each = ", ".join(f"{k[:48]} {v:.2f} us" for k, v in x["kernel_us_median_by_name"].items())
                print(f"{spec} {arm:5s} {name if arm == 'ours' else '':34s} gap median {x['gap_us_median']:.2f} us "
                      f"(min {x['gap_us_min']:.2f}, {x['overlapping']} overlap of {x['n']}), events "
                      f"{ev[len(ev) // 2]:.2f} us a call; kernels (median): {each}", flush=True)
        (a.out / "trace.json").write_text(json.dumps(rows, indent=1))
        return 0
    metrics = ",".join(dict.fromkeys([*metric_names(dev.arch).values(), *EXTRA]))
    table = []
    for spec, name, lib in libraries():
        cmd = ["ncu", "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
               "--profile-from-start", "off", "--metrics", metrics, "--target-processes", "all",
               sys.executable, __file__, "x", "--inner", spec, lib]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ})
        tag = spec.replace(" ", "_") + "__" + name  # (the device's copy-back refuses '=' in a name)
        (a.out / f"{tag}.csv").write_text(p.stdout)
        if a.sass:
            sass_sites(a.out, tag, spec, lib)
        if p.returncode != 0:
            print(f"{spec}: ncu exited {p.returncode}\n{p.stderr[-2000:]}", flush=True)
            continue
        for r in parse_raw_csv(p.stdout):
            v = r
            row = {"shape": spec, "ours": name, "kernel": r.get("Kernel Name", "?")}
            for key in ("launch__grid_size", "launch__block_size", "launch__registers_per_thread",
                        "launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_static",
                        "launch__waves_per_multiprocessor", "launch__occupancy_limit_registers",
                        "launch__occupancy_limit_shared_mem", "launch__cluster_dim_x", "gpu__time_duration.sum",
                        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                        "smsp__issue_active.avg.pct_of_peak_sustained_active",
                        "sm__warps_active.avg.per_cycle_active", "sm__cycles_active.avg", "gpc__cycles_elapsed.max",
                        "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                        "sm__inst_executed_pipe_tensor_op_gmma.sum", "smsp__inst_executed.sum",
                        "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_xu.sum",
                        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                        "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__throughput.avg.pct_of_peak_sustained_active"):
                row[key] = v.get(key)
            row["stalls"] = {k.split("stalled_")[1].split("_per")[0]: v[k] for k in v
                             if "issue_stalled" in k and isinstance(v[k], float)}
            table.append(row)
        print(f"{spec}: profiled in {time.time() - t0:.0f} s", flush=True)
    (a.out / "anatomy.json").write_text(json.dumps(table, indent=1, default=str))
    for r in table:
        top = sorted(r["stalls"].items(), key=lambda kv: -kv[1])[:4]
        print(f"\n{r['shape']}  [{r['ours']}]\n  {str(r['kernel'])[:150]}\n"
              f"  grid {r['launch__grid_size']} block {r['launch__block_size']} regs {r['launch__registers_per_thread']} "
              f"smem {r['launch__shared_mem_per_block_dynamic']}+{r['launch__shared_mem_per_block_static']} "
              f"waves {r['launch__waves_per_multiprocessor']} cluster {r['launch__cluster_dim_x']} "
              f"occ-limit regs/smem {r['launch__occupancy_limit_registers']}/{r['launch__occupancy_limit_shared_mem']}\n"
              f"  {r['gpu__time_duration.sum']} ns, tensor {r['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active']}%, "
              f"issue {r['smsp__issue_active.avg.pct_of_peak_sustained_active']}%, warps/SM "
              f"{r['sm__warps_active.avg.per_cycle_active']}, SM active {r['sm__cycles_active.avg']} of "
              f"{r['gpc__cycles_elapsed.max']} cycles, DRAM r/w {r['dram__bytes_read.sum']}/{r['dram__bytes_write.sum']} B, "
              f"L2 {r['lts__t_bytes.sum']} B, gmma {r['sm__inst_executed_pipe_tensor_op_gmma.sum']}, inst "
              f"{r['smsp__inst_executed.sum']}, shared wavefronts {r['l1tex__data_pipe_lsu_wavefronts_mem_shared.sum']} "
              f"(HGMMA {r['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum']}), L1TEX "
              f"{r['l1tex__throughput.avg.pct_of_peak_sustained_active']}%\n  stalls {', '.join(f'{k} {x:.2f}' for k, x in top)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
