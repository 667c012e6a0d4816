"""The decoded slot (knob slot_item): the dynamic schedule's producer hands the consumers each item decoded. The knob's
rule, its kernels in the suite (bitwise pairs), the H100 records at N512 D64 and two longer shapes
(results/2026-12-06_h100_slot_item), with the short tiles late (results/2026-12-06_h100_slot_item_sl) and a second Q
tile (results/2026-12-06_h100_second_q_tile); policy 28's lever and its run at N512 D64 replayed with no GPU to its
printed history and own row against cuDNN (results/2026-12-06_h100_policy28)."""
import json
import re
import tarfile

import pytest

from agent import levers
from agent.policy import CURRENT, POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, agent_runs_fixture, assert_replayed_as_printed, device_pairs, printed_history, suite_margins

SD = RESULTS / "2026-12-06_h100_slot_item"
N512, GQA, D64 = "B16-H16-N512-D64", "B8-H16-Hkv4-N2048-D64", "B2-H16-N8192-D64"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"


def _failures(tgz):
    with tarfile.open(tgz) as tf:
        return [f for s in json.load(tf.extractfile("tier/tier.json")).values() for f in s["failures"]]


def test_the_decoded_slot_is_the_dynamic_schedules_and_its_suite_kernels_differ_by_it_alone():
    ks = device_pairs("_sd", [f"{B}_el", f"{B}_el_dl"], slot_item="index")
    k = Knobs.parse(ks[f"{B}_el_sd"])
    assert k.defines()["FA_SLOT_ITEM"] == 1 and Knobs.parse(ks[f"{B}_el"]).defines()["FA_SLOT_ITEM"] == 0
    with pytest.raises(KnobError, match="slot_item'=decoded .* needs schedule=dynamic, not schedule=static"):
        k.replace(schedule="static")


def test_the_decoded_slot_gains_at_n512_holds_at_gqa_and_loses_at_n8192():
    m = suite_margins(SD / "json.tgz")
    assert m[N512, f"{B}_el->{B}_el_sd"] == 1.0192 and m[N512, f"{B}_el_dl->{B}_el_dl_sd"] == 1.0110
    assert m[N512, f"cudnn->{B}_el"] == 0.9821 and m[N512, f"cudnn->{B}_el_sd"] == 0.9997
    assert m[N512, f"cudnn->{B}_el_dl_sd"] == 1.0014
    assert m[GQA, f"{B}_el->{B}_el_sd"] == 1.0009 and m[D64, f"{B}_el->{B}_el_sd"] == 0.9929
    for name in ("margins_n512", "margins_N2048", "margins_N8192"):
        aa = re.search(r"^A/A .*: \[(.*)\]", (SD / f"{name}.txt").read_text(), re.M)[1]
        assert all(abs(float(x) - 1) < 2e-4 for x in aa.split(","))
    assert _failures(SD / "json.tgz") == [] and "2 bitwise pairs" in (SD / "tier.txt").read_text()
    # the item trace: the gap between items from 4.7% to 2.5% of the span (0.2 us a boundary: about one record's cost)
    doc = json.loads(__import__("gzip").decompress((SD / "trace.json.gz").read_bytes()))
    s = {r["kernel"]: r["summaries"] for r in doc["runs"]}
    assert [x["share_between_items"] for x in s[f"{B}_el"]] == [0.047, 0.0467, 0.047]
    assert [x["share_between_items"] for x in s[f"{B}_el_sd"]] == [0.0245, 0.0248, 0.0246]


def test_with_the_short_tiles_late_or_a_second_q_tile_it_loses():
    m = suite_margins(RESULTS / "2026-12-06_h100_slot_item_sl" / "json.tgz")
    assert m[N512, f"{B}_el_sd->{B}_el_sd_sl"] == 0.9950 and m[N512, f"{B}_el_dl_sd->{B}_el_dl_sd_sl"] == 0.9970
    assert m[N512, f"cudnn->{B}_el_sd"] == 1.0000
    q2 = RESULTS / "2026-12-06_h100_second_q_tile"
    m = suite_margins(q2 / "json.tgz")
    assert m[N512, f"{B}_el_sd->{B}_el_sd_q2"] == 0.9367 and m[N512, f"{B}_el_dl_sd->{B}_el_dl_sd_q2"] == 0.9494
    assert m[N512, f"cudnn->{B}_el_sd"] == 1.0049 and m[N512, f"cudnn->{B}_el_dl_sd"] == 1.0002
    for rec in ("2026-12-06_h100_slot_item_sl", "2026-12-06_h100_second_q_tile"):
        assert _failures(RESULTS / rec / "json.tgz") == []


P28 = RESULTS / "2026-12-06_h100_policy28"


def test_policy_28_adds_the_decoded_slot_as_a_lever_of_the_dynamic_schedule():
    assert CURRENT.version >= 28 and POLICIES[28].model_copy(update={"version": 27}) == POLICIES[27]
    lv = levers.get("ws_decoded_slot")
    assert lv.name not in {x.name for x in as_read_by(POLICIES[27])} and lv.sets == {"slot_item": "decoded"}
    ds = device_pairs("_sd", [f"{B}_el", f"{B}_el_dl"], slot_item="index")

    assert lv.apply(Knobs.parse(ds[f"{B}_el"])) == Knobs.parse(ds[f"{B}_el_sd"])
    assert not lv.applies_to(Knobs.parse(ds[f"{B}_st"]))  # the static schedule has no slot
    reading = (RESULTS / "2026-12-06_cpu_policy28" / "first_choices.txt").read_text()
    assert "  ask 20: ws_decoded_slot, ws_suspended_waits," in reading


replayed28 = agent_runs_fixture(P28, {"n512": (0.997, "t192x128w12")})


def test_policy_28_run_at_n512_replays_to_the_printed_history_and_row(replayed28):
    assert_replayed_as_printed(P28, replayed28, 0.997, "t192x128w12", n_experiments=(20,))


def test_policy_28_kept_the_decoded_slot_at_n512():
    p25 = printed_history(RESULTS / "2026-12-06_h100_policy25" / "n512_agent_4.txt")
    now = printed_history(P28 / "n512_agent_4.txt")
    assert [r[:2] for r in now[:14]] == [r[:2] for r in p25[:14]]
    assert now[18] == ("ws_decoded_slot", "KEPT", 1.0162)
    final = re.search(r"^summary: .*final kernel (\S+)", (P28 / "n512_agent_4.txt").read_text(), re.M)[1]
    assert "slot_item=decoded" in final and "schedule=dynamic" in final
    assert "0.984x SDPA cuDNN" in (RESULTS / "2026-12-06_h100_policy25" / "n512_agent_4.txt").read_text()


P28B = RESULTS / "2026-12-06_h100_policy28_n512"
replayed28b = agent_runs_fixture(P28B, {"n512_agent_5": (0.999, "t192x128w12")})


def test_policy_28_second_seed_replays_and_the_suites_n512_row_is_level_with_cudnn(replayed28b):
    assert_replayed_as_printed(P28B, replayed28b, 0.999, "t192x128w12", n_experiments=(20,))
    assert printed_history(P28B / "n512_agent_5.txt")[18] == ("ws_decoded_slot", "KEPT", 1.0176)
    log = (P28B / "best_n512.log").read_text()
    assert re.search(r"^B16-H16-N512-D64-float16-noncausal \| ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd \(pass\) \| "
                     r"1\.000 \(1\.000/1\.000\) \| 1\.473 \|", log, re.M)
