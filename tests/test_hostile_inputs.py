"""C1's hostile inputs (experiments.tier.HOSTILE): scores that rise along the keys, an attention sink, a late
jump of the row max, large |q|,|k| and |V|, q = 0. With N(0,1) inputs a row's max settles in its first key
block, so the online softmax's rescale is nearly idle and a kernel that lets P run past the dtype's range
when the max grows passes every check. Shown here on a torch emulation of the block-wise kernel (CPU); the
GPU kernels meet the same inputs through the same C1."""

import math

import pytest
import torch

from experiments.problem import HOSTILE, Shape, c1_patterns, c1_shapes
from experiments.tier import check, inputs_for
from kernel_src.knobs import Knobs

WGMMA = Knobs(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", br=128, warps=8, bc=64,
              kv_stages=2, rescale_skip="on", softmax="fused", rescale_lazy="on")


def online(bc: int, lazy_log2: float | None = None):
    """The kernels' block loop in torch: per key block the row max (raised only when it grows by more than
    `lazy_log2` in log2 units, the lazy rescale; None: always), alpha = exp(m_old - m_new) on l and O,
    P = exp(s - m) summed into l in fp32 and rounded to the input dtype (where fp16 overflows to inf)
    before P V in fp32.
    """

    def run(q, k, v, o, lse, causal):
        B, H, N, D = q.shape
        if k.shape[1] != H:
            k, v = (x.repeat_interleave(H // k.shape[1], dim=1) for x in (k, v))
        s_all = torch.matmul(q.float(), k.float().transpose(-1, -2)) / math.sqrt(D)
        if causal:
            s_all = s_all.masked_fill(torch.ones(N, N, dtype=torch.bool).triu(1), float("-inf"))
        m = torch.full((B, H, N, 1), float("-inf"))
        l = torch.zeros(B, H, N, 1)
        acc = torch.zeros(B, H, N, D)
        for k0 in range(0, N, bc):
            s = s_all[..., k0:k0 + bc]
            mnew = torch.maximum(m, s.amax(-1, keepdim=True))
            if lazy_log2 is not None:
                keep = (mnew - m) * math.log2(math.e) <= lazy_log2
                mnew = torch.where(keep, m, mnew)
            meff = torch.where(mnew == float("-inf"), torch.zeros_like(mnew), mnew)
            alpha = torch.exp(m - meff)
            p = torch.exp(s - meff)
            l = l * alpha + p.sum(-1, keepdim=True)  # the row sums from P in fp32, as the kernels add them
            acc = acc * alpha + torch.matmul(p.to(q.dtype).float(), v[..., k0:k0 + bc, :].float())
            m = mnew
        o.copy_((acc / l).to(o.dtype))
        lse.copy_((m + torch.log(l)).squeeze(-1))

    return run


def _c1(run, target, knobs, only=None):
    shapes, patterns = c1_patterns(c1_shapes(target, knobs))
    fails = []
    for i, (s, pat) in enumerate(zip(shapes, patterns)):
        if only is not None and pat not in only:
            continue
        r = check(lambda q, k, v, o, l, s=s: run(q, k, v, o, l, s.causal), s, "cpu", seed=i, pattern=pat)
        if not r.ok:
            fails.append((s.N, s.causal, pat, r.reason[:60]))
    return fails


def test_c1_draws_each_hostile_pattern_on_three_multi_block_shapes():
    shapes, patterns = c1_patterns(c1_shapes(Shape(B=2, H=16, N=8192, D=128), WGMMA))
    for p in HOSTILE:
        on = [s for s, q in zip(shapes, patterns) if q == p]
        assert len(on) == 3 and all(s.N >= 128 for s in on) and any(s.causal for s in on), p


@pytest.mark.parametrize("pattern", HOSTILE)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_hostile_inputs_are_finite_in_the_dtype_and_do_what_they_say(pattern, dtype):
    s = Shape(B=1, H=2, N=256, D=64, dtype=dtype)
    q, k, v = inputs_for(pattern, s, "cpu", 5)
    assert all(torch.isfinite(x).all() for x in (q, k, v))
    sc = torch.matmul(q.float(), k.float().transpose(-1, -2)) / 8.0
    if pattern == "rising":  # the row max climbs across the keys: ~+30 from the first block to the last
        assert (sc[..., -64:].amax(-1) - sc[..., :64].amax(-1)).mean() > 20
    if pattern == "sink":
        assert (sc[..., 0] - sc[..., 1:].amax(-1)).mean() > 20
    if pattern == "large_qk":
        assert 12 < sc.std() < 24
    if pattern == "large_v":
        assert v.abs().max() <= 2e4 and v.abs().min() >= 1e4
    if pattern == "zero_q":
        assert not q.any()


@pytest.mark.parametrize("dtype,bc", [("float16", 64), ("bfloat16", 128)])
def test_the_correct_block_loop_passes_every_pattern_exact_and_lazy(dtype, bc):
    target = Shape(B=2, H=16, N=4096, D=64, dtype=dtype)
    knobs = WGMMA.replace(bc=bc)
    assert _c1(online(bc), target, knobs) == []
    assert _c1(online(bc, lazy_log2=8.0), target, knobs) == []


def test_a_lazy_rescale_that_lets_p_overflow_passes_the_old_inputs_and_fails_the_hostile_ones():
    """fp16, BC 64, a lazy threshold of 2^20 instead of 2^8 (P may reach 2^20 > 65504): on N(0,1) and
    masked-dominant inputs the max hardly moves after the first block and every check passes; rising
    scores (and large |q|,|k|) overflow P to inf, and the output reads NaN."""
    target = Shape(B=2, H=16, N=4096, D=64, dtype="float16")
    run = online(64, lazy_log2=20.0)
    assert _c1(run, target, WGMMA, only=("normal", "masked_dominant")) == []
    fails = _c1(run, target, WGMMA, only=HOSTILE)
    assert "rising" in {p for _, _, p, _ in fails}, fails
    assert any("NaN/inf" in why for *_, why in fails)
