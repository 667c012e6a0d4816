"""Where a warp-specialised kernel's SMs idle, item by item: kernel_src/trace.cuh's records (FA_ITEM_TRACE=1, an
instrument no knob reaches) of one launch, read as each CTA's start, its items (begun and done, per consumer
warpgroup) and its end, on the global timer. `summarise` gives the kernel's span (the first CTA's start to the last
item's end) and, averaged over the CTAs, the share of it spent before the CTA started, between its start and its
first item, between items, and after its last item; the items per CTA (least, most); what an item costs by its query
tile (warpgroup 0's begun-to-done); and where the build writes the marks inside an item, what each phase of an item
costs by query tile: begun to its Q in shared memory, Q to its first K block, first K to its last PV done, and the
epilogue (the last PV done to the item done).

The records come from a GPU: `scripts/device_anatomy.py OUT_DIR --items --shape 'SPEC=KERNEL'...` builds each kernel
with the trace, traces single launches and writes OUT_DIR/trace.json.gz. On the CPU, the summaries again:

    python3 -m profiler.item_trace OUT_DIR/trace.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path

RECORD = 16  # bytes: kernel_src/trace.cuh's TraceRecord (t u64, who u32, what u32)
CAP = 1 << 18  # kernel_src/trace.cuh's TRACE_CAP
BEGIN, END, CTA, MARK = 0, 1, 2, 3
# kernel_src/trace.cuh's marks inside an item, in the order an item passes them, and the phases between them
MARKS = (1, 2, 3)  # MARK_Q_READY, MARK_K0_READY, MARK_MAIN_DONE
PHASES = ("to Q", "Q to first K", "first K to last PV", "epilogue")


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

    phases: dict[int, list[list[int]]] = {}  # query tile -> per phase, warpgroup 0's durations (ns)
    for c in ctas:
        ev = sorted((t, e, q, bh) for t, cc, _sm, w, e, q, bh in records if cc == c and w == 0 and e in (BEGIN, END, MARK))
        begun, marks, tile = None, {}, 0
        for t, e, q, bh in ev:
            if e == BEGIN:
                begun, marks, tile = t, {}, q
            elif e == MARK and begun is not None:
                marks[bh] = t
            elif e == END and begun is not None:
                if all(m in marks for m in MARKS):
                    at = [begun] + [marks[m] for m in MARKS] + [t]
                    per = phases.setdefault(tile, [[] for _ in PHASES])
                    for i in range(len(PHASES)):
                        per[i].append(at[i + 1] - at[i])
                begun = None

    def share(x):
        return round(statistics.fmean(x) / span, 4)

    return {"span_us": round(span / 1e3, 2), "ctas": len(counts),
            "share_before_start": share(before), "share_start_to_first_item": share(prologue),
            "share_between_items": share(gaps), "share_after_last_item": share(after),
            "items_per_cta": [min(counts), max(counts)], "items": sum(counts),
            "item_us_by_tile": {q: [round(statistics.median(v), 2), len(v)] for q, v in sorted(by_tile.items())},
            "last_ends_us": [round((t1 - max(e for w in range(4) for _, e, _ in items.get((c, w), []))) / 1e3, 2)
                             for c in ctas if items.get((c, 0))],
            **({"phase_us_by_tile": {q: [round(statistics.median(v) / 1e3, 2) for v in per]
                                     for q, per in sorted(phases.items())}} if phases else {})}


def line(name: str, s: dict) -> str:
    """One launch's summary as the device call prints it."""
    tiles = ", ".join(f"tile {q}: {v[0]} us x{v[1]}" for q, v in s["item_us_by_tile"].items())
    return (f"{name}: span {s['span_us']} us over {s['ctas']} CTAs ({s['items']} items, {s['items_per_cta'][0]}-"
          f"{s['items_per_cta'][1]} a CTA); shares of the span, CTA average: before its start "
          f"{s['share_before_start']:.3f}, start to first item {s['share_start_to_first_item']:.3f}, between items "
          f"{s['share_between_items']:.3f}, after its last item {s['share_after_last_item']:.3f}; {tiles}" +
          "".join(f"; tile {q} phases (us): " + ", ".join(f"{n} {v}" for n, v in zip(PHASES, ph))
                  for q, ph in s.get("phase_us_by_tile", {}).items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The item trace's summaries again from a recorded trace.json.gz (CPU).")
    ap.add_argument("trace", type=Path, help="OUT_DIR/trace.json.gz of scripts/device_anatomy.py --items")
    a = ap.parse_args(argv)
    try:
        runs = json.loads(gzip.decompress(a.trace.read_bytes()))["runs"]
    except (OSError, ValueError, KeyError) as e:
        ap.error(f"{a.trace}: not a trace.json.gz of scripts/device_anatomy.py --items ({e})")
    for run in runs:
        for i, recs in enumerate(run["records"]):
            print(line(f"{run['kernel']} launch {i + 1}", summarise(recs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
