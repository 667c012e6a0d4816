"""The static persistent schedule of the warp-specialised mainloop, per CTA, from recorded ncu counters (CPU only).

Reads the ncu rows of `../2026-12-03_h200_tail_rows/call1/an.tgz` (B16 H16 N512 D64 fp16, ws3_lazy_qp_ot_pm with and
without tail_rows=skip, SDPA cuDNN beside each) and prints, for each kernel, the elapsed cycles, the SM active cycles
(average, busiest and idlest SM), the dead time (elapsed - busiest SM: no SM has a warp) and the imbalance (busiest -
average). Then a model of the schedule: CTA c of a grid of G runs items c, c + G, ... (turned: in round r the item
r G + (c + r) mod G), each decoded as scheduler.cuh does (launch order or heaviest first); an item costs F, or T when
its query tile leaves a consumer warpgroup without a row before N and that warpgroup sits out (tail_rows=skip). F and T
are read off the recorded rows (F: the busiest SM of the kernel without the skip over its 6 items; T: the idlest SM of
the kernel with it, which runs 5 tail items), the model's busiest / idlest / average SM set beside the recorded ones,
and its prediction for the orders not yet run.

    python3 results/2026-12-03_cpu_turned_rounds/schedule_model.py
"""
import csv
import io
import math
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
AN = HERE.parent / "2026-12-03_h200_tail_rows" / "call1" / "an.tgz"
G = 132  # the H200's SMs: the persistent grid, one CTA an SM


def ncu_rows(member: str) -> list[dict]:
    with tarfile.open(AN) as tf:
        text = tf.extractfile(member).read().decode()
    lines = [x for x in text.splitlines() if x.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    head, units, data = table[0], table[1], table[2:]
    def num(v: str):
        try:
            return float(v.replace(",", ""))
        except ValueError:
            return v
    return [dict(zip(head, map(num, row))) for row in data]


def counters(r: dict) -> dict:
    el, avg = r["gpc__cycles_elapsed.max"], r["sm__cycles_active.avg"]
    mx, mn = r["sm__cycles_active.max"], r["sm__cycles_active.min"]
    return {"us": r["gpu__time_duration.sum"] / 1000, "elapsed": el, "avg": avg, "max": mx, "min": mn,
            "dead": el - mx, "imbalance": mx - avg}


def decode(i: int, tiles: int, bh: int, order: str) -> tuple[int, int]:
    """(query tile, head) of item i, as scheduler.cuh's decode<K> (one split)."""
    if order == "heaviest_first":
        return tiles - 1 - i // bh, i % bh
    return i % tiles, (i // tiles) % bh


def items_of(c: int, total: int, turned: bool) -> list[int]:
    out, r = [], 0
    while r * G < total:
        i = r * G + ((c + r) % G if turned else c)
        if i < total:
            out.append(i)
        r += 1
    return out


def per_cta(n: int, br: int, bh: int, order: str, turned: bool, skip: bool, f: float, t: float) -> list[float]:
    """Each CTA's summed item cost: an item of the last query tile costs t when its last consumer warpgroup (64 rows)
    lies wholly past N and sits out (skip), else f."""
    tiles = math.ceil(n / br)
    tail_idle = (tiles * br - n) >= 64  # the last tile leaves a warpgroup without a row
    cost = lambda q: t if (skip and tail_idle and q == tiles - 1) else f
    total = tiles * bh
    return [sum(cost(decode(i, tiles, bh, order)[0]) for i in items_of(c, total, turned)) for c in range(G)]


def main() -> int:
    base = "an/B16_H16_N512_D64_fp16__ws3_lazy_qp_ot_pm"
    rows = {"compute": ncu_rows(base + ".csv"), "skip": ncu_rows(base + "_ts.csv")}
    print("recorded (ncu, ../2026-12-03_h200_tail_rows/call1/an.tgz), B16 H16 N512 D64 fp16, cycles:")
    rec = {}
    for tag, rs in rows.items():
        for r in rs:
            who = "cuDNN" if r["Kernel Name"].startswith("cudnn") else f"ws3_lazy_qp_ot_pm, tail_rows={tag}"
            c = counters(r)
            rec[who] = c
            print(f"  {who:38s} {c['us']:6.2f} us  elapsed {c['elapsed']:7.0f}  SM active avg {c['avg']:7.0f} "
                  f"busiest {c['max']:7.0f} idlest {c['min']:7.0f}  dead {c['dead']:6.0f}  imbalance {c['imbalance']:6.0f}")
    plain, skip = rec["ws3_lazy_qp_ot_pm, tail_rows=compute"], rec["ws3_lazy_qp_ot_pm, tail_rows=skip"]
    n, br, bh = 512, 192, 16 * 16
    total = math.ceil(n / br) * bh
    f = plain["max"] / math.ceil(total / G)  # the busiest CTA runs ceil(items / G) full items
    t = skip["min"] / (total // G)  # the idlest CTA of the skipping kernel: total // G tail items (launch order)
    f_skip = skip["max"] / math.ceil(total / G)
    print(f"\nitems {total} on {G} CTAs; F = {f:.0f} (busiest SM / {math.ceil(total / G)}), F with the skip = {f_skip:.0f}, "
          f"T = {t:.0f} (idlest SM of the skipping kernel / {total // G})")
    print("\nmodel against the record (launch order, rounds not turned):")
    for tag, c, ff in (("compute", plain, f), ("skip", skip, f_skip)):
        s = per_cta(n, br, bh, "launch", False, tag == "skip", ff, t)
        print(f"  tail_rows={tag:8s} busiest {max(s):7.0f} (recorded {c['max']:.0f})  idlest {min(s):7.0f} "
              f"(recorded {c['min']:.0f})  average {sum(s) / G:7.0f} (recorded {c['avg']:.0f})")
    print("\nwhy: 132 = 44 x 3, so in launch order CTA c takes query tile c mod 3 of every head in every round; the 44 CTAs "
          "of tile 2 run every tail item, and the skip shortens only them")
    print("\nprediction, busiest SM (the kernel's end) and its ratio to today's kernel with the skip, F and T as above:")
    print(f"  {'order':15s} {'rounds':8s} {'tail_rows':9s} {'busiest':>8s} {'vs launch+skip':>15s} {'+ dead, vs cuDNN elapsed':>26s}")
    for order in ("launch", "heaviest_first"):
        for turned in (False, True):
            for sk in (False, True):
                s = per_cta(n, br, bh, order, turned, sk, f_skip if sk else f, t)
                el = max(s) + skip["dead"]
                print(f"  {order:15s} {'turned' if turned else 'in place':8s} {'skip' if sk else 'compute':9s} "
                      f"{max(s):8.0f} {skip['max'] / max(s):15.3f} {rec['cuDNN']['elapsed'] / el:26.3f}")
    print("\nother suite shapes on the same kernels (BR 192, G 132), busiest CTA in items of cost F (T = "
          f"{t / f_skip:.2f} F):")
    for name, n2, bh2 in (("B8 H16/4 N2048 D64", 2048, 8 * 16), ("B2 H16 N8192 D64", 8192, 2 * 16),
                          ("B16 H16 N512 D64", 512, 16 * 16)):
        tiles = math.ceil(n2 / br)
        cells = []
        for turned in (False, True):
            s = per_cta(n2, br, bh2, "launch", turned, True, 1.0, t / f_skip)
            cells.append(f"{'turned' if turned else 'in place'} {max(s):.2f}")
        print(f"  {name:20s} tiles {tiles:3d} (G mod tiles = {G % tiles:3d}), items {tiles * bh2:5d}, launch + skip: "
              + ", ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
