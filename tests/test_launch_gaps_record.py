"""The launch between back-to-back calls and the dependent launch, as recorded on an H100
(results/2026-12-06_h100_launch_gaps): CUPTI's kernel records of `device_anatomy.py --trace` read again through
`kernel_gaps`, cuDNN's memset and kernel told apart, the tiers, each margin the README quotes, and the suite's
`_dl` kernels."""
import json
import statistics
import sys
import tarfile

import pytest

from kernel_src.knobs import Knobs
from recorded import RESULTS, assert_tier_passed

LG = RESULTS / "2026-12-06_h100_launch_gaps"
N512 = "B16-H16-N512-D64-float16-noncausal"
BEST = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"


def _scripts(name):
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    return __import__(name)


def _tgz(path, member) -> dict:
    with tarfile.open(path) as t:
        return json.load(t.extractfile(member))


def _margin(rec: dict, shape: str, move: str) -> float:
    return round(rec["margins"][f"{shape}:{move}"]["margin"], 4)


@pytest.fixture(scope="module")
def trace():
    return {r["ours_name"]: r for r in json.loads((LG / "gaps" / "trace.json").read_text())}


def test_our_records_give_the_figures_the_trace_printed(trace):
    gaps = _scripts("device_anatomy").kernel_gaps
    for name, r in trace.items():
        ours = r["ours"]
        again = gaps([(a, b, "fa_fwd") for a, b in ours["records"]])
        assert again["n"] == ours["n"] == 300 and again["overlapping"] == ours["overlapping"]
        assert again["kernel_us_median"] == pytest.approx(ours["kernel_us_median"], abs=2e-3)
        assert again["gap_us_median"] == pytest.approx(ours["gap_us_median"], abs=2e-3)
    assert trace[BEST]["ours"]["overlapping"] == 0 and trace[f"{BEST}_dl"]["ours"]["overlapping"] == 294
    assert round(trace[BEST]["ours"]["kernel_us_median"], 2) == 48.37
    assert round(trace[BEST]["ours"]["gap_us_median"], 2) == 1.33
    assert round(trace[f"{BEST}_dl"]["ours"]["gap_us_median"], 2) == -7.94
    assert round(trace[f"{BEST}_dl"]["ours"]["kernel_us_median"], 2) == 56.21


def test_cudnn_launches_a_memset_and_its_kernel_a_call_without_overlap(trace):
    r = trace[BEST]["cudnn"]
    assert any("Memset" in k for k in r["kernels"]) and any("cudnn" in k for k in r["kernels"])
    dur = [b - a for a, b in r["records"]]
    kernel, memset = [d for d in dur if d > 10], [d for d in dur if d <= 10]
    assert len(kernel) == len(memset) == 300 and r["overlapping"] == 0
    assert round(statistics.median(kernel), 2) == 46.05 and round(statistics.median(memset), 2) == 0.74
    # cuDNN's kernel alone against ours: 0.952 of our time
    assert statistics.median(kernel) / trace[BEST]["ours"]["kernel_us_median"] == pytest.approx(0.952, abs=1e-3)


def test_every_tier_passed():
    assert_tier_passed(_tgz(LG / "gaps" / "json.tgz", "tier/tier.json"), {"D64": (84, 2, 1)})
    assert_tier_passed(_tgz(LG / "around" / "json.tgz", "tier/tier.json"), {"D64": (84, 5, 4)})
    assert_tier_passed(_tgz(LG / "both" / "json.tgz", "tier/tier.json"), {"D64": (84, 2, 1)})
    assert_tier_passed(_tgz(LG / "d128" / "json_d128.tgz", "tier/tier.json"), {"D64+128": (168, 2, 1)})
    assert all("H100 80GB HBM3" in (LG / d / "gpu.txt").read_text() for d in ("gaps", "around", "both", "d128"))


def test_the_margins_the_readme_quotes():
    g = _tgz(LG / "gaps" / "json.tgz", "m/margins.json")
    assert _margin(g, N512, f"{BEST}->{BEST}_dl") == 1.0135
    assert (_margin(g, N512, f"cudnn->{BEST}"), _margin(g, N512, f"cudnn->{BEST}_dl")) == (0.9807, 0.9944)
    assert all(0.9996 < m < 1.0 for m in g["aa"][f"{BEST}@{N512}"])
    a = _tgz(LG / "around" / "json.tgz", "m/margins.json")
    assert {k: _margin(a, N512, f"{BEST}->{BEST}_{k}") for k in ("pm", "s2", "st", "el")} == {
        "pm": 0.9739, "s2": 0.9892, "st": 0.9036, "el": 1.0103}
    assert _margin(a, N512, f"cudnn->{BEST}") == 0.9673
    a2 = _tgz(LG / "around" / "json.tgz", "m2/margins.json")
    gqa, n8 = "B8-H16-Hkv4-N2048-D64-float16-noncausal", "B2-H16-N8192-D64-float16-noncausal"
    assert _margin(a2, gqa, f"ws3_lazy_qp_ot_pm_dm->{BEST}") == 1.0087 and _margin(a2, gqa, f"cudnn->{BEST}") == 1.0982
    assert _margin(a2, n8, f"ws3_lazy_qp_ot_pm_dm->{BEST}") == 1.0016 and _margin(a2, n8, f"cudnn->{BEST}") == 1.1078
    b = _tgz(LG / "both" / "json.tgz", "m/margins.json")
    assert _margin(b, N512, f"{BEST}_dl->{BEST}_el_dl") == 1.0073
    assert [_margin(b, N512, f"cudnn->{BEST}{s}") for s in ("_el_dl", "_dl", "")] == [0.9970, 0.9974, 0.9786]
    assert all(0.9999 < m < 1.0003 for m in b["aa"][f"{BEST}_dl@{N512}"])
    d = _tgz(LG / "d128" / "json_d128.tgz", "m/margins.json")
    k, s = "ws_op_lazy_qp_w_ot_pr_pk_dm", "B2-H16-N2048-D128-float16-noncausal"
    assert _margin(d, s, f"{k}->{k}_dl") == 1.0148
    assert (_margin(d, s, f"cudnn->{k}"), _margin(d, s, f"cudnn->{k}_dl")) == (1.0215, 1.0290)


def test_the_suite_s_dependent_launch_kernels_and_the_knob_s_arm():
    ds = _scripts("device_suite")
    for n in ds.DL:
        assert ds.KERNELS[f"{n}_dl"] == {**ds.KERNELS[n], "dependent_launch": "on"}
    assert ds.KERNELS[f"{BEST}_el_dl"] == {**ds.KERNELS[BEST], "kv_l2_hint": "evict_last", "dependent_launch": "on"}
    assert Knobs(**ds.KERNELS[f"{BEST}_dl"]).defines()["FA_DEPENDENT_LAUNCH"] == 1
    with pytest.raises(ValueError, match="knob 'dependent_launch'=on .* it needs compute=wgmma, not compute=mma"):
        Knobs(compute="mma", dependent_launch="on")
