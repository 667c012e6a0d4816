"""A lead, not a change: the streamed last round's share q (kernel_src/fa_fwd.cu: last_round_stream) chosen with every
partial that an item's last CTA merges counted, beside the launch's model of today, which counts one.

Today: q = ceil(R nkv / G) where q + 1.5 x 2 + 0.6 D/128 + 2 <= 0.85 nkv. Counted: an item's blocks lie in up to
ceil(nkv / q) + 1 shares (nkv / q where q divides nkv and the shares start on its blocks), and the CTA that ends it
merges all but one of them, 0.6 D/128 blocks each; q is the least share or a larger divisor nkv / 2^k, whichever costs
less. The grid is 132 CTAs (one a SM on an H100 or H200); BR 128 at D=128 and 192 at D=64 as the suite's kernels.
Usage: python3 results/2026-12-07_cpu_stream_share/share_model.py > results/2026-12-07_cpu_stream_share/share_model.txt
"""
G = 132


def today(items: int, nkv: int, D: int) -> tuple[int, int]:
    r = items % G
    if items <= G or r == 0:
        return 0, 0
    q = (r * nkv + G - 1) // G
    return (r, q) if q + 3.0 + 0.6 * D / 128 + 2.0 <= 0.85 * nkv else (0, 0)


def merges(nkv: int, q: int) -> int:
    return nkv // q - 1 if nkv % q == 0 else (nkv + q - 1) // q


def counted(items: int, nkv: int, D: int) -> tuple[int, int, float]:
    r = items % G
    if items <= G or r == 0:
        return 0, 0, 0.0
    m = 0.6 * D / 128
    least = (r * nkv + G - 1) // G
    best = (least, least + 5.0 + m * merges(nkv, least))
    for k in range(1, 6):
        s = nkv >> k
        if s >= least and nkv % s == 0 and s + 5.0 + m * merges(nkv, s) < best[1]:
            best = (s, s + 5.0 + m * merges(nkv, s))
    return (r, best[0], best[1]) if best[1] <= 0.85 * nkv else (0, 0, best[1])


SHAPES = [(2, 16, 8192, 128), (1, 16, 32768, 128), (4, 16, 4096, 128), (2, 16, 8192, 64), (2, 16, 2048, 128)]
print("shape | items | nkv | today: R, q, partials an item's end merges | counted: R, q, merges, share's cost in blocks")
for B, H, N, D in SHAPES:
    br = 128 if D == 128 else 192
    items, nkv = B * H * -(-N // br), N // 128
    r0, q0 = today(items, nkv, D)
    r1, q1, c1 = counted(items, nkv, D)
    print(f"B{B} H{H} N{N} D{D} | {items} | {nkv} | {r0}, {q0}, {merges(nkv, q0) if q0 else '-'} | "
          f"{r1}, {q1}, {merges(nkv, q1) if q1 else '-'}, {c1:.1f}")
