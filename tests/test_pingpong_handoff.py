"""The ping-pong's turns carried across items (knob pingpong_handoff=last_turn): its rule, the suite's bitwise pairs, the
ptxas record (results/2026-12-06_cpu_pingpong_handoff) and the H100 record (results/2026-12-06_h100_pingpong_handoff):
the tier and the margins its README quotes."""

import re

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, assert_tier_passed, device_pairs, packed_tier, suite_margins

CPU = RESULTS / "2026-12-06_cpu_pingpong_handoff"
H100 = RESULTS / "2026-12-06_h100_pingpong_handoff"
KS = "ws_op_lazy_qp_w_ot_pr_pk_dm"
K1 = "ws_op_lazy_w_oq_pk_dm"


def test_the_handoff_is_the_warp_specialised_pingpongs():
    k = device_pairs("_ho", [KS, f"{KS}_dy_sd", K1], pingpong_handoff="item_start")
    with pytest.raises(KnobError, match="pingpong_handoff'=last_turn .*not pingpong=off"):
        Knobs.parse({**k["ws3_lazy_qp_ot_pm_dm"], "pingpong_handoff": "last_turn"})
    assert Knobs.parse(k[f"{KS}_dy_sd_ho_lr"]).replace(last_round="whole") == Knobs.parse(k[f"{KS}_dy_sd_ho"])


def test_the_handoff_builds_as_its_bases_do():
    rows = dict(re.findall(r"^(\S+ D128 \S+): (\d+) bytes spill stores", (CPU / "ptxas.txt").read_text(), re.M))
    assert len(rows) == 16
    for base in (KS, f"{KS}_dy_sd", K1):
        for c in ("noncausal", "causal"):
            assert rows[f"{base}_ho D128 {c}"] == rows[f"{base} D128 {c}"]
    assert int(rows["ws_op_lazy_qp_w_ot_pk_dm D128 noncausal"]) >= 100  # the 24-register producer spills


def test_the_h100_record_as_its_readme_quotes_it():
    tier = packed_tier(H100 / "json.tgz")
    assert_tier_passed(tier, {"D64+128": (168, 9, 5)})
    m = suite_margins(H100 / "json.tgz")
    n8k = "B2-H16-N8192-D128"
    assert m[n8k, f"{KS}->{KS}_ho"] == 1.0031
    assert m[n8k, f"{KS}_dy_sd->{KS}_dy_sd_ho"] == 0.9999
    assert m[n8k, f"{K1}->{K1}_ho"] == 0.9732  # one item a CTA: the unanswered handoff at each CTA's exit
    assert m[n8k, f"{KS}->ws_op_lazy_qp_w_ot_pk_dm"] == 0.9844
    assert m[n8k, f"{K1}->{KS}"] == 0.9792 and m[n8k, f"{K1}->{KS}_ho"] == 0.9822
    assert m["B1-H16-N32768-D128", f"{K1}->{KS}_dy_sd_ho_lr"] == 0.9798
    assert m["B4-H16-N4096-D128", f"{K1}->{KS}_ho"] == 0.9957


def test_the_voted_waits_are_the_tma_pipelines_and_were_read_in_the_sass():
    """mbar_wait=uniform (results/2026-12-06_cpu_uniform_waits): its rule is suspend's; the SASS record says the
    persistent build gains convergence barriers with it and reads the shared-memory base per thread either way."""
    k = device_pairs("_ho", [KS, f"{KS}_dy_sd", K1], pingpong_handoff="item_start")  # device_suite's KERNELS
    for base in (KS, K1, "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl"):  # (the last one's waits were suspended)
        assert Knobs.parse(k[f"{base}_uw"]).replace(mbar_wait="uniform") == Knobs.parse(k[base]).replace(mbar_wait="uniform")
        assert Knobs.parse(k[f"{base}_uw"]).mbar_wait.value == "uniform"
    with pytest.raises(KnobError, match="mbar_wait'=uniform .*staging=tma"):
        Knobs.parse({**k[K1], "mbar_wait": "uniform", "staging": "cp_async", "kv_release": "barrier",
                     "mainloop": "general", "pingpong": "off", "pipeline": "off", "o_store": "direct", "pv_wide": "off",
                     "p_pack": "after", "desc_math": "per_mma"})
    rows = {m[0]: [int(x) for x in m[1:]] for m in re.findall(
        r"^(\S+): (\d+) instructions; BSSY (\d+) BSYNC \d+ WARPSYNC (\d+) VOTE (\d+).*S2UR (\d+) by S2R (\d+)",
        (RESULTS / "2026-12-06_cpu_uniform_waits" / "sass_counts.txt").read_text(), re.M)}
    assert rows[K1][0] == 5136 and rows[KS][0] == 5536  # the instructions of ncu's recorded source pages
    assert rows[f"{KS}_uw"][1] > rows[KS][1] > rows[K1][1]  # more convergence barriers, not fewer
    assert rows[KS][-1] > 0 == rows[K1][-1]  # the persistent build reads the shared-memory base by S2R


def test_the_voted_waits_lose_on_the_h100_as_recorded():
    """results/2026-12-06_h100_uniform_waits: bitwise their bases, and slower at N8192 D128 and D64."""
    rec = RESULTS / "2026-12-06_h100_uniform_waits" / "json.tgz"
    tier = packed_tier(rec)
    assert_tier_passed(tier, {"D64+128": (168, 4, 2), "D64": (84, 2, 1)})
    m = suite_margins(rec)
    assert m["B2-H16-N8192-D128", f"{KS}->{KS}_uw"] == 0.9954
    assert m["B2-H16-N8192-D128", f"{K1}->{K1}_uw"] == 0.9742
    b = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl"
    assert m["B2-H16-N8192-D64", f"{b}->{b}_uw"] == 0.995
