"""How close any schedule of today's items can come to cuDNN at B16 H16 N512 D64 fp16 (CPU only).

The item costs are `../2026-12-03_cpu_round_order/schedule_model.py`'s, read off recorded ncu counters
(`../2026-12-03_h200_tail_rows/call1/an.tgz`): F, a full item of the three-warpgroup kernel (BR 192, with the idle tail
warpgroup, tail_rows=skip), and T, an item of a head's last query tile, whose third warpgroup has no row before N. 256
heads x 3 tiles = 512 F items and 256 T items on 132 CTAs. The best makespan of ANY assignment of them (not only the
round orders the kernel has) is found exactly: for a makespan M, a CTA can hold f full items and t tail items when
f F + t T <= M, and a dynamic programme over the CTAs finds whether 132 of them hold 512 and 256. Printed beside the
recorded cuDNN elapsed cycles, with the recorded dead time (elapsed - busiest SM) of our kernel added, and the per-item
cost cut that would take the best schedule to cuDNN's elapsed; then the same for items of 128 rows (two consumer
warpgroups, 1024 items, no tail) as a function of their cost.

    python3 results/2026-12-04_cpu_n512_bound/bound.py
"""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-03_cpu_round_order"))
import schedule_model as sm  # noqa: E402

G = sm.G


def holds(m: float, f: float, t: float, nf: int, nt: int, g: int = G) -> bool:
    """Whether g CTAs, each running at most m cycles, hold nf items of cost f and nt of cost t."""
    best = [-1] * (nf + 1)  # best[k]: the most tail items g' CTAs hold beside k full ones (-1: k not reachable)
    best[0] = 0
    for _ in range(g):
        nxt = [-1] * (nf + 1)
        for k, tails in enumerate(best):
            if tails < 0:
                continue
            fi = 0
            while fi * f <= m:
                kk = min(nf, k + fi)
                room = int((m - fi * f) // t)
                if tails + room > nxt[kk]:
                    nxt[kk] = tails + room
                fi += 1
        best = nxt
    return best[nf] >= nt


def best_makespan(f: float, t: float, nf: int, nt: int) -> float:
    """The least m with holds(m): it is a sum a f + b t, so search those sums in order."""
    sums = sorted({a * f + b * t for a in range(0, 10) for b in range(0, 10)})
    lo = (nf * f + nt * t) / G
    for m in sums:
        if m >= lo and holds(m, f, t, nf, nt):
            return m
    raise ValueError("no makespan under 10 items a CTA")


def main() -> int:
    base = "an/B16_H16_N512_D64_fp16__ws3_lazy_qp_ot_pm"
    rec = {}
    for tag, member in (("compute", base + ".csv"), ("skip", base + "_ts.csv")):
        for r in sm.ncu_rows(member):
            rec["cuDNN" if r["Kernel Name"].startswith("cudnn") else tag] = sm.counters(r)
    plain, skip, cudnn = rec["compute"], rec["skip"], rec["cuDNN"]
    total, per = 768, math.ceil(768 / G)
    f, t = skip["max"] / per, skip["min"] / (total // G)
    print(f"items: 512 full (F = {f:.0f} cycles) and 256 tail (T = {t:.0f}, {t / f:.2f} F) on {G} CTAs "
          f"(F and T as schedule_model.py reads them); cuDNN recorded: elapsed {cudnn['elapsed']:.0f}, busiest SM "
          f"{cudnn['max']:.0f}, dead {cudnn['dead']:.0f}; ours dead {skip['dead']:.0f}")
    avg = (512 * f + 256 * t) / G
    m = best_makespan(f, t, 512, 256)
    turned = max(sm.per_cta(512, 192, 256, "launch", "turned", True, f, t))
    print(f"  average load {avg:.0f}; the best makespan of any assignment {m:.0f} (turned rounds: {turned:.0f})")
    el = m + skip["dead"]
    print(f"  with our dead time: elapsed {el:.0f}, cuDNN's / ours {cudnn['elapsed'] / el:.3f}")
    # the per-item cost cut (F and T alike) that brings the best assignment's elapsed to cuDNN's
    cut = (cudnn["elapsed"] - skip["dead"]) / m
    print(f"  to reach cuDNN's elapsed the items must cost {cut:.3f} of today's (a cut of {100 * (1 - cut):.1f}%)")
    print(f"  the same with no tail (T = F: the skip's saving gone): best makespan "
          f"{best_makespan(f, f, 512, 256):.0f}")
    print("\nitems of 128 rows (two consumer warpgroups, 4 tiles a head, 1024 items, none short):")
    need = (cudnn["elapsed"] - skip["dead"]) / math.ceil(1024 / G)
    print(f"  the busiest CTA runs {math.ceil(1024 / G)} items (average {1024 / G:.2f}); to reach cuDNN's elapsed with "
          f"our dead time an item must cost at most {need:.0f} cycles, {need / (f * 128 / 192):.3f} of two thirds of F "
          f"(the three-warpgroup kernel's cost per row)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
