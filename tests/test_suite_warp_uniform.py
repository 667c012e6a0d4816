"""The suite's eight shapes where a warp-uniform kernel may lead, against SDPA cuDNN on an H100
(results/2026-12-06_h100_suite_warp_uniform): every best checked, confirmed in a fresh process, and printed as the
README quotes it."""
from recorded import RESULTS, assert_best_rows_as_printed

REC = RESULTS / "2026-12-06_h100_suite_warp_uniform"
KS_WU = "ws_op_lazy_qp_w_ot_pr_pk_dm_wu"
ROWS = {"B2-H16-N2048-D128-float16-noncausal": (KS_WU, 1.053),
        "B8-H32-Hkv8-N1024-D128-bfloat16-causal": ("ws_op_lazy_qp_hf_w_ot_pm_wu", 1.049),
        "B8-H16-Hkv4-N2048-D64-float16-noncausal": ("ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu", 1.135),
        "B2-H16-N8192-D128-float16-noncausal": (KS_WU, 1.086),
        "B1-H16-N32768-D128-float16-noncausal": (KS_WU, 1.091),
        "B2-H16-N8192-D128-float16-causal": (KS_WU, 1.138),
        "B4-H16-N4096-D128-bfloat16-noncausal": (KS_WU, 1.078),
        "B1-H32-Hkv4-N16384-D128-bfloat16-causal": (KS_WU, 1.114)}


def test_the_eight_rows_as_the_readme_quotes_them():
    assert_best_rows_as_printed(REC, {shape: (best, m, None) for shape, (best, m) in ROWS.items()}, REC / "README.md")
