"""Agent version 5: a margin measured against the current best carries to the moves that share its levers.

Session 7's agent v4 from the naive seed on the H200 (results/2026-11-30_h200_session7/naive_n8192.txt,
B2 H16 N8192 D128 fp16, budget 20) kept six levers by #7 (wgmma/sw128/tma/ex2/t128x64w8/kv_stages=2/
q_in=smem, 535.3 TFLOP/s), read barrier_bound, measured last_warp_refill+narrow_kv_tile at 0.6671 (#8)
and spent #9-#15 on seven more compounds built on last_warp_refill (0.65-0.93) and #16-#19 on four built
on persistent_grid+narrow_kv_tile (0.69-0.73), each predicted from its first lever's catalog band
(0.97-1.15, 0.97-1.05), so no plateau fired. The fixture is that run's recording (artifacts.tgz,
naive_n8192_artifacts/run-1/recording.jsonl; it ends with #19 in flight, which the resumed process
measured), replayed without a GPU.
"""
import math

import numpy as np
import pytest

from agent.strategies.lever_factors import Prior, fit, prior_of


# ---- the estimator (agent.strategies.lever_factors) ---------------------------------------------
def test_a_lever_observed_alone_recovers_its_margin_within_the_noise():
    noise = 0.005
    post = fit({"a": prior_of((0.8, 1.25))}, [(("a",), 0.9)], noise)
    assert abs(math.log(post.factor("a")) - math.log(0.9)) < noise
    lo, hi = post.band(("a",))
    assert lo < 0.9 < hi and math.log(hi / lo) < 4 * noise


def test_two_levers_observed_only_together_split_the_deficit_by_prior_variance():
    pa, pb = Prior(0.0, 0.04), Prior(0.0, 0.02)
    post = fit({"a": pa, "b": pb}, [(("a", "b"), 0.7)], 0.001)
    da, db = math.log(post.factor("a")), math.log(post.factor("b"))
    assert da + db == pytest.approx(math.log(0.7), abs=0.002)  # the pair's margin is recovered
    assert da / db == pytest.approx(pa.sd ** 2 / pb.sd ** 2)  # and split 4:1 by prior variance
    assert post.band(("a", "b"))[0] < 0.7 < post.band(("a", "b"))[1]


def test_an_unrelated_lever_is_untouched():
    priors = {"a": Prior(0.05, 0.04), "b": Prior(0.0, 0.02), "c": Prior(0.02, 0.03)}
    post = fit(priors, [(("a", "b"), 0.7), (("a",), 0.8)], 0.002)
    i = post.levers.index("c")
    assert post.mean[i] == priors["c"].mean and post.cov[i, i] == pytest.approx(priors["c"].sd ** 2)
    assert np.all(np.delete(post.cov[i], i) == 0) and post.moves["c"] == 0
    assert post.band(("c",)) == pytest.approx((math.exp(0.02 - 0.06), math.exp(0.02 + 0.06)))


def test_no_measurement_leaves_the_priors_and_a_band_reads_back_as_itself():
    post = fit({"a": prior_of((0.97, 1.15)), "r": prior_of((0.95, 1.05), centre=1.0)}, [], 0.01)
    assert post.band(("a",)) == pytest.approx((0.97, 1.15))
    half = (1.05 / 0.95) ** 0.5  # a restorer's prior: centred at 1.0 with its band's spread
    assert post.factor("r") == 1.0 and post.band(("r",)) == pytest.approx((1 / half, half))
