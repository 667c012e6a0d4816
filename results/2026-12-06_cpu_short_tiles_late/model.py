"""The greedy-claims model of ../2026-12-06_cpu_item_order (132 persistent CTAs claim N512 D64's items in turn: 256
heads x two full items of 192 rows and one short of 128; a full item takes 1.0, a short one s, each +-3% at random)
with item_order=short_tiles_late: the order decoded by a copy of scheduler.cuh's FA_ITEM_ORDER=2 branch, W = grid / 2
heads (and W = grid for comparison). Checks first that the decode is a bijection on the items of several shapes.
Prints each order's makespan and its ratio over launch order, averaged over 20 seeds.   python3 model.py"""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "2026-12-06_cpu_item_order"))
from model import run  # noqa: E402  (prints that record's three lines first)


def decode(i, tiles, bh, grid):
    """(query tile, head) of item i: scheduler.cuh's FA_ITEM_ORDER=2 branch, line for line."""
    t, nh = tiles, bh
    f = t - 1
    w = min(max(grid // 2, 1), nh)
    lead = w * f  # (tiles == 1: no full tile, lead 0)
    if i < lead:
        return i % f, i // f  # the first W heads' full tiles
    j = i - lead
    h = w + j // t
    r = j - (h - w) * t
    if h >= nh:
        return f, nh - w + j - (nh - w) * t  # the last W heads' last tiles
    return (r, h) if r < f else (f, h - w)

for tiles in (1, 2, 3, 5, 43):
    for bh in (1, 2, 7, 65, 66, 67, 256):
        for grid in (1, 2, 132, 170):
            got = {decode(i, tiles, bh, grid) for i in range(tiles * bh)}
            assert got == {(t, h) for t in range(tiles) for h in range(bh)}, (tiles, bh, grid)
print("decode: a bijection on 140 (tiles, heads, grid) cases")

launch = ["full", "full", "short"] * 256
for s in (0.67, 0.8, 0.9):
    base = statistics.mean(run(launch, s, seed=k)[0] for k in range(20))
    row = [f"s={s}: launch order {base:.3f}"]
    for grid, label in ((132, "W=66 (grid/2)"), (264, "W=132")):
        order = ["full" if decode(i, 3, 256, grid)[0] < 2 else "short" for i in range(768)]
        m = statistics.mean(run(order, s, seed=k)[0] for k in range(20))
        row.append(f"{label} {m:.3f} (ratio {base / m:.4f})")
    print("; ".join(row))
