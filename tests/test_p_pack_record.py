"""P packed among its exponentials on the H200 (results/2026-12-03_h200_p_pack): the tier, the paired margins, the suite
against SDPA cuDNN and the ncu figures its README states, each read from the files the device returned; and the agent's
two levers as the README describes them."""
import gzip
import json
import re
import tarfile

from recorded import RESULTS, load_script, recorded_text, suite_margins

from agent import levers
from agent.policy import CURRENT

REC = RESULTS / "2026-12-03_h200_p_pack"


def _margins() -> dict:
    return suite_margins(REC / "call1" / "json.tgz")


def test_the_tier_passed_and_every_packing_is_bitwise_its_kernel():
    lines = [ln for c in ("call1", "call2", "call3") for ln in (REC / c / "tier.txt").read_text().splitlines()
             if ln.startswith("tier ")]
    assert len(lines) == 6 and all(ln.endswith("failures 0: []") for ln in lines)
    got = [tuple(map(int, re.search(r"(\d+) configurations x (\d+) kernels \+ (\d+) bitwise", ln).groups())) for ln in lines]
    assert got == [(136, 15, 10), (68, 8, 6), (136, 3, 2), (68, 0, 0), (136, 4, 2), (68, 2, 1)]


def test_with_exp_pays_on_two_consumers_and_loses_under_a_causal_mask_mid_wait_the_other_way():
    m = _margins()
    n2k, n8k, causal = "B2-H16-N2048-D128", "B2-H16-N8192-D128", "B8-H32-Hkv8-N1024-D128"
    assert m[n2k, "ws_op_lazy_w_oq->ws_op_lazy_w_oq_pk"] == 1.0113
    assert m[n8k, "ws_op_lazy_w_oq->ws_op_lazy_w_oq_pk"] == 1.0150
    assert m[n2k, "ws_op_lazy_qp_w_ot_pr->ws_op_lazy_qp_w_ot_pr_pk"] == 1.0302
    assert m[causal, "ws_op_lazy_qp_hf_w_ot->ws_op_lazy_qp_hf_w_ot_pk"] == 0.7808
    assert m[causal, "ws_op_lazy_qp_hf_w_ot->ws_op_lazy_qp_hf_w_ot_pm"] == 1.0105
    assert 0.935 <= m[n2k, "ws_op_lazy_w_oq->ws_op_lazy_w_oq_pm"] <= 0.948 and m[n8k, "ws_op_lazy_w_oq->ws_op_lazy_w_oq_pm"] < 0.94
    assert m["B8-H16-Hkv4-N2048-D64", "ws3_lazy_qp_ot->ws3_lazy_qp_ot_pm"] == 1.0128
    assert m["B16-H16-N512-D64", "ws3_lazy_qp_ot->ws3_lazy_qp_ot_pk"] == 0.7955


def test_ten_of_eleven_suite_shapes_at_or_above_cudnn():
    rows = {}
    for c in ("call2", "call3"):
        for r in json.loads(gzip.open(REC / c / "best.json.gz").read()):
            s = r["confirm"]["summary"]
            assert s[f"check:{r['best']}"] == "pass"
            rows[r["shape"]] = (r["best"], s[f"cudnn:{r['best']}"]["margin"])
    assert len(rows) == 11
    above = {k for k, (_, x) in rows.items() if x >= 1.0}
    assert set(rows) - above == {"B16-H16-N512-D64-float16-noncausal"}
    assert rows["B2-H16-N2048-D128-float16-noncausal"] == ("ws_op_lazy_qp_w_ot_pr_pk", 1.0251)
    assert rows["B8-H32-Hkv8-N1024-D128-bfloat16-causal"] == ("ws_op_lazy_qp_hf_w_ot_pm", 1.0034)
    assert rows["B2-H16-N8192-D128-float16-noncausal"][1] == 1.0653
    assert round(rows["B16-H16-N512-D64-float16-noncausal"][1], 3) == 0.942
    # the causal shapes' with_exp candidates all lose
    for c in ("call2", "call3"):
        for r in json.loads(gzip.open(REC / c / "best.json.gz").read()):
            if "-causal" in r["shape"]:
                pk = [v["margin"] for t, v in r["screen"]["summary"].items() if t.startswith("cudnn:") and t.endswith("_pk")]
                assert pk and 0.61 <= min(pk) and max(pk) <= 0.775


def test_the_packing_moves_little_of_the_mufu_wait_at_n512():
    mod = load_script(RESULTS / "2026-12-02_h200_softmax_chain" / "summarize.py")
    share = {}
    with tarfile.open(REC / "call1" / "src.tgz") as tf:
        for n in ("sdpa_cudnn", "ws2c_ot", "ws2c_ot_pk"):
            _, s, _ = mod.by_opcode(tf, n)
            share[n] = (round(100 * s["MUFU"] / sum(s.values()), 1), sum(s.values()))
    assert share == {"sdpa_cudnn": (5.1, 4995.0), "ws2c_ot": (17.4, 5443.0), "ws2c_ot_pk": (15.9, 5395.0)}


def test_the_static_record_and_the_agents_levers():
    text = (REC / "static_cpu.txt").read_text()
    assert re.search(r"ws_op_lazy_qp_hf_w_ot_pk D128 causal: 168 registers, 56/104/128; 6544 instructions", text)
    assert re.search(r"ws_op_lazy_qp_hf_w_ot D128 causal: 168 registers, 56/104/128; 3904 instructions", text)
    assert re.search(r"ws3_lazy_qp_ot_pk D64: 128 registers, \d+/516/", text)
    assert "21 of 21 same" in recorded_text(REC / "ptx_unchanged_ws.txt")
    assert CURRENT.version >= 13
    from agent.policy import POLICIES
    pk, pm = levers.get("ws_p_with_exp"), levers.get("ws_p_mid_wait")
    as_13 = {lv.name: lv for lv in levers.catalog_for(POLICIES[13])}  # non-causal until the C7520 fix was measured
    assert as_13["ws_p_with_exp"].noncausal_only and not pk.sampled and not pm.sampled and not pm.noncausal_only
    assert "2026-12-03_h200_p_pack" in pk.hypothesis and "1.030" in pk.hypothesis and "1.011" in pm.hypothesis
    shares = (REC / "sampler_valid_share.txt").read_text()
    assert "sampled: 0.0060% of 200000" in shares and "(not sampled): 0.0110% of 200000" in shares
