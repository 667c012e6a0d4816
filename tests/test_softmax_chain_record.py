"""The softmax-chain record on the H200 (results/2026-12-02_h200_softmax_chain): the tier of the tree row max and the
40-register producer, their paired margins, and the instruction mix of cuDNN's kernel against ours at N512 D64, each
read from the files the device returned."""
import importlib.util
import tarfile

from recorded import RESULTS, suite_margins

REC = RESULTS / "2026-12-02_h200_softmax_chain"


def _margins() -> dict:
    return suite_margins(REC / "call1" / "json.tgz")


def test_the_tier_passed():
    text = (REC / "call1" / "tier.txt").read_text()
    assert "tier D64+128: 136 configurations x 10 kernels + 7 bitwise pairs" in text
    assert "tier D64: 68 configurations x 4 kernels + 2 bitwise pairs" in text
    assert text.count("failures 0: []") == 2


def test_the_tree_row_max_loses_at_d64_and_the_40_register_producer_pays_where_it_spilled():
    m = _margins()
    n512 = "B16-H16-N512-D64"
    assert m[n512, "ws3_lazy_qp_ot->ws3_lazy_qp_ot_rt"] == 0.9798
    assert m[n512, "ws_op_lazy_qp_w_ot->ws_op_lazy_qp_w_ot_rt"] == 0.9807
    assert m["B2-H16-N8192-D64", "ws3_lazy_qp_ot->ws3_lazy_qp_ot_rt"] == 0.9845
    assert m[n512, "ws_op_lazy_qp_w_ot->ws_op_lazy_qp_w_ot_pr"] == 1.0177
    assert m["B2-H16-N2048-D128", "ws_op_lazy_qp_w_ot->ws_op_lazy_qp_w_ot_pr"] == 1.0085
    # no shape below cuDNN crosses it
    assert m[n512, "cudnn->ws2c_ot"] == 0.9321
    assert m["B2-H16-N2048-D128", "cudnn->ws_op_lazy_w_oq"] == 0.9939
    assert m["B8-H32-Hkv8-N1024-D128", "cudnn->ws_op_lazy_qp_hf_w_ot_rt_pr"] == 0.9916


def test_cudnn_spreads_its_exponentials_where_ours_issue_back_to_back():
    spec = importlib.util.spec_from_file_location("summarize", REC / "summarize.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with tarfile.open(REC / "call1" / "src.tgz") as tf:
        cn, cs, cw = mod.by_opcode(tf, "sdpa_cudnn")
        on, os_, ow = mod.by_opcode(tf, "ws_op_lazy_qp_w_ot_rt_pr")
    share = lambda c, k: 100 * c[k] / sum(c.values())  # noqa: E731
    assert abs(cn["MUFU"] / on["MUFU"] - 1) < 0.02  # the same exponentials
    assert sum(cn.values()) < sum(on.values())
    assert cn["FADD"] > 1.9 * cn["MUFU"] and on["FADD"] < 1.05 * on["MUFU"]  # cuDNN sums with more FADD
    assert round(share(cs, "MUFU"), 1) == 5.6 and round(share(os_, "MUFU"), 1) == 19.3
    assert ow.most_common(1)[0][0] == "MUFU"
    assert (REC / "call1_summary.txt").read_text().count("executed per MUFU") == 2
