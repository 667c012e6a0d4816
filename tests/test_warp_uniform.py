"""Warp-uniform branches and predicated one-lane work (knob warp_uniform=on): its rule, the suite's bitwise pairs, the
SASS record (results/2026-12-06_cpu_warp_uniform) and the H100 record (results/2026-12-06_h100_warp_uniform): the tier
and the margins its README quotes."""

import re

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, assert_tier_passed, device_pairs, packed_tier, recorded_text, suite_margins

CPU = RESULTS / "2026-12-06_cpu_warp_uniform"
H100 = RESULTS / "2026-12-06_h100_warp_uniform"
KS = "ws_op_lazy_qp_w_ot_pr_pk_dm"
K1 = "ws_op_lazy_w_oq_pk_dm"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl"
G = "ws3_lazy_qp_hf_ot_pm_ts_s3_dm"
D8 = "ws3_lazy_qp_ot_pm_dm"
BASES = [KS, K1, B, f"{B}_st", G, D8, f"{KS}_ho", "ws_op_lazy_qp_hf_w_ot_pm"]


def test_warp_uniform_is_the_warp_specialised_mainloops():
    k = device_pairs("_wu", BASES, warp_uniform="off")
    assert Knobs.parse(k[f"{B}_st"]).replace(schedule="dynamic") == Knobs.parse(k[B])
    with pytest.raises(KnobError, match="warp_uniform'=on .*not mainloop=general"):
        Knobs.parse({"compute": "wgmma", "layout": "sw128", "staging": "tma", "exp": "ex2", "warp_uniform": "on"})


def sass() -> dict:
    """sass_counts.txt: kernel -> {"consumers" | "rest": {count: n}}, and the ptxas line per kernel."""
    out, name = {}, None
    for line in (CPU / "sass_counts.txt").read_text().splitlines():
        if m := re.match(r"^(\S+) \(D=\d+\):(.*)$", line):
            name = m.group(1)
            out[name] = {"ptxas": m.group(2)}
        elif m := re.match(r"^\s+(consumers|rest)\s+(\d+) instructions; (.*)$", line):
            out[name][m.group(1)] = {"n": int(m.group(2)), **{k: int(v) for k, v in re.findall(r"(\S+) (\d+)", m.group(3))}}
    return out


def test_the_sass_record_says_what_the_knob_clears():
    s = sass()
    assert len(s) == 12
    for base in (KS, f"{B}_st", G):  # the static persistent kernels: the item loop's convergence barriers go
        off, on = s[base]["consumers"], s[f"{base}_wu"]["consumers"]
        assert off["BSSY"] >= 17 and on["BSSY"] <= 6 and on["YIELD"] == 0 and on["TRYWAIT-R"] < off["TRYWAIT-R"]
    assert s[KS]["consumers"]["S2R-base"] == 1 and s[f"{KS}_wu"]["consumers"]["S2R-base"] == 0
    one, pers = s[K1]["consumers"], s[f"{KS}_wu"]["consumers"]  # the persistent `_wu` reads as one item a CTA does
    assert pers["BSSY"] == one["BSSY"] and pers["TRYWAIT-R"] == one["TRYWAIT-R"]
    assert s[f"{B}_wu"]["consumers"]["BSSY"] >= 30  # the dynamic schedule's loop: barely changed
    assert all("0 bytes spill stores" in v["ptxas"] for k, v in s.items() if k.endswith("_wu"))


def test_the_default_ptx_was_unchanged_at_the_knob():
    assert re.search(r"^# 719 of 719 same", recorded_text(CPU / "ptx_unchanged.txt"), re.M)


def test_the_h100_record_as_its_readme_quotes_it():
    tier = packed_tier(H100 / "json.tgz")
    assert_tier_passed(tier, {"D64+128": (168, 4, 2), "D64": (84, 8, 4)})
    m = suite_margins(H100 / "json.tgz")
    n8k, n64 = "B2-H16-N8192-D128", "B2-H16-N8192-D64"
    assert m[n8k, f"{KS}->{KS}_wu"] == 1.0393 and m[n8k, f"{K1}->{K1}_wu"] == 1.0018
    assert m[n8k, f"{K1}->{KS}_wu"] == 1.0184 and m[n8k, f"{K1}->{KS}"] == 0.98
    assert m[n8k, f"cudnn->{KS}_wu"] == 1.0879 and m[n8k, f"cudnn->{K1}"] == 1.0673
    assert m[n64, f"{B}->{B}_wu"] == 0.9488  # the dynamic schedule: a negative
    assert m[n64, f"{B}->{B}_st_wu"] == 0.9541 and m[n64, f"{B}_st->{B}_st_wu"] == 1.0099
    assert m[n64, f"{D8}->{D8}_wu"] == 1.0186 and m[n64, f"cudnn->{B}_st_wu"] == 1.0699
    assert m["B8-H16-Hkv4-N2048-D64", f"{G}->{G}_wu"] == 1.0275
    assert m["B2-H16-N2048-D128", f"{KS}->{KS}_wu"] == 1.0387 and m["B2-H16-N2048-D128", f"{K1}->{KS}_wu"] == 1.0522
    assert m["B1-H16-N32768-D128", f"{K1}->{KS}_wu"] == 1.0079
    assert m["B1-H16-N32768-D128", f"{KS}_dy_sd_lr->{KS}_wu"] == 1.0282
    assert m["B4-H16-N4096-D128", f"{K1}->{KS}_wu"] == 1.0322


def test_policy_29_adds_the_lever_on_the_static_persistent_schedule():
    from agent import levers
    from agent.policy import CURRENT, POLICIES
    from agent.replay.catalog import as_read_by

    assert CURRENT.version >= 29 and POLICIES[29].model_copy(update={"version": 28}) == POLICIES[28]
    lv = levers.get("ws_warp_uniform")
    assert lv.name not in {x.name for x in as_read_by(POLICIES[28])} and lv.sets == {"warp_uniform": "on"}
    k = device_pairs("_wu", BASES, warp_uniform="off")
    for base in (KS, f"{B}_st", G, D8, f"{KS}_ho"):  # the static persistent kernels: the lever builds the measured pair
        assert lv.apply(Knobs.parse(k[base])) == Knobs.parse(k[f"{base}_wu"])
    assert not lv.applies_to(Knobs.parse(k[B]))  # the dynamic schedule: 0.9488 at N8192 D64
    assert not lv.applies_to(Knobs.parse(k[K1]))  # one item a CTA: 1.0018, nothing the lever is for
