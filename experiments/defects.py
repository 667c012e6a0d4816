"""The defect battery: wrong kernels built from kernel_src behind FA_DEFECT, a switch no knob
reaches. Every one must be rejected (WRONG or SUSPICIOUS) by the correctness tier; the margin by
which they are caught is what the tolerance's constants are judged against."""

from kernel_src.knobs import Knobs

# The configuration every defect is applied to: the mma path with a swizzle (so a one-sided
# swizzle exists) and cp.async staging (so a commit can go missing).
BASE = Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2")

DEFECTS: dict[str, tuple[int, str]] = {
    "one_sided_swizzle": (1, "tiles stored swizzled, read row-major: conflict-free and wrong"),
    "missing_commit": (2, "V's cp.async group never committed, so the wait does not cover it: a race"),
    "causal_off_by_one": (3, "the causal mask lets each row see one key past the diagonal"),
    "wrong_scale": (4, "softmax scale 6.25% too large"),
    "dropped_rescale": (5, "O is not rescaled when the running max grows"),
    "missing_sync": (6, "no __syncthreads between staging K/V and reading them: a race"),
    "partial_write": (7, "the last 8 output columns are never stored"),
    "no_write": (8, "the output is never stored (the LSE is)"),
    "writes_input": (9, "the kernel overwrites Q[0] of every head in place; its output is right"),
    "side_stream": (10, "launched on a private stream the caller never waits for"),
    "no_tail_mask": (11, "keys past N are not masked: zero-filled rows score 0 instead of -inf"),
}

# Faults that end the worker rather than spoil its output (the GPU fault battery,
# scripts/device_faults.py): evaluated one at a time, never in DEFECTS, whose envelope job
# (derive-tolerance) runs every defect in one process that a hang or a sticky fault would end.
FAULTS: dict[str, tuple[int, str]] = {
    "hang": (12, "every thread spins on the cycle counter: the kernel never returns (TIMEOUT expected)"),
    "illegal_address": (13, "thread 0 stores to address 64, which nothing maps: an illegal-address fault (CRASH expected)"),
}

# Numerics defects: right on N(0,1) inputs by design (a row's max settles in its first key block there),
# wrong only on the inputs real models send, so only C1's hostile patterns (experiments.tier.HOSTILE) can
# reject them. Each is cut from a correct kernel of its own (the knobs whose code it changes): never in
# DEFECTS, whose envelope (derive-tolerance) holds every defect to the N(0,1) bound these stay under.
LAZY_BASE = BASE.replace(rescale_skip="on", rescale_lazy="on")
NUMERICS: dict[str, tuple[int, str, Knobs]] = {
    "lazy_overflow": (14, "the lazy rescale lets a row's max fall 20 (log2) behind instead of 8: P reaches 2^20, "
                          "past fp16's 65504, once the max climbs across key blocks (bf16 holds it)", LAZY_BASE),
}


def cut_from(name: str) -> Knobs:
    """The correct kernel a planted defect is cut from."""
    return NUMERICS[name][2] if name in NUMERICS else BASE


def describe(name: str) -> tuple[int, str]:
    """(FA_DEFECT code, what it does) of any planted defect or fault."""
    every = {**DEFECTS, **FAULTS, **{n: (c, w) for n, (c, w, _) in NUMERICS.items()}}
    if name not in every:
        raise ValueError(f"unknown defect {name!r}; known: {', '.join(every)}")
    return every[name]
