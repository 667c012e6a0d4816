"""The streamed last round's assignment (last_round=key_stream), its arithmetic as kernel_src/fa_fwd.cu (the static loop)
and mainloop_sm90_ws.cuh (ws_stream_piece) write it, replayed in Python over items 1-299, 1,376, 2,048 and 4,096 on
grids of 7, 64, 114 and 132 CTAs and 1-256 key blocks, with the launch's model and the forced shares of nkv / 2 and
nkv / 8: every key block of the streamed items run once; each CTA at most two pieces, the one that only writes its
partials run first; an item's merging piece's other pieces exactly CTAs first..c-1, each its CTA's one partials slot.
Usage: python3 results/2026-12-06_cpu_static_key_split/stream_cover.py > results/2026-12-06_cpu_static_key_split/stream_cover.txt"""

import itertools
def check(items, G, nkv, R, q):
    whole = items - R
    cover = {}
    outslots = {}
    for c in range(G):
        mine = (whole - 1 - c)//G + 1 if c < whole else 0
        a = c*q; b = min(a+q, R*nkv)
        wb = (b-1)//nkv if a < b else 0
        units = mine + ((wb - a//nkv + 1) if a < b else 0)
        assert units - mine <= 2
        for u in range(mine, units):
            w = wb - (u - mine)
            aa = c*q - w*nkv; lo = max(aa, 0); hi = min(aa+q, nkv); first = w*nkv//q
            assert lo < hi, (c, w)
            for k in range(lo, hi):
                assert (w, k) not in cover; cover[(w, k)] = c
            out_only = hi < nkv
            if out_only:
                assert c not in outslots; outslots[c] = w
                assert u == mine, "out_only piece must run first"
            else:
                others = c - first
                # the other pieces of w are exactly CTAs first..c-1, all out_only for w
                for cc in range(first, c): assert outslots.get(cc) == w or cc > c, (cc, w)
    assert len(cover) == R*nkv
    # every out_only slot's item merged by someone: fine by construction
def model(items, G, nkv, D):
    r = items % G
    if G <= 0 or items <= G or nkv <= 0 or r == 0 or r > 1024: return 0, 0
    share = (r*nkv + G - 1)//G
    return (r, share) if share + 3 + 0.6*D/128 + 2 <= 0.85*nkv else (0, 0)
n = 0
for items in list(range(1, 300)) + [1376, 2048, 4096]:
    for G in (132, 7, 64, 114):
        for nkv in (1, 2, 3, 16, 17, 32, 64, 256):
            Gr = min(items, G)
            R, q = model(items, Gr, nkv, 128)
            if R: check(items, Gr, nkv, R, q); n += 1
            for k in (1, 3):  # forced
                q = max(1, nkv >> k); R = min(items, Gr*q//nkv, 1024)
                if R > 0: check(items, Gr, nkv, R, q); n += 1
print("ok", n)
print(model(2048,132,64,128), model(2048,132,32,128), model(4096,132,256,128), model(1376,132,64,64), model(512,132,16,128))
