"""The re-anchor: a paired run of the current best against the untouched seed must equal the
product of the keeps' paired margins within sqrt(k + 1) * t_noise (seed section 2.8: RA1 after
three keeps, tolerance sqrt(4) * t_noise). A margin over a grandparent is a product of paired
links, never a ratio of two medians.

Each link's noise is the larger of the A/A null in force and what its own replicate says (`link_noise`): an A/A
null pairs a kernel with itself, and under pipelined pairs reads 0.01-0.04%, while a keep's first pair and its
replicate in another process, two different kernels, differ by 0.1-0.6% (up to 2.9%) in the recorded runs
(results/2026-12-03_h200_agent_suite, reanchor_noise.txt): the null alone made every re-anchor read as a
disagreement."""

from __future__ import annotations

import math

from pydantic import BaseModel


class Reanchor(BaseModel):
    keeps: int
    product: float
    measured: float
    gap: float  # measured / product - 1
    tolerance: float
    halves: tuple[float, float]  # the anchor's own AB and BA medians
    verdict: str  # consistent | drift | overshoot | undershoot
    text: str


def link_noise(t_noise: float, margin: float, replicate: float | None) -> float:
    """One keep's noise in the product: the A/A null's t_noise, or the spread its two fresh-process measurements
    show when that is larger (|first / replicate - 1| / sqrt 2, the standard deviation of one measurement)."""
    if not replicate:
        return t_noise
    return max(t_noise, abs(margin / replicate - 1) / math.sqrt(2))


def reanchor(margins: list[float], measured: float, ab: float, ba: float, t_noise: float,
             link_noise: list[float] | None = None) -> Reanchor:
    """`link_noise`: each keep's noise (`link_noise()`: the t_noise in force when it was measured, a run
    re-measuring its A/A null as its kernel gets faster, or its replicate's spread); the k + 1 independent
    errors then add in quadrature, which is sqrt(k + 1) * t_noise when every link's is the null's."""
    k = len(margins)
    product = math.prod(margins)
    gap = measured / product - 1
    tol = math.sqrt(sum(n * n for n in link_noise) + t_noise * t_noise) if link_noise else math.sqrt(k + 1) * t_noise
    split = abs(ab / ba - 1)
    base = f"product of {k} paired keeps {product:.5f}, anchor {measured:.5f}, gap {gap:+.3%} against {tol:.3%}"
    if abs(gap) <= tol:
        verdict, why = "consistent", "no double counting, interaction or drift visible"
    elif split > max(tol, abs(gap)):
        verdict, why = "drift", f"the anchor's own AB/BA halves differ by {split:.2%}: the card moved during the anchor, re-measure"
    elif gap < 0:
        # under synchronised pairs every recorded re-anchor overshot (58 of 58, median -0.67%, growing with k,
        # results/2026-12-02_cpu_reanchor_bias); under pipelined pairs, with each keep's spread in the tolerance,
        # 27 of 41 re-anchors of results/2026-12-03_h200_agent_suite are consistent and both signs occur
        verdict, why = "overshoot", ("the product overshoots the anchor: a keep counted twice, keeps interacting "
                                     "negatively, or a bias of the seed-to-best pair")
    else:
        verdict, why = "undershoot", "the anchor exceeds the product: keeps interact positively, or the card drifted across the run"
    return Reanchor(keeps=k, product=product, measured=measured, gap=gap, tolerance=tol, halves=(ab, ba),
                    verdict=verdict, text=f"{base}: {verdict} - {why}")
