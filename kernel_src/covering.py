"""A pairwise covering set of knob combinations: every valid pair of values of any two knobs
appears in at least one configuration (greedy construction, deterministic). Testing all pairs,
not only the defaults, is what finds the interaction a one-knob-at-a-time sweep misses."""

from __future__ import annotations

import collections
import itertools

from .arch import limits
from . import knob_table as table
from .knobs import KnobError, Knobs

# Configurations must launch on the card that proves them: the H200's 227 KB opt-in at D=128
# (t128x128w8 with three padded K/V stages needs 243,712 B and is left out; its pairs come from others).
ARCH = "sm_90"

# the tile shapes a kernel engineer would try: BR in {64, 128}, BC in {32, 64, 128}, 4 or 8 warps
# (16 query rows a warp, or 32 when BR = 128 on 4 warps; BR = 64 on 8 warps has no m16 tiling)
TILES = [(64, 32, 4), (64, 64, 4), (64, 128, 4), (128, 32, 8), (128, 64, 8), (128, 128, 8),
         (128, 32, 4), (128, 64, 4), (128, 128, 4)]
# The Hopper arm (compute=wgmma, layout=sw128) exists on sm_90a alone; it is checked on its own
# (tests/test_kernel_build.py compiles it, hopper_set() below is its GPU battery), not in a set that every
# architecture compiles: the values a knob has on that arm alone are knob_table's hopper_values.
HOPPER_ONLY = {k.name: v for k in table.KNOBS for v in k.hopper_values}
# A knob added after the covering runs were proved is pinned (knob_table's `pinned`): the set stays the one those
# runs proved, and the knob is moved over it instead. `copies` changes no arithmetic, only how a tile's copies are
# issued: `covering_set(copies="unrolled")` is the same set moved to the unrolled copies, each paired bitwise with
# its loop build by scripts/device_ladder.py --copies unrolled. exp_poly (not bitwise) likewise:
# `scripts/device_ladder.py --move exp_poly=half` runs the set with it moved wherever it is valid (exp=ex2), against
# the tier's bound. pv_slab (bitwise) likewise: `--move pv_slab=on` pairs each configuration where it is valid with
# its off build.
PINNED = {k.name: k.pinned for k in table.KNOBS if k.pinned is not None}
DOMAINS: dict[str, list] = {
    **{k.name: [k.pinned] if k.pinned is not None else [v for v in k.values if v not in k.hopper_values]
       for k in table.KNOBS if k.is_enum},
    "tile": TILES,
    **{k.name: [k.pinned] if k.pinned is not None else list(k.values)
       for k in table.KNOBS if not k.is_enum and k.name not in ("br", "bc", "warps")},
}


def _knobs(assign: dict) -> Knobs | None:
    data = {k: v for k, v in assign.items() if k != "tile"}
    if "tile" in assign:
        data["br"], data["bc"], data["warps"] = assign["tile"]
    try:
        k = Knobs.parse(data)
    except KnobError:
        return None
    return k if k.smem_bytes(128) <= limits(ARCH).smem_per_block_optin else None


def _pairs(cfg: dict) -> set:
    return {((a, cfg[a]), (b, cfg[b])) for a, b in itertools.combinations(sorted(cfg), 2)}


def covering_set(copies: str = "loop") -> list[Knobs]:
    """The pairwise covering set; with copies="unrolled" the same configurations with that one knob moved."""
    if copies != "loop":
        return [k.replace(copies=copies) for k in covering_set()]
    names = sorted(DOMAINS)
    # the pairs that some valid configuration can hold
    todo = set()
    for a, b in itertools.combinations(names, 2):
        for va, vb in itertools.product(DOMAINS[a], DOMAINS[b]):
            if _knobs({a: va, b: vb}) is not None or _completable({a: va, b: vb}):
                todo.add(((a, va), (b, vb)))
    chosen: list[Knobs] = []
    while todo:
        # seed with an uncovered pair, then fill the other knobs one at a time, greedily
        (a, va), (b, vb) = min(todo, key=repr)
        cfg = {a: va, b: vb}
        for name in names:
            if name in cfg:
                continue
            best, gain = None, -1
            for v in DOMAINS[name]:
                trial = {**cfg, name: v}
                if not _completable(trial):
                    continue
                g = sum(1 for p in _pairs(trial) if p in todo)
                if g > gain:
                    best, gain = v, g
            cfg[name] = best
        k = _knobs(cfg)
        assert k is not None, cfg
        todo -= _pairs(cfg)
        chosen.append(k)
    return chosen


def _completable(partial: dict) -> bool:
    """Whether some valid configuration extends this partial assignment (defaults first: the
    constraints forbid non-defaults on the scalar path, depth > 1 without cp.async, and a lazy max
    without ex2 and the rescale vote)."""
    base = {"compute": "mma", "staging": "cp_async"}
    for fill in ({}, base, {**base, "exp": "ex2", "rescale_skip": "on"}):
        if _knobs({**fill, **partial}) is not None:
            return True
    return False


def hopper_set() -> list[Knobs]:
    """The Hopper arm's configurations for its GPU battery: every tile the arm
    allows (BC 32/64/128 on one or two warpgroups) and, on the 64x64 tile, each knob it shares with
    the mma.sync kernel moved off its default once (stages, rescale forms, softmax, masks, order,
    persistence, split-KV, overlap). Not a pairwise set: a first check that each part works."""
    from .knobs import Knobs as _K

    base = _K(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem")
    tiles = [base.replace(bc=bc, br=16 * w, warps=w) for bc in (32, 64, 128) for w in (4, 8)]
    moves = [dict(kv_stages=2), dict(kv_stages=3), dict(rescale_skip="on"), dict(rescale_skip="on", rescale_lazy="on"),
             dict(softmax="fused"), dict(causal_mask="predicate"), dict(causal_mask="split"),
             dict(cta_order="heaviest_first"), dict(persistent="on"), dict(split_kv=2), dict(kv_overlap="on"),
             dict(exp="expf"), dict(min_ctas=2), dict(store="cs")]
    # TMA staging (its tier first passed on the H200 in results/2026-11-30_h200_tma_pipeline_tier): each tile, the ring at 2 and 3
    # stages (persistent, where the barrier phases cross items), split-KV with the split causal loop,
    # and the stack of shared knobs the mma.sync searches kept
    tma = base.replace(staging="tma")
    tma_set = [tma.replace(bc=bc, br=16 * w, warps=w) for bc in (32, 64, 128) for w in (4, 8)] + [
        tma.replace(kv_stages=2), tma.replace(bc=32, kv_stages=3, persistent="on"),
        tma.replace(br=128, warps=8, kv_stages=2, causal_mask="split", split_kv=2),
        tma.replace(kv_stages=2, rescale_skip="on", rescale_lazy="on", softmax="fused", min_ctas=3,
                    cta_order="heaviest_first")]
    # the intra-warpgroup overlap (pipeline=on on the arm, first passed in results/2026-11-30_h200_tma_pipeline_tier): cp.async and TMA
    # rings, and three TMA stages on a persistent grid with causal split loops
    pipe_set = [base.replace(kv_stages=2, pipeline="on"), tma.replace(kv_stages=2, pipeline="on"),
                tma.replace(bc=32, kv_stages=3, pipeline="on", persistent="on", causal_mask="split")]
    # kv_release=last_warp (first passed in results/2026-11-30_h200_kv_release_ws): the TMA ring without its block barrier, on the
    # tile that ran 1.743x SDPA flash (t128x64w8, two stages, lazy rescale), the one-warpgroup tile, three
    # stages on a persistent grid with the pipeline (counts carried across items) and split-KV with the
    # causal split loop; each pairs bitwise with its cp.async build in scripts/device_ladder.py
    release_set = [tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on", kv_release="last_warp"),
                   tma.replace(kv_stages=2, kv_release="last_warp"),
                   tma.replace(bc=32, kv_stages=3, pipeline="on", persistent="on", causal_mask="split",
                               kv_release="last_warp"),
                   tma.replace(br=128, warps=8, kv_stages=2, causal_mask="split", split_kv=2, kv_release="last_warp")]
    # kv_release=producer (first passed in results/2026-11-30_h200_kv_release_ws): warp specialisation with setmaxnreg on the 1.743x
    # tile, on BC 128 with the pipeline (FlashAttention-3's shape: one CTA/SM, 168 registers at entry) and
    # on three stages of a persistent grid with the causal split loop (the producer's counts across items)
    producer_set = [tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on", kv_release="producer"),
                    tma.replace(br=128, warps=8, bc=128, kv_stages=2, pipeline="on", kv_release="producer"),
                    tma.replace(bc=32, kv_stages=3, persistent="on", causal_mask="split", kv_release="producer")]
    # pingpong=on (first passed in results/2026-11-30_h200_kv_release_ws/call2): the producer kernel's two consumer warpgroups in turns, on the
    # measured tile, on BC 128 with the pipeline (its first QK^T a turn of its own), on three stages of a persistent
    # grid with the causal split loop and the pipeline (turns across items of different lengths and both loops) and
    # on split-KV with the causal split loop (empty splits take no turn). scripts/device_ladder.py pairs each
    # bitwise with its pingpong=off build as well as with its cp.async build (the producer's own pair)
    pingpong_set = [tma.replace(br=128, warps=8, kv_release="producer", pingpong="on", **m) for m in (
        dict(kv_stages=2, rescale_skip="on", rescale_lazy="on"), dict(bc=128, kv_stages=2, pipeline="on"),
        dict(bc=32, kv_stages=3, persistent="on", causal_mask="split", pipeline="on"),
        dict(kv_stages=2, causal_mask="split", split_kv=2))]
    out = tiles + [base.replace(**m) for m in moves] + tma_set + pipe_set + release_set + producer_set + pingpong_set
    return [k for k in out if k.smem_bytes(128) <= limits(ARCH).smem_per_block_optin]


# The instantiation axes of a build: the arch it compiles for and the (dtype, head dim) it instantiates; each
# compile takes both mask modes (causal and not: the axis that changes the kernel's control flow most; a second
# instantiation costs about 0.5 CPU s, another nvcc call 1.5 s: results/2026-12-01_cpu_ci_time/nvcc_instantiation_cost.txt).
MATRIX_ARCHS = ("sm_80", "sm_90", "sm_120")
MATRIX_DTYPES = ("float16", "bfloat16")
MATRIX_DIMS = (64, 128)


def _values(k: Knobs) -> dict:
    d = k.model_dump(mode="json")
    d["tile"] = (d.pop("br"), d.pop("bc"), d.pop("warps"))
    return {n: d[n] for n in DOMAINS}


def matrix_pairs(k: Knobs, arch: str, dtype: str, dim: int) -> set:
    """The pairs one compile holds: each knob value with the arch, the dtype and the head dim, and the axes'
    values with each other (both mask modes are in every compile)."""
    axes = {"arch": arch, "dtype": dtype, "dim": dim}
    out = {(("knob", n, v), (a, x)) for n, v in _values(k).items() for a, x in axes.items()}
    return out | {((a, axes[a]), (b, axes[b])) for a, b in itertools.combinations(axes, 2)}


def compile_matrix(configs: list[Knobs] | None = None) -> list[tuple[Knobs, str, str, int]]:
    """The compiles that check `configs` (default: the covering set) on the three architectures, as a pairwise
    design over the instantiation axes: every configuration compiles at least once, and every value of every knob
    compiles on each arch, in each dtype and at each head dim, every arch in each dtype and at each head dim (each
    compile both mask modes). The covering set holds every pair of knob values; this adds the pairs of a knob value
    and an instantiation axis, in about one compile a configuration instead of three archs x 2-4 instantiations.
    Greedy and deterministic: each configuration in turn takes the compile that adds the most pairs not yet held,
    then the compiles that add the most until every pair is held. Returns (knobs, arch, dtype, head dim)."""
    configs = covering_set() if configs is None else configs
    units = [(i, a, t, d) for i in range(len(configs)) for a in MATRIX_ARCHS for t in MATRIX_DTYPES for d in MATRIX_DIMS]
    pairs = {u: matrix_pairs(configs[u[0]], *u[1:]) for u in units}
    todo = set().union(*pairs.values())
    chosen: list = []
    used = collections.Counter()

    def take(u):
        chosen.append(u)
        used[u[1:]] += 1
        todo.difference_update(pairs[u])

    def gain(u):  # ties go to the (arch, dtype, head dim) compiled least so far, then to the first
        return len(pairs[u] & todo), -used[u[1:]]

    for i in range(len(configs)):
        take(max((u for u in units if u[0] == i), key=gain))
    while todo:
        take(max((u for u in units if u not in chosen), key=gain))
    return [(configs[i], a, t, d) for i, a, t, d in chosen]
