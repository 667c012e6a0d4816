"""The rows' sums of P on the tensor cores (row_sum=mma) and the two-consumer staging moves, as recorded on an H100
(results/2026-12-06_h100_row_sum, _row_sum_around, _n512_two_consumers): the tier's bf16 LSE failures that made the
knob fp16 alone and the clean tier after, each margin the READMEs quote from the JSON the device wrote, the suite's
kernels named in the calls, and the knob's rules."""
import gzip
import json
import sys
import tarfile

import pytest

from kernel_src.knobs import Knobs, KnobError
from recorded import RESULTS, assert_tier_passed, recorded_text

RS, AROUND = RESULTS / "2026-12-06_h100_row_sum", RESULTS / "2026-12-06_h100_row_sum_around"
TWO = RESULTS / "2026-12-06_h100_n512_two_consumers"
N512 = "B16-H16-N512-D64-float16-noncausal"


def _tgz(path, member) -> dict:
    with tarfile.open(path) as t:
        return json.load(t.extractfile(member))


def _margin(rec: dict, shape: str, move: str) -> float:
    return round(rec["margins"][f"{shape}:{move}"]["margin"], 4)


def _suite():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite

    return device_suite


def test_the_first_tier_failed_the_lse_in_bf16_alone():
    tier = _tgz(RS / "rs_rest.tgz", "./tier/tier.json")
    for key in ("D64+128", "D64"):
        s = tier[key]
        bad = [r for r in s["rows"] if r["reason"]]
        assert bad and all(r["reason"] == "lse" and "bfloat16" in s["configs"][r["config"]] for r in bad)
        fp16 = [r["lse_err"] for r in s["rows"] if "float16" in s["configs"][r["config"]]
                and "bfloat16" not in s["configs"][r["config"]]]
        assert max(fp16) < 2.3e-4 and max(r["lse_err"] for r in bad) == pytest.approx(1.642e-3, abs=1e-6)
        assert s["worst_fraction_of_bound"] < 0.5


def test_the_tier_passes_once_bf16_keeps_its_fadd_sums():
    tier = _tgz(AROUND / "json.tgz", "tier/tier.json")
    assert_tier_passed(tier, {"D64+128": (168, 6, 0), "D64": (84, 9, 6)})
    assert "source a475d90" in (AROUND / "gpu.txt").read_text() and "H100 80GB HBM3" in (AROUND / "gpu.txt").read_text()


def test_the_margins_the_readmes_quote():
    n512 = json.loads(gzip.decompress((RS / "n512.json.gz").read_bytes()))
    assert _margin(n512, N512, "ws3_lazy_qp_ot_ts_s3_dy->ws3_lazy_qp_ot_ts_s3_dy_rs") == 1.0364
    assert _margin(n512, N512, "cudnn->ws3_lazy_qp_ot_ts_s3_dy_rs") == 0.9582
    d128 = json.loads(gzip.decompress((RS / "n8k_d128.json.gz").read_bytes()))
    n8 = "ws_op_lazy_w_oq_pk_dm"
    assert _margin(d128, "B2-H16-N8192-D128-float16-noncausal", f"{n8}->{n8}_rs") == 0.9486
    around = _tgz(AROUND / "json.tgz", "m/margins.json")
    b = "ws3_lazy_qp_ot_ts_s3_dy_rs"
    assert _margin(around, N512, f"ws3_lazy_qp_ot_ts_s3_dy->{b}") == 1.0395
    assert _margin(around, N512, f"{b}->{b}_hdsw") == 1.0197
    assert all(0.9998 < m < 1.0005 for m in around["aa"][f"{b}@{N512}"])
    hdsw = (AROUND / "hdsw" / "margins_hdsw.txt").read_text()
    assert f"{N512} cudnn->{b}_hdsw: 0.9754 (0.9756/0.9751)" in hdsw and "exit 1" in hdsw
    two = json.loads(gzip.decompress((TWO / "margins.json.gz").read_bytes()))
    t2 = "ws_op_lazy_qp_ot_pr_pk"
    assert _margin(two, N512, f"{t2}->{t2}_npp") == 1.0215 and _margin(two, N512, f"cudnn->{t2}") == 0.8653
    assert _margin(two, N512, "ws_op_lazy_qp_ot_pr->ws_op_lazy_qp_ot_pr_is") == 0.9031


def test_the_calls_name_the_suites_kernels():
    ds = _suite()
    for n in ds.RS:
        assert ds.KERNELS[f"{n}_rs"] == {**ds.KERNELS[n], "row_sum": "mma"}
    assert ds.KERNELS[ds.RSB2] == {**ds.KERNELS["ws3_lazy_qp_ot_ts_s3_dy"], "row_sum": "mma", "desc_math": "hoisted",
                                   "mbar_wait": "suspend"}
    for k in ds.RS_AROUND:
        assert [f"{ds.RSB}_{k}", ds.RSB] in ds.TIER[(64,)]
    for k in ds.RS2_AROUND:
        assert [f"{ds.RSB2}_{k}", ds.RSB2] in ds.TIER[(64,)]


def test_the_knob_refuses_the_item_stream_and_the_split_tail():
    ds = _suite()
    base = {**ds.KERNELS["ws_op_lazy_qp_ot_pr"], "row_sum": "mma"}
    assert Knobs.parse(base).smem_bytes(64) == Knobs.parse(ds.KERNELS["ws_op_lazy_qp_ot_pr"]).smem_bytes(64) + 1024
    with pytest.raises(KnobError, match="row_sum"):
        Knobs.parse({**base, "item_stream": "on"})
    with pytest.raises(KnobError, match="row_sum"):
        Knobs.parse({**ds.KERNELS["ws_o_lazy_qp_ot_pr_tsp"], "row_sum": "mma"})
    with pytest.raises(KnobError, match="row_sum"):
        Knobs.parse({"row_sum": "mma"})


def test_plan_best_checks_a_kernel_at_a_head_dim_it_fits():
    """The two-consumer kernel with three K/V stages fits 227 KB at D=64 alone: plan `best` dropped it as a fault at
    its D=128 check (the two-consumer record's best.log); it is checked at D=64 now."""
    from kernel_src.arch import limits

    ds = _suite()
    cap = limits("sm_90").smem_per_block_optin
    assert "sanity: dropped ['ws_op_lazy_qp_ot_pr_pk_s3'] (error)" in (TWO / "best.log").read_text()
    assert Knobs.parse(ds.KERNELS["ws_op_lazy_qp_ot_pr_pk_s3"]).smem_bytes(128) > cap
    assert ds.sanity_dim("ws_op_lazy_qp_ot_pr_pk_s3", cap) == 64 and ds.sanity_dim("ws_op_lazy_qp_ot_pr_pk", cap) == 128
    assert ds.sanity_dim("ws3_lazy_qp_ot_pm", cap) == 64


def test_the_default_left_every_checked_configurations_ptx_as_it_was():
    text = recorded_text(RESULTS / "2026-12-06_cpu_row_sum" / "ptx_unchanged.txt")
    assert "--base 018d748" in text and text.rstrip().splitlines()[-1].startswith("# 719 of 719 same after normalisation")
    assert "\tdiffers\t" not in text
