"""The strided entry's H200 record (results/2026-12-02_h200_strided_layout): what its README claims, read back from
the call's own output."""
import json
from pathlib import Path

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-02_h200_strided_layout" / "call1"


def test_every_kernel_passed_the_tier_and_matched_its_contiguous_call_bitwise():
    d = json.loads((REC / "strided_check.json").read_text())
    assert d["gpu"] == "NVIDIA H200"
    taken = {n: set(k["layouts"][0]["taken"]) for n, k in d["kernels"].items()}
    assert taken == {"ws_op_lazy_hf_w_oq": set("qkvo"), "ws_op_lazy_w": set("qkvo"), "ws_op_lazy_qp_w_ot": set("qkvo"),
                     "ws3_lazy_oq": set("qkvo"), "ws_op_lazy_qp_is": set("qkv"), "arm": set("kv")}
    for name, k in d["kernels"].items():
        assert k["tier"]["ok"], name
        for r in k["layouts"]:
            assert all(c["o_bitwise"] and c["lse_bitwise"] and c["finite"] for c in r["cases"].values()), (name, r)
            # an operand the kernel does not take strided is refused, never read as if contiguous
            assert all(v.startswith("refused") for v in r["refused"].values()), (name, r["refused"])
            assert set(r["refused"]) <= set("qkvo") - taken[name]
    refused = {n: {o for r in k["layouts"] for o in r["refused"]} for n, k in d["kernels"].items()}
    assert refused["arm"] == {"q", "o"} and refused["ws_op_lazy_qp_is"] == {"o"}


def test_the_timing_the_readme_quotes():
    d = json.loads((REC / "strided_check.json").read_text())
    got = {t["problem"]: {k: round(v["margin"], 4) for k, v in t.items() if isinstance(v, dict)} for t in d["timing"]}
    assert got["B2-H16-N2048-D128-float16-noncausal"]["old_vs_new_contiguous"] == 0.9929
    assert got["B1-H32-Hkv8-N4096-D128-bfloat16-causal"]["old_vs_new_contiguous"] == 0.9934
    assert [g["contiguous_vs_model_layout"] for g in got.values()] == [0.9971, 1.0]


def test_the_model_check_prefill_figures():
    d = json.loads((REC / "tt_model" / "model_check.json").read_text())
    rows = {r["N"]: r for r in d["rows"]}
    assert all(r["passes"] and r["served_by"] == "fa5090" for r in rows.values())
    pre = {n: {k: round(v["margin"], 4) for k, v in r["prefill"].items()} for n, r in rows.items()}
    assert pre[4096]["sdpa_default"] == 1.0081 and pre[8192]["sdpa_default"] == 1.0116
    assert pre[4096]["sdpa_cudnn"] == 1.0122 and pre[8192]["sdpa_cudnn"] == 1.0152
    assert pre[2048]["sdpa_default"] == 1.0023 and pre[2048]["sdpa_cudnn"] == 0.99
    assert all(abs(p["ours_again"] - 1) < 0.005 for p in pre.values())
    assert all(0.997 <= r["op_layout"]["margin"] <= 1.001 for r in rows.values())
