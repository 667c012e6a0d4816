"""The H200 record of the idle consumer warpgroup (tail_rows=skip, a negative) and of the causal packing after the
C7520 fix (results/2026-12-03_h200_tail_rows): the figures its README states, read from the call's own files."""
from __future__ import annotations

import re

from recorded import RESULTS

from agent import levers
from agent.policy import CURRENT, POLICIES

REC = RESULTS / "2026-12-03_h200_tail_rows"


def margins() -> dict[tuple[str, str], float]:
    out = {}
    for line in (REC / "call1" / "margins.txt").read_text().splitlines():
        m = re.match(r"(\S+) (\S+)->(\S+): ([\d.]+) ", line)
        if m and "warmup" not in line:
            out[(re.search(r"N\d+", m.group(1)).group(0), f"{m.group(2)}>{m.group(3)}")] = float(m.group(4))
    return out


def test_the_tier_passed_with_its_bitwise_pairs():
    text = (REC / "call1" / "tier.txt").read_text()
    assert "built 16 of 16 libraries" in text
    assert "136 configurations x 8 kernels + 4 bitwise pairs" in text and "68 configurations x 8 kernels + 4 bitwise pairs" in text
    assert text.count("failures 0: []") == 2


def test_the_idle_warpgroup_is_a_negative_and_the_causal_packing_pays():
    m = margins()
    assert m[("N512", "ws3_lazy_qp_ot_pm>ws3_lazy_qp_ot_pm_ts")] == 0.9950
    assert m[("N4096", "ws3_lazy_hf_oq_pm>ws3_lazy_hf_oq_pm_ts")] == 0.9892
    assert m[("N1024", "ws_op_lazy_qp_hf_w_ot>ws_op_lazy_qp_hf_w_ot_pk")] == 1.0093
    assert m[("N8192", "ws_op_lazy_hf_w_oq>ws_op_lazy_hf_w_oq_pk")] == 1.0463
    assert m[("N8192", "ws_op_bc176_lazy_hf_w_oq_pm>ws_op_lazy_hf_w_oq_pk")] == 1.0142
    assert m[("N8192", "cudnn>ws_op_lazy_hf_w_oq_pk")] == 1.1347


def test_the_ncu_figures_and_the_policy_that_follows():
    text = (REC / "call1" / "anatomy.txt").read_text()
    assert "161440.0 ns, tensor 54.91%" in text and "barrier 0.68" in text
    assert "50304.0 ns" in text and "gmma 393216.0, inst 18852328.0" in text and "gmma 442368.0" in text
    assert CURRENT.version >= 16
    assert not levers.get("ws_p_with_exp").noncausal_only
    assert {lv.name: lv for lv in levers.catalog_for(POLICIES[15])}["ws_p_with_exp"].noncausal_only
    assert "2026-12-03_h200_tail_rows" in levers.get("ws_p_with_exp").hypothesis
