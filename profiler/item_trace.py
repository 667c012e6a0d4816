"""Where a warp-specialised kernel's SMs idle, item by item (on a GPU, a device tool like scripts/device_anatomy.py): kernel_src/trace.cuh's records (FA_ITEM_TRACE=1, an
instrument no knob reaches) of one launch, read as each CTA's start, its items (begun and done, per consumer
warpgroup) and its end, on the global timer.

    python3 -m profiler.item_trace OUT_DIR --shape 'B16 H16 N512 D64 fp16' --kernel NAME [--kernel NAME]... [--launches 3]

Each --kernel is one of scripts/device_suite.py's KERNELS (the warp-specialised mainloop's), built with the trace
on. After a warm-up, each of `--launches` single launches is traced on its own (the records cleared before it) and
read by `summarise`: the kernel's span (the first CTA's start to the last item's end), and averaged over the CTAs
the share of it spent before the CTA started, between its start and its first item, between items, and after its
last item; the items per CTA (least, most); what an item costs by its query tile (warpgroup 0's begun-to-done).
Writes OUT_DIR/trace.json.gz (every launch's records and summary) and prints a table. Each launch is also timed with
the trace built in, beside the same kernel built without it, so that what the instrument costs is on record.

    python3 -m profiler.item_trace --summarise OUT_DIR/trace.json.gz

CPU only: the summaries again from the recorded records.
"""

from __future__ import annotations

import argparse
import ctypes
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))  # device_suite's kernels and shapes

RECORD = 16  # bytes: kernel_src/trace.cuh's TraceRecord (t u64, who u32, what u32)
CAP = 1 << 18  # kernel_src/trace.cuh's TRACE_CAP
BEGIN, END, CTA = 0, 1, 2


def decode(raw: bytes, n: int) -> list[tuple[int, int, int, int, int, int, int]]:
    """(t ns, CTA, SM, warpgroup, event, query tile, head) of each record written among the first `n` slots."""
    import struct

    out = []
    for i in range(n):
        t, who, what = struct.unpack_from("<QII", raw, i * RECORD)
        if t == 0:  # an empty slot
            continue
        out.append((t, who >> 16, (who >> 8) & 0xFF, (who >> 2) & 3, who & 3, what >> 16, what & 0xFFFF))
    return out


def summarise(records: list) -> dict:
    """One launch's records -> the span (us) and where each CTA's time went (shares of the span, averaged over CTAs),
    the items per CTA and warpgroup 0's item cost by query tile (median us)."""
    start = {r[1]: r[0] for r in records if r[4] == CTA}
    items: dict[tuple[int, int], list] = {}  # (CTA, warpgroup) -> [(begin, end, qt)]
    open_: dict[tuple[int, int], tuple[int, int]] = {}
    for t, cta, _sm, wg, ev, qt, _bh in sorted(records):
        if ev == BEGIN:
            open_[cta, wg] = (t, qt)
        elif ev == END and (cta, wg) in open_:
            b, q = open_.pop((cta, wg))
            items.setdefault((cta, wg), []).append((b, t, q))
    t0 = min(start.values())
    t1 = max(e for v in items.values() for _, e, _ in v)
    span = t1 - t0
    ctas = sorted(start)
    before, prologue, gaps, after, counts = [], [], [], [], []
    for c in ctas:
        mine = items.get((c, 0), [])
        if not mine:
            continue
        ends = [e for w in range(4) for _, e, _ in items.get((c, w), [])]
        before.append(start[c] - t0)
        prologue.append(mine[0][0] - start[c])
        gaps.append(sum(b2 - e1 for (_, e1, _), (b2, _, _) in zip(mine, mine[1:])))
        after.append(t1 - max(ends))
        counts.append(len(mine))
    by_tile: dict[int, list[float]] = {}
    for (c, w), v in items.items():
        if w == 0:
            for b, e, q in v:
                by_tile.setdefault(q, []).append((e - b) / 1e3)

    def share(x):
        return round(statistics.fmean(x) / span, 4)

    return {"span_us": round(span / 1e3, 2), "ctas": len(counts),
            "share_before_start": share(before), "share_start_to_first_item": share(prologue),
            "share_between_items": share(gaps), "share_after_last_item": share(after),
            "items_per_cta": [min(counts), max(counts)], "items": sum(counts),
            "item_us_by_tile": {q: [round(statistics.median(v), 2), len(v)] for q, v in sorted(by_tile.items())},
            "last_ends_us": [round((t1 - max(e for w in range(4) for _, e, _ in items.get((c, w), []))) / 1e3, 2)
                             for c in ctas if items.get((c, 0))]}


def _print(name: str, s: dict) -> None:
    tiles = ", ".join(f"tile {q}: {v[0]} us x{v[1]}" for q, v in s["item_us_by_tile"].items())
    print(f"{name}: span {s['span_us']} us over {s['ctas']} CTAs ({s['items']} items, {s['items_per_cta'][0]}-"
          f"{s['items_per_cta'][1]} a CTA); shares of the span, CTA average: before its start "
          f"{s['share_before_start']:.3f}, start to first item {s['share_start_to_first_item']:.3f}, between items "
          f"{s['share_between_items']:.3f}, after its last item {s['share_after_last_item']:.3f}; {tiles}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--shape", default="B16 H16 N512 D64 fp16")
    ap.add_argument("--kernel", action="append", default=[])
    ap.add_argument("--launches", type=int, default=3)
    ap.add_argument("--summarise", type=Path, help="trace.json.gz of an earlier run: its summaries again (CPU)")
    a = ap.parse_args()
    if a.summarise:
        for run in json.loads(gzip.decompress(a.summarise.read_bytes()))["runs"]:
            for i, recs in enumerate(run["records"]):
                _print(f"{run['kernel']} launch {i + 1}", summarise(recs))
        return 0
    if a.out is None or not a.kernel:
        ap.error("OUT_DIR and at least one --kernel are needed (or --summarise TRACE_JSON)")

    import torch

    from device_suite import KERNELS, shape
    from experiments.build import BuildSpec, build
    from experiments.device import probe
    from kernel_src.binding import KernelLib
    from kernel_src.knobs import Knobs

    bad = [n for n in a.kernel if n not in KERNELS or KERNELS[n].get("mainloop") != "ws"]
    if bad:
        ap.error(f"--kernel takes a warp-specialised kernel of scripts/device_suite.py's KERNELS; not {bad}")
    sh = shape(a.shape)
    dev = probe()
    specs = {(n, tr): BuildSpec(knobs=Knobs(**KERNELS[n]), arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,),
                                causals=(sh.causal,), trace=tr) for n in a.kernel for tr in (True, False)}
    t = time.time()
    built = build(list(specs.values()), Path("/tmp/facache/build"))
    print(f"built {len(specs)} libraries in {time.time() - t:.0f} s", flush=True)
    dt = getattr(torch, sh.dtype)
    g = torch.Generator().manual_seed(7)
    q = torch.randn(sh.B, sh.H, sh.N, sh.D, generator=g).to("cuda", dt)
    k, v = (torch.randn(sh.B, sh.Hkv or sh.H, sh.N, sh.D, generator=g).to("cuda", dt) for _ in range(2))
    o, lse = torch.empty_like(q), torch.empty(sh.B, sh.H, sh.N, device="cuda")
    buf = ctypes.create_string_buffer(CAP * RECORD)
    runs = []
    for n in a.kernel:
        res = {tr: built[specs[n, tr].key()] for tr in (True, False)}
        if not all(r.ok for r in res.values()):
            print(f"{n}: build failed\n{next(r.log for r in res.values() if not r.ok)[-1500:]}", flush=True)
            continue
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
        launches = []
        for _ in range(a.launches):
            torch.cuda._sleep(1_000_000)  # the GPU busy while the launch is queued, as in the paired timing
            libs[True].forward(q, k, v, o, lse, sh.causal)
            torch.cuda.synchronize()
            got = read(buf, CAP)
            if got < 0:
                print(f"{n}: fa_item_trace returned {got}", flush=True)
                break
            launches.append(decode(buf.raw, got))
        print(f"{n}: {ms[False] * 1e3:.2f} us a call without the trace, {ms[True] * 1e3:.2f} us with it", flush=True)
        summaries = [summarise(r) for r in launches]
        for i, s in enumerate(summaries):
            _print(f"{n} launch {i + 1}", s)
        runs.append({"kernel": n, "knobs": KERNELS[n], "us_per_call": {"plain": ms[False] * 1e3, "traced": ms[True] * 1e3},
                     "summaries": summaries, "records": launches})
    a.out.mkdir(parents=True, exist_ok=True)
    doc = {"shape": a.shape, "gpu": torch.cuda.get_device_name(), "runs": runs}
    (a.out / "trace.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
