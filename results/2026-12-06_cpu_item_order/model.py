"""Greedy claims of N512 D64's items by 132 persistent CTAs: 256 heads x (two full items of 192 rows, one short of
128), in launch order (a head's tiles in turn) or tile by tile (every head's full tiles first). A full item takes 1.0,
a short one s, each +-3% at random; each CTA takes the next item when it is free. Prints the idle end (1 - average
busy / makespan) and the makespan ratio, averaged over 20 seeds.   python3 model.py"""
import heapq
import random
import statistics


def run(order, s, jit=0.03, seed=0, ctas=132):
    rnd = random.Random(seed)
    free = [(0.0, c) for c in range(ctas)]
    heapq.heapify(free)
    busy = [0.0] * ctas
    for kind in order:
        t, c = heapq.heappop(free)
        d = (1.0 if kind == "full" else s) * (1 + rnd.uniform(-jit, jit))
        busy[c] += d
        heapq.heappush(free, (t + d, c))
    return max(t for t, _ in free), statistics.mean(busy)


launch = ["full", "full", "short"] * 256
tiles = ["full"] * 512 + ["short"] * 256
for s in (0.67, 0.8, 0.9):
    a = [run(launch, s, seed=k) for k in range(20)]
    b = [run(tiles, s, seed=k) for k in range(20)]
    ma, mb = statistics.mean(m for m, _ in a), statistics.mean(m for m, _ in b)
    avg = statistics.mean(x for _, x in a)
    print(f"s={s}: busy {avg:.3f}; launch order makespan {ma:.3f} (idle {1 - avg / ma:.3f}); "
          f"tile by tile {mb:.3f} (idle {1 - avg / mb:.3f}); ratio {ma / mb:.4f}")
