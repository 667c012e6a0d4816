"""Two Q tiles on the H200 (results/2026-12-03_h200_q_buffers): tier-clean and a negative; no lever proposes it."""
import inspect

import agent.levers
from recorded import RESULTS

HERE = RESULTS / "2026-12-03_h200_q_buffers" / "call1"


def test_the_tier_of_the_two_tile_kernels_has_no_failure():
    text = (HERE / "tier.txt").read_text()
    assert text.count("failures 0: []") == 2 and "failed: []" in text


def test_two_q_tiles_lose_where_they_were_to_pay():
    text = (HERE / "margins.txt").read_text()
    got = {}
    for line in text.splitlines():
        if "->" in line and "_q2:" in line and " cudnn->" not in line and "warmup" not in line:
            shape, rest = line.split(" ", 1)
            got[(shape, rest.split("->")[0])] = float(rest.split(": ")[1].split()[0])
    assert got == {("B16-H16-N512-D64-float16-noncausal", "ws3_lazy_qp_ot_pm"): 0.9940,
                   ("B16-H16-N512-D64-float16-noncausal", "ws3_lazy_qp_ot"): 0.9924,
                   ("B8-H16-Hkv4-N2048-D64-float16-noncausal", "ws3_lazy_qp_ot_pm"): 1.0033,
                   ("B2-H16-N2048-D128-float16-noncausal", "ws_op_lazy_qp_w_ot_pr_pk"): 0.9874,
                   ("B8-H32-Hkv8-N1024-D128-bfloat16-causal", "ws_op_lazy_qp_hf_w_ot_pm"): 1.0010}
    assert "q_buffers" not in inspect.getsource(agent.levers)  # the knob stays; no lever proposes it
