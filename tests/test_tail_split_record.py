"""The tail tile split inside the CTA (tail_rows=split) on the H200 (results/2026-12-04_h200_tail_split): tier-clean in
three builds, each a loss against the idle tail warpgroup; the knob's rule, its shared memory and its tier shapes; no
lever proposes it."""
import inspect
import re

import pytest

import agent.levers
from experiments.problem import Shape, c1_shapes, tile_ns
from kernel_src.knobs import Knobs, KnobError
from recorded import RESULTS

HERE = RESULTS / "2026-12-04_h200_tail_split"
AGENT = "ws3_lazy_qp_hf_ot_ts_s3"  # the agent's N512 D64 final: the idle tail
PM = "ws3_lazy_qp_hf_ot_pm_ts_s3"  # the suite's kernel: the idle tail, P packed mid-wait


def _margins(call: str) -> dict:
    got = {}
    for line in (HERE / call / "margins.txt").read_text().splitlines():
        m = re.match(r"(B\S+)-float16-noncausal (\S+)->(\S+): ([0-9.]+) ", line)
        if m:
            got[(m[1], m[2], m[3])] = float(m[4])
    return got


@pytest.mark.parametrize("call", ["call1", "call2", "call3"])
def test_every_build_passes_the_tier(call):
    text = (HERE / call / "tier.txt").read_text()
    assert "built 3 of 3 libraries" in text and text.count("failures 0: []") == 2


@pytest.mark.parametrize("call,n512,pm,gqa", [("call1", 0.9153, 0.9427, 0.9122), ("call2", 0.9325, 0.9662, 0.9809),
                                              ("call3", 0.9533, 0.9675, 0.9876)])
def test_each_build_loses_to_the_idle_tail(call, n512, pm, gqa):
    got = _margins(call)
    split = lambda n: n.replace("_ts_", "_tsp_")
    assert got[("B16-H16-N512-D64", AGENT, split(AGENT))] == n512
    assert got[("B16-H16-N512-D64", PM, split(PM))] == pm
    assert got[("B8-H16-Hkv4-N2048-D64", AGENT, split(AGENT))] == gqa
    assert max(n512, pm, gqa) < 1  # the predicted 1.02-1.045 did not come
    assert 0.99 < got[("B16-H16-N512-D64", "cudnn", AGENT)] < 1  # the idle tail, still below cuDNN


def test_the_rule_names_what_split_needs():
    base = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
                kv_release="producer", mainloop="ws", kv_stages=3, causal_mask="predicate", br=192, warps=12, bc=128,
                pipeline="on", persistent="on", q_load="tma", o_store="tma", tail_rows="split")
    k = Knobs.parse(base)
    assert k.smem_bytes(64) - Knobs.parse({**base, "tail_rows": "skip"}).smem_bytes(64) == 16 + 2 * 128 * 36 * 4
    with pytest.raises(KnobError, match="q_load"):
        Knobs.parse({**base, "q_load": "cp_async"})
    assert "tail_rows=split" not in inspect.getsource(agent.levers)  # the knob stays; no lever proposes it


def test_the_tier_reaches_a_tile_whose_last_warpgroup_alone_lies_past_n():
    for br in (128, 192):
        n = 2 * br - 65
        assert n in tile_ns(br, 128, split_tail=True) and br + (br // 64 - 2) * 64 < n <= br + (br // 64 - 1) * 64
        assert n not in tile_ns(br, 128)  # other kernels' checks (and the recorded runs' questions) keep their shapes
    base = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
                kv_release="producer", mainloop="ws", kv_stages=3, causal_mask="predicate", br=192, warps=12, bc=128,
                pipeline="on", persistent="on", q_load="tma", o_store="tma")
    target = Shape(B=16, H=16, N=512, D=64)
    assert 319 in {s.N for s in c1_shapes(target, Knobs.parse({**base, "tail_rows": "split"}))}
    assert 319 not in {s.N for s in c1_shapes(target, Knobs.parse({**base, "tail_rows": "skip"}))}


def test_the_first_build_took_the_key_block_loop_off_the_uniform_datapath():
    text = (RESULTS / "2026-12-04_cpu_tail_split" / "loop_uniform.txt").read_text().split("$ ")[1:]
    assert len(text) == 3 and "41bdca6" in text[0] and "092b9a6" in text[2]
    assert "tsp_s3: key-block loop 929 instructions, R2UR 32, ULOP3.LUT 0" in text[0]
    assert all("tsp_s3: key-block loop" in t and "R2UR 10, ULOP3.LUT 24" in t.split("tsp_s3:")[1] for t in text[1:])
