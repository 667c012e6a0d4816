"""The static persistent schedule of the warp-specialised mainloop, per CTA, from recorded ncu counters (CPU only).

Reads the ncu rows of `../2026-12-03_h200_tail_rows/call1/an.tgz` (B16 H16 N512 D64 fp16, ws3_lazy_qp_ot_pm with and
without tail_rows=skip, SDPA cuDNN beside each) and prints, for each kernel, the elapsed cycles, the SM active cycles
(average, busiest and idlest SM), the dead time (elapsed - busiest SM: no SM has a warp) and the imbalance (busiest -
average). Then a model of the schedule: CTA c of a grid of G runs item r G + c of round r (round_order: in place), or
r G + (c + r) mod G (turned), or r G + G - 1 - c in odd rounds (snake), each decoded as scheduler.cuh does (launch
order or heaviest first); an item costs F, or T when
its query tile leaves a consumer warpgroup without a row before N and that warpgroup sits out (tail_rows=skip). F and T
are read off the recorded rows (F: the busiest SM of the kernel without the skip over its 6 items; T: the idlest SM of
the kernel with it, which runs 5 tail items), the model's busiest / idlest / average SM set beside the recorded ones,
and its prediction for the orders not yet run. Last, the same schedules under a causal mask, an item costing its key
blocks plus a fixed share of one block (0, 0.5 or 1: the item's start and end), the busiest CTA over the average.

    python3 results/2026-12-03_cpu_round_order/schedule_model.py
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


ROUNDS = ("in_place", "turned", "snake")


def items_of(c: int, total: int, rounds: str, g: int = G) -> list[int]:
    """CTA c's items, round after round, as fa_fwd.cu's static persistent loop takes them on a grid of g."""
    out, r = [], 0
    while r * g < total:
        j = {"in_place": c, "turned": (c + r) % g, "snake": g - 1 - c if r % 2 else c}[rounds]
        if r * g + j < total:
            out.append(r * g + j)
        r += 1
    return out


def per_cta(n: int, br: int, bh: int, order: str, rounds: str, skip: bool, f: float, t: float) -> list[float]:
    """Each CTA's summed item cost: an item of the last query tile costs t when its last consumer warpgroup (64 rows)
    lies wholly past N and sits out (skip), else f."""
    tiles = math.ceil(n / br)
    tail_idle = (tiles * br - n) >= 64  # the last tile leaves a warpgroup without a row
    cost = lambda q: t if (skip and tail_idle and q == tiles - 1) else f
    total = tiles * bh
    return [sum(cost(decode(i, tiles, bh, order)[0]) for i in items_of(c, total, rounds)) for c in range(G)]


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
        s = per_cta(n, br, bh, "launch", "in_place", tag == "skip", ff, t)
        print(f"  tail_rows={tag:8s} busiest {max(s):7.0f} (recorded {c['max']:.0f})  idlest {min(s):7.0f} "
              f"(recorded {c['min']:.0f})  average {sum(s) / G:7.0f} (recorded {c['avg']:.0f})")
    print("\nwhy: 132 = 44 x 3, so in launch order CTA c takes query tile c mod 3 of every head in every round; the 44 CTAs "
          "of tile 2 run every tail item, and the skip shortens only them")
    print("\nprediction, busiest SM (the kernel's end) and its ratio to today's kernel with the skip, F and T as above:")
    print(f"  {'order':15s} {'rounds':8s} {'tail_rows':9s} {'busiest':>8s} {'vs launch+skip':>15s} {'+ dead, vs cuDNN elapsed':>26s}")
    for order in ("launch", "heaviest_first"):
        for rounds in ROUNDS:
            for sk in (False, True):
                s = per_cta(n, br, bh, order, rounds, sk, f_skip if sk else f, t)
                el = max(s) + skip["dead"]
                print(f"  {order:15s} {rounds:8s} {'skip' if sk else 'compute':9s} "
                      f"{max(s):8.0f} {skip['max'] / max(s):15.3f} {rec['cuDNN']['elapsed'] / el:26.3f}")
    print("\nother suite shapes on the same kernels (BR 192, G 132), busiest CTA in items of cost F (T = "
          f"{t / f_skip:.2f} F):")
    for name, n2, bh2 in (("B8 H16/4 N2048 D64", 2048, 8 * 16), ("B2 H16 N8192 D64", 8192, 2 * 16),
                          ("B16 H16 N512 D64", 512, 16 * 16)):
        tiles = math.ceil(n2 / br)
        cells = []
        for rounds in ROUNDS:
            s = per_cta(n2, br, bh2, "launch", rounds, True, 1.0, t / f_skip)
            cells.append(f"{rounds} {max(s):.2f}")
        print(f"  {name:20s} tiles {tiles:3d} (G mod tiles = {G % tiles:3d}), items {tiles * bh2:5d}, launch + skip: "
              + ", ".join(cells))
    causal()
    return 0


def causal() -> None:
    """Heaviest first under a causal mask: each round's items lighten from its first CTA to its last."""
    print("\ncausal, heaviest first, the busiest CTA over the average (an item: its key blocks + a fixed share of one):")
    print(f"  {'shape (kernel tile)':38s} {'items':>6s} " + " ".join(f"{r + ' +' + str(o):>14s}" for r in ROUNDS
                                                              for o in (0, 0.5, 1)))
    for name, n, br, bc, bh in (("B8 H32/8 N1024 D128 (128 x 128)", 1024, 128, 128, 8 * 32),
                                ("B2 H16 N8192 D128 (128 x 128)", 8192, 128, 128, 2 * 16),
                                ("B1 H32/4 N16384 D128 (128 x 176)", 16384, 128, 176, 32),
                                ("B2 H16 N4096 D64 (192 x 128)", 4096, 192, 128, 2 * 16)):
        tiles = math.ceil(n / br)
        total = tiles * bh
        cells = []
        for rounds in ROUNDS:
            for over in (0, 0.5, 1):
                cost = lambda q: min(math.ceil((q + 1) * br / bc), math.ceil(n / bc)) + over
                s = [sum(cost(decode(i, tiles, bh, "heaviest_first")[0]) for i in items_of(c, total, rounds))
                     for c in range(G)]
                cells.append(f"{max(s) / (sum(s) / G):14.3f}")
        print(f"  {name:38s} {total:6d} " + " ".join(cells))
    # the one causal persistent kernel recorded with these counters (heaviest first, rounds in place)
    for r in ncu_rows("an/B8_H32_N1024_D128_bf16_causal_Hkv8__ws_op_lazy_qp_hf_w_ot_pk.csv"):
        if not r["Kernel Name"].startswith("cudnn"):
            c = counters(r)
            print(f"  recorded, ws_op_lazy_qp_hf_w_ot_pk at B8 H32/8 N1024 D128 causal: busiest SM / average "
                  f"{c['max'] / c['avg']:.3f} (the model, in place: the first row's)")


if __name__ == "__main__":
    sys.exit(main())
