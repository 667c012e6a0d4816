"""The correctness tier on CPU torch tensors, defects included, and the paired statistics on
the ratio streams the H200 run recorded."""

import json
import math

import pytest

from experiments.problem import Shape, c1_shapes
from experiments.tier import check, reference
from experiments.timing import quantile, summarize, t_noise


def _good(q, k, v, o, lse, causal=False):
    r, l = reference(q, k, v, causal)
    o.copy_(r)
    lse.copy_(l)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
def test_a_correct_kernel_passes(dtype, causal):
    s = Shape(B=1, H=2, N=97, D=64, dtype=dtype, causal=causal)
    res = check(lambda *a: _good(*a, causal=causal), s, "cpu", seed=7)
    assert res.ok, res.reason
    assert res.max_abs <= res.bound


DEFECTS = {
    "unwritten row": lambda o, l: o[:, :, -1].fill_(float("nan")),
    "wrong scale": None,  # handled below: recomputed with 1/D instead of 1/sqrt(D)
    "dropped tail": lambda o, l: o[:, :, -3:].zero_(),
    "one element off": lambda o, l: o.view(-1)[5].add_(0.05),
    "bad lse": lambda o, l: l.add_(0.01),
}


@pytest.mark.parametrize("name", list(DEFECTS))
def test_defects_are_rejected(name):
    s = Shape(B=1, H=2, N=97, D=64)

    def kernel(q, k, v, o, lse):
        if name == "wrong scale":
            r, l = reference(q * (1 / math.sqrt(64)), k, v, False)
            o.copy_(r)
            lse.copy_(l)
            return
        _good(q, k, v, o, lse)
        DEFECTS[name](o, lse)

    res = check(kernel, s, "cpu", seed=3)
    assert not res.ok and res.reason


def test_output_is_poisoned_so_a_kernel_that_writes_nothing_fails():
    res = check(lambda *a: None, Shape(B=1, H=1, N=16, D=64), "cpu", seed=1)
    assert not res.ok and res.nonfinite > 0


def test_c1_shapes_cover_odd_tails_both_mask_modes_and_the_targets_dtype():
    t = Shape(B=2, H=16, N=2048, D=128, dtype="bfloat16")
    shapes = c1_shapes(t)
    assert {s.causal for s in shapes} == {False, True}
    assert any(s.N % 64 for s in shapes) and any(s.N == 1 for s in shapes)
    assert {(s.D, s.dtype) for s in shapes} == {(128, "bfloat16")}


def test_flops():
    assert Shape(B=2, H=16, N=2048, D=128).flops() == 4 * 2 * 16 * 2048 * 2048 * 128


def _recorded_paired(run2):
    for line in (run2 / "recording.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["key"].startswith("evaluate:") and rec["result"]["paired"]:
            yield rec["result"]["paired"]


def test_statistics_reproduce_the_recorded_margins(run2):
    """summarize() on the H200's raw per-alternation ratios gives the margins it reported."""
    n = 0
    for p in _recorded_paired(run2):
        ratios = p["ratios"]
        firsts = [i % 2 == 0 for i in range(len(ratios))]
        # ratios are t_base/t_cand; feed them back as times with the candidate at 1.0
        s = summarize(ratios, [1.0] * len(ratios), firsts, p["calls_per_block"])
        assert s.margin == pytest.approx(p["margin"], rel=1e-12)
        assert s.margin_ab == pytest.approx(p["margin_ab"], rel=1e-12)
        assert s.margin_ba == pytest.approx(p["margin_ba"], rel=1e-12)
        assert s.margin_lo <= s.margin <= s.margin_hi
        n += 1
    assert n >= 8


def test_t_noise_is_p95_of_the_aa_deviations(run2):
    rec = [json.loads(l) for l in (run2 / "recording.jsonl").read_text().splitlines()]
    aa = next(r["result"] for r in rec if r["key"].startswith("aa_null:"))
    margins = [a["margin"] for a in aa]
    tn = t_noise(margins)
    assert tn == pytest.approx(quantile([abs(m - 1) for m in margins], 0.95))
    assert max(abs(m - 1) for m in margins) >= tn >= min(abs(m - 1) for m in margins)


def test_quantile_edges():
    assert quantile([3.0], 0.95) == 3.0
    assert quantile([1.0, 2.0], 0.5) == 1.5
    with pytest.raises(ValueError):
        quantile([], 0.5)
