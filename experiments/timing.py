"""Paired, interleaved timing of two arms in one process (seed section 2.8).

Each alternation times a block of calls of A and a block of B back to back, in alternating
order (AB, BA, AB, ...), and yields one ratio t_base / t_cand; the margin is the median ratio,
reported with its AB and BA halves. Interleaving puts each measurement of A microseconds from
one of B under the same clock state, so the drift both arms share divides out.

A time budget, not a count, bounds a measurement: a 10 ms naive kernel and a 0.2 ms tuned one
both take seconds. The pure statistics are separate from the CUDA clock so tests can feed them
recorded or synthetic streams.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

from pydantic import BaseModel

MIN_ALTERNATIONS = 10
MAX_ALTERNATIONS = 400
BLOCK_TARGET_S = 0.002  # calls per block chosen so one block lasts about this long
# the GPU spins this long before the first pair (pipelined pairs) or before each pair's first block (synchronised
# ones): without it that block starts on an idle GPU and reads 1-9% slower than the second (AB/BA halves of an A/A
# pair 1.03-1.10 / 0.91-0.97 for SDPA cuDNN and flash, 1.01-1.03 / 0.97-0.99 for our kernel); with 0.3 ms every half
# sits within 0.6% of 1 (H200, results/2026-12-02_h200_comparator_order), pipelined within 0.1%
LEAD_MS = 0.3


class PairedResult(BaseModel):
    margin: float  # median of t_base / t_cand; > 1 means the candidate is faster
    margin_lo: float  # p10 of the per-alternation ratios
    margin_hi: float  # p90
    margin_ab: float  # median over alternations where the base ran first
    margin_ba: float
    alternations: int
    calls_per_block: int
    ms_base: float  # median per-call time of each arm
    ms_cand: float
    ratios: list[float]
    l2: str = "warm"  # "warm": inputs reused across calls; "cold": L2 flushed before each call
    calls_per_block_base: int | None = None
    wall_ms_base: float | None = None  # device-synchronised wall clock per call, launch included
    wall_ms_cand: float | None = None
    suspicious: str | None = None
    settled: str | None = None  # why the alternations stopped before the budget (settle_reason), if they did


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    if not s:
        raise ValueError("no samples")
    pos = q * (len(s) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize(base_ms: list[float], cand_ms: list[float], base_first: list[bool], calls: int | tuple[int, int],
              l2: str = "warm") -> PairedResult:
    """base_ms/cand_ms: block times; calls: calls per block (one number, or base and candidate)."""
    cb, cc = (calls, calls) if isinstance(calls, int) else calls
    ratios = [(b / cb) / (c / cc) for b, c in zip(base_ms, cand_ms)]
    ab = [r for r, f in zip(ratios, base_first) if f] or ratios
    ba = [r for r, f in zip(ratios, base_first) if not f] or ratios
    return PairedResult(
        margin=statistics.median(ratios), margin_lo=quantile(ratios, 0.1), margin_hi=quantile(ratios, 0.9),
        margin_ab=statistics.median(ab), margin_ba=statistics.median(ba), alternations=len(ratios),
        calls_per_block=cc, calls_per_block_base=cb, ms_base=statistics.median(base_ms) / cb,
        ms_cand=statistics.median(cand_ms) / cc, ratios=ratios, l2=l2,
    )


# The sequential rule's confidence: the median's interval from order statistics (distribution-free), at 99.9%
SETTLE_ALPHA = 0.001
SETTLE_EVERY = 2  # checked after each AB/BA pair of alternations, so both halves are always represented
# and not before the pairs have run this long (the blocks' own GPU time, both arms): on the H200 a 53 us kernel read
# 5-6% faster in a pair's first ~80 ms than over its budget (boost clocks before the power limit holds them), and a
# lever worth 1.017-1.019 in 8 fresh processes over a whole 1 s budget read 1.0057 and then 0.9955 when both of its
# pairs settled after 22 and 16 alternations (results/2026-12-03_h200_round_order, call2 against call3)
SETTLE_MIN_S = 0.5


def may_settle(n: int, base_ms: list[float], cand_ms: list[float]) -> bool:
    """Whether alternation n's readings may be judged by the sequential rule: enough alternations, whole AB/BA
    pairs, and SETTLE_MIN_S of measured blocks."""
    return n >= MIN_ALTERNATIONS and n % SETTLE_EVERY == 0 and (sum(base_ms) + sum(cand_ms)) / 1e3 >= SETTLE_MIN_S


def median_interval(ratios: list[float], alpha: float = SETTLE_ALPHA) -> tuple[float, float]:
    """A distribution-free (1 - alpha) interval for the median of the ratios: the k-th smallest and k-th largest,
    k the largest with P(Binomial(n, 1/2) < k) <= alpha / 2 (at least 1: the extremes)."""
    import math

    s, n = sorted(ratios), len(ratios)
    k, tail = 1, 0.0
    while k < n // 2:
        tail += math.comb(n, k - 1) / 2 ** n  # P(Binomial(n, 1/2) <= k - 1)
        if tail + math.comb(n, k) / 2 ** n > alpha / 2:
            break
        k += 1
    return s[k - 1], s[n - k]


def settle_reason(ratios: list[float], t_noise: float, t_keep: float, alpha: float = SETTLE_ALPHA,
                  rule: str = "non_keep") -> str | None:
    """Whether the outcome of a measurement is already settled, from the median's distribution-free interval.

    rule "non_keep" (a candidate's first pair, the first rule): settled SLOWER when the interval lies wholly below
    1 - t_noise, NULL when wholly between 1 - t_noise and t_keep; a measurement that may end as a keep, or whose
    interval straddles a threshold, takes its whole budget.
    rule "any": those two, and KEEP-side when the interval lies wholly above t_keep and the AB and BA halves' medians
    are both above 1 (the keep gate's other reading of the pair; C2 and the replicate still follow).
    rule "replicate" (a keep's second pair, judged against t_keep alone): settled once the interval lies wholly above
    t_keep (it replicates) or wholly below it (it does not).
    The ratios are in measured order, the first of each pair of alternations AB (experiments.timing.paired)."""
    if len(ratios) < MIN_ALTERNATIONS:
        return None
    lo, hi = median_interval(ratios, alpha)
    where = f"after {len(ratios)} alternations: the median's {1 - alpha:.1%} interval {lo:.4f}-{hi:.4f}"
    if rule == "replicate":
        if lo > t_keep:
            return f"settled REPLICATED {where} > t_keep"
        if hi < t_keep:
            return f"settled NOT-REPLICATED {where} < t_keep"
        return None
    if hi < 1 - t_noise:
        return f"settled SLOWER {where} < 1 - t_noise"
    if lo > 1 - t_noise and hi < t_keep:
        return f"settled NULL {where} inside the null"
    if rule == "any" and lo > t_keep and statistics.median(ratios[0::2]) > 1 and statistics.median(ratios[1::2]) > 1:
        return f"settled KEEP-side {where} > t_keep, both halves above 1"
    return None


SETTLE_RULES = ("non_keep", "any", "replicate")


def t_noise(aa_margins: list[float]) -> float:
    """p95 of |margin - 1| over A/A experiments (at n < 20 this is effectively the maximum)."""
    return quantile([abs(m - 1.0) for m in aa_margins], 0.95)


def _wall_per_call(fn, n: int = 3) -> float:
    import torch

    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()  # the whole device: work hidden on another stream is counted here
    return max((time.perf_counter() - t0) / n, 1e-6)


def paired(run_base: Callable[[], None], run_cand: Callable[[], None], *, budget_s: float, l2: str = "warm",
           flush: Callable[[], None] | None = None, settle: tuple[float, float] | None = None,
           settle_rule: str = "non_keep", lead_ms: float = LEAD_MS, pipelined: bool = True) -> PairedResult:
    """l2="warm": inputs stay in L2 across calls; "cold": `flush` (a write larger than L2) runs
    before every timed call, outside the timed region, one call per block. `settle` (t_noise, t_keep): stop
    before the budget once the outcome is settled under `settle_rule` (settle_reason). `lead_ms` > 0: the GPU
    spins that long (torch.cuda._sleep) before each pair's first block, so that block's first calls are
    queued before its start event runs, as the second block's are behind the first.

    `pipelined` (the default): no idle GPU between pairs. The next pair is queued before the host waits for the one
    in flight, so every pair's first block follows the previous pair's second on a busy GPU, as its own second block
    follows its first (the lead then runs once, before the first pair). With the device synchronised around each
    pair (pipelined=False), the first block still read 0.4-0.6% slower than the second behind a 0.3 or 1 ms lead,
    enough to split the AB and BA halves of a 0.5% lever across 1; pipelined, an A/A pair's halves lie within 0.0017
    of each other (H200, results/2026-12-03_h200_pair_order). Pipelined pairs read a kernel 3-4% slower in absolute
    terms (the clocks of a GPU never idle); the ratio is what a pair is for."""
    import torch

    def block(fn, calls):
        if l2 == "cold":
            flush()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        return start, end

    if l2 == "cold" and flush is None:
        raise ValueError("a cold-L2 measurement needs a flush")
    # warm-up (module load, attribute setting, clocks ramping), then size each arm's block
    for fn in (run_base, run_cand, run_base, run_cand):
        fn()
    wall_b, wall_c = _wall_per_call(run_base), _wall_per_call(run_cand)
    size = lambda w: 1 if l2 == "cold" else max(1, min(50, round(BLOCK_TARGET_S / w)))
    cb, cc = size(wall_b), size(wall_c)

    lead_cycles = _spin_cycles(lead_ms) if lead_ms > 0 else 0
    base_ms, cand_ms, base_first = [], [], []
    deadline = time.perf_counter() + budget_s
    why = _pipelined(block, run_base, run_cand, cb, cc, lead_cycles, deadline, settle, settle_rule,
                     base_ms, cand_ms, base_first) if pipelined else None
    i = MAX_ALTERNATIONS if pipelined else 0  # the loop below: the synchronised pairs
    while i < MAX_ALTERNATIONS and (i < MIN_ALTERNATIONS or time.perf_counter() < deadline):
        if settle is not None and may_settle(i, base_ms, cand_ms):
            why = settle_reason([(b / cb) / (c / cc) for b, c in zip(base_ms, cand_ms)], *settle, rule=settle_rule)
            if why:
                break
        torch.cuda.synchronize()  # the whole device, not one stream, around the timed pair
        if lead_cycles:
            torch.cuda._sleep(lead_cycles)
        eb, ec, first = _queue_pair(i, block, run_base, run_cand, cb, cc)
        torch.cuda.synchronize()
        base_ms.append(eb[0].elapsed_time(eb[1]))
        cand_ms.append(ec[0].elapsed_time(ec[1]))
        base_first.append(first)
        i += 1
    res = summarize(base_ms, cand_ms, base_first, (cb, cc), l2)
    res.settled = why
    # the wall clock again, now that the clocks have settled: the first reading follows four warm-up
    # calls on a GPU that may have been idle at 345 MHz, and on the H200 a correct 0.46 ms kernel
    # read 1.42 ms there (results/2026-11-30_h200_fa2_levers, tail battery, BC 16 control; the ramp
    # is the likely cause, not yet confirmed on the GPU). Work that escapes the stream shows in both
    # readings; a clock ramp only in the first.
    wall_b, wall_c = settled_wall(wall_b, _wall_per_call(run_base)), settled_wall(wall_c, _wall_per_call(run_cand))
    res.wall_ms_base, res.wall_ms_cand = wall_b * 1e3, wall_c * 1e3
    res.suspicious = escapes_stream(res.ms_cand, res.wall_ms_cand)
    return res


def _queue_pair(i: int, block, run_base, run_cand, cb: int, cc: int):
    """Alternation i's two blocks queued, AB when i is even and BA when odd: (base events, candidate events, AB?)."""
    first = i % 2 == 0
    if first:
        eb = block(run_base, cb)
        ec = block(run_cand, cc)
    else:
        ec = block(run_cand, cc)
        eb = block(run_base, cb)
    return eb, ec, first


def _pipelined(block, run_base, run_cand, cb: int, cc: int, lead_cycles: int, deadline: float,
               settle: tuple[float, float] | None, settle_rule: str, base_ms: list, cand_ms: list,
               base_first: list) -> str | None:
    """paired(pipelined=True)'s alternations: pair i + 1 queued before the host waits for pair i's events, so the
    GPU is never idle between pairs. A pair queued when the outcome settles is waited for and dropped (each settle
    check sees whole AB/BA pairs of alternations). Returns the settle reason, if one stopped it."""
    import torch

    def enqueue(i: int):
        return _queue_pair(i, block, run_base, run_cand, cb, cc)

    torch.cuda.synchronize()
    if lead_cycles:
        torch.cuda._sleep(lead_cycles)
    pending = [enqueue(0)]
    queued, why = 1, None
    while pending:
        n = len(base_ms)
        more = why is None and queued < MAX_ALTERNATIONS and (queued < MIN_ALTERNATIONS or time.perf_counter() < deadline)
        if more:
            pending.append(enqueue(queued))
            queued += 1
        eb, ec, first = pending.pop(0)
        ec[1].synchronize()
        eb[1].synchronize()
        if why is not None:
            continue  # queued before the outcome settled: run, not counted
        base_ms.append(eb[0].elapsed_time(eb[1]))
        cand_ms.append(ec[0].elapsed_time(ec[1]))
        base_first.append(first)
        n += 1
        if settle is not None and may_settle(n, base_ms, cand_ms):
            why = settle_reason([(b / cb) / (c / cc) for b, c in zip(base_ms, cand_ms)], *settle, rule=settle_rule)
    torch.cuda.synchronize()
    return why


def _spin_cycles(ms: float) -> int:
    """GPU clock cycles of torch.cuda._sleep that last about `ms` at the clock it runs now (measured once)."""
    import torch

    probe = 1_000_000
    torch.cuda._sleep(probe)  # the clocks up first
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(probe)
    end.record()
    end.synchronize()
    return max(1, int(probe * ms / max(start.elapsed_time(end), 1e-3)))


def settled_wall(before_s: float, after_s: float) -> float:
    """The device-wide wall clock per call for the side-stream check: the smaller of the reading
    before the timed alternations (clocks may still be ramping) and the one after them."""
    return min(before_s, after_s)


def escapes_stream(event_ms: float, wall_ms: float) -> str | None:
    """A kernel whose events (on the caller's stream) see far less time than a device-wide
    synchronised wall clock is doing its work somewhere the timing does not look."""
    if wall_ms > 0.05 and event_ms < 0.5 * wall_ms:
        return (f"events on the caller's stream saw {event_ms:.4f} ms per call but a device-wide "
                f"synchronised wall clock {wall_ms:.4f} ms: work escapes the timed stream")
    return None
