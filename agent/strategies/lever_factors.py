"""What the margins measured against one best say about each lever (Policy.shared_margins).

The agent without it, from the naive seed (results/2026-11-30_h200_kv_release_ws/naive_n8192.txt), measured
last_warp_refill+narrow_kv_tile at 0.667 against its best and then spent seven more experiments on
compounds built on last_warp_refill, each still predicted 0.97-1.15 from the catalog: nothing carried
one move's margin to another move that shares a lever with it at the same best.

The model is the simplest that carries it: a move's log margin is the sum of its levers' log factors,
plus the paired measurement's noise,

    log m(move) = sum over its levers L of log f(L) + e,   e ~ N(0, t_noise^2),

with a Gaussian prior on each log f(L) read from a predicted band (its geometric middle, and a quarter
of its log width as one standard deviation: the band is mean +- 2 sd, as the look-back's
m*(1 +- 2 t_noise) reads t_noise as one). The posterior of this linear regression is closed-form;
two levers only ever measured together split their deficit in proportion to their prior variances,
and a lever no measured move holds keeps its prior.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

# A null of exactly 0 (a synthetic bench) would make a repeated measurement an exact constraint and
# the regression singular; the H200's nulls read 0.02-0.9%.
NOISE_FLOOR = 1e-4


class Prior(NamedTuple):
    """A lever's log factor before the measurements: N(mean, sd^2)."""
    mean: float
    sd: float


def prior_of(band: tuple[float, float], centre: float | None = None) -> Prior:
    """The prior a predicted band stands for (mean +- 2 sd in log space); `centre` moves the mean and
    keeps the spread (a restorer's gain, which a first-lever band does not count, at 1.0)."""
    lo, hi = band
    mean = math.log(centre) if centre is not None else 0.5 * (math.log(lo) + math.log(hi))
    return Prior(mean, max(math.log(hi / lo), 0.0) / 4)


class Factors(NamedTuple):
    """The posterior: the levers in order, their mean log factors and covariance, and how many measured
    moves held each."""
    levers: tuple[str, ...]
    mean: np.ndarray
    cov: np.ndarray
    moves: dict[str, int]

    def factor(self, lever: str) -> float:
        return math.exp(self.mean[self.levers.index(lever)])

    def band(self, levers: tuple[str, ...]) -> tuple[float, float]:
        """A move of these levers: exp(posterior mean +- 2 sd) of its log margin."""
        a = np.array([1.0 if n in levers else 0.0 for n in self.levers])
        mu, sd = float(a @ self.mean), math.sqrt(max(float(a @ self.cov @ a), 0.0))
        return math.exp(mu - 2 * sd), math.exp(mu + 2 * sd)


def fit(priors: dict[str, Prior], measured: list[tuple[tuple[str, ...], float]], noise: float) -> Factors:
    """The posterior of each lever's log factor given `measured` (the levers of a move, its margin).

    In covariance form (Kalman update) so a prior of zero spread (a band lo == hi) is allowed:
    mean = m0 + S0 A' (A S0 A' + s^2 I)^-1 (y - A m0), cov = S0 - S0 A' (A S0 A' + s^2 I)^-1 A S0."""
    names = tuple(priors)
    m0 = np.array([priors[n].mean for n in names])
    s0 = np.diag([priors[n].sd ** 2 for n in names])
    counts = {n: sum(n in lv for lv, _ in measured) for n in names}
    if not measured:
        return Factors(names, m0, s0, counts)
    a = np.array([[1.0 if n in lv else 0.0 for n in names] for lv, _ in measured])
    y = np.array([math.log(m) for _, m in measured])
    s2 = max(noise, NOISE_FLOOR) ** 2
    gain = s0 @ a.T @ np.linalg.inv(a @ s0 @ a.T + s2 * np.eye(len(measured)))
    return Factors(names, m0 + gain @ (y - a @ m0), s0 - gain @ a @ s0, counts)
