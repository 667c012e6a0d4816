"""Policy 23 and this week's H100 records around N512 D64: the three levers as declared (the compound only where it
was measured to pay: D=64, fp16, non-causal, three warpgroups), their first choices read from policy 22's recorded
runs as committed (results/2026-12-06_cpu_policy23), policy 23's two runs from the naive seed replayed with no GPU to
the printed history and their own rows against cuDNN (results/2026-12-06_h100_policy23); the items tile by tile, a
negative (results/2026-12-06_h100_item_order), and the suite at 10 of 11 (results/2026-12-06_h100_suite)."""
import json
import os
import re
import subprocess
import sys
import tarfile

import pytest

from agent import levers
from agent.policy import POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.knobs import Knobs
from recorded import (RESULTS, agent_runs_fixture, assert_replayed_as_printed, printed_history, read_record,
                      suite_margins)

NEW = ("ws_launch_order_row_sums", "ws_suspended_waits", "kv_evict_last")
# the agent's N512 D64 final before policy 23: three warpgroups, tile-major items, the idle tail, three stages
TILE_MAJOR = Knobs(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=3, br=192,
                   warps=12, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer", mainloop="ws",
                   pipeline="on", q_load="tma", o_store="tma", persistent="on", cta_order="heaviest_first",
                   tail_rows="skip", rescale_skip="on", rescale_lazy="on", desc_math="hoisted")


def test_policy_23_is_current_and_its_levers_apply_where_they_were_measured():
    assert POLICIES[23].model_copy(update={"version": 22}) == POLICIES[22]
    assert not set(NEW) & {lv.name for lv in as_read_by(POLICIES[22])}
    ro, sw, el = (levers.get(n) for n in NEW)
    assert not (ro.sampled or sw.sampled or el.sampled)
    assert ro.applies_to(TILE_MAJOR, False, 64, 512, "float16")
    for causal, d, dtype in ((True, 64, "float16"), (False, 128, "float16"), (False, 64, "bfloat16")):
        assert not ro.applies_to(TILE_MAJOR, causal, d, 512, dtype), (causal, d, dtype)
    assert not ro.applies_to(TILE_MAJOR.replace(br=128, warps=8), False, 64, 512, "float16")  # two warpgroups
    moved = ro.apply(TILE_MAJOR)
    assert (moved.cta_order.value, moved.schedule.value, moved.round_order.value, moved.row_sum.value) == (
        "launch", "dynamic", "in_place", "mma")
    assert moved.tail_rows.value == "skip" and moved.desc_math.value == "hoisted"
    assert sw.apply(TILE_MAJOR).mbar_wait.value == "suspend" and el.apply(TILE_MAJOR).kv_l2_hint.value == "evict_last"
    assert ro.problems() == "non-causal only, D 64, float16"
    for lv in (ro, sw, el):  # each hypothesis cites records that exist
        for rec in re.findall(r"results/(\S+?)[),;]", lv.hypothesis):
            assert (RESULTS / rec / "README.md").is_file(), rec


def test_policy_23_first_choices_at_n512_as_committed():
    """The N512 run of results/2026-12-05_h100_agent_runs replayed with today's catalog: the compound first from ask 15
    (asks 1-15 here; the full reading, four runs, takes 90 s: `first_choices.py` with no argument)."""
    here = RESULTS / "2026-12-06_cpu_policy23"
    out = subprocess.run([sys.executable, str(here / "first_choices.py"), "n512", "15"], capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(RESULTS.parent)}).stdout
    committed = (here / "first_choices.txt").read_text()
    assert committed.startswith(out) and out.count("\n") == 4
    assert "ask 15: first ws_launch_order_row_sums (not measured)" in out
    assert "ask 14: first ws_idle_tail_tile_major (KEPT 1.0177)" in out
    for run, ask in (("d64", 16), ("d128", 15), ("gqa", 13)):
        part = committed.split(f"{run}_agent_4")[1].split("2026-12-05")[0]
        assert f"ask {ask}: first ws_suspended_waits" in part and "ws_launch_order_row_sums" not in part


HERE = RESULTS / "2026-12-06_h100_policy23"
RUNS = {"n512": (0.988, "t192x128w12"), "d64": (1.099, "t192x128w12")}
replayed = agent_runs_fixture(HERE, RUNS)


def test_policy_23_runs_replay_to_the_printed_history_and_rows(replayed):
    assert_replayed_as_printed(HERE, replayed, *RUNS[replayed[0]], n_experiments=(20,))


def test_policy_23_asked_what_the_replay_of_policy_22s_runs_predicted():
    before = {n: printed_history(RESULTS / "2026-12-05_h100_agent_runs" / f"{n}_agent_4.txt") for n in RUNS}
    now = {n: printed_history(HERE / f"{n}_agent_4.txt") for n in RUNS}
    assert [r[:2] for r in now["n512"][:14]] == [r[:2] for r in before["n512"][:14]]  # levers and outcomes
    assert [r[0] for r in now["d64"][:15]] == [r[0] for r in before["d64"][:15]]
    got = {n: {lv: (o, m) for lv, o, m in now[n][14:]} for n in RUNS}
    assert now["n512"][14] == ("ws_launch_order_row_sums", "KEPT", 1.0538)
    assert got["n512"]["kv_evict_last"] == ("KEPT", 1.0067) and got["n512"]["ws_suspended_waits"] == ("NULL", 1.0004)
    assert now["d64"][15] == ("ws_suspended_waits", "SLOWER", 0.989) and got["d64"]["kv_evict_last"][0] == "SLOWER"
    final = re.search(r"^summary: .*final kernel (\S+)", (HERE / "n512_agent_4.txt").read_text(), re.M)[1]
    assert all(k in final for k in ("schedule=dynamic", "row_sum=mma", "kv_l2_hint=evict_last", "desc_math=hoisted"))
    assert "heaviest_first" not in final and "mbar_wait" not in final


ITEM = RESULTS / "2026-12-06_h100_item_order"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"


def test_items_tile_by_tile_lost_at_every_shape_and_read_twice_the_dram():
    m = suite_margins(ITEM / "json.tgz")
    n512, gqa, d64 = "B16-H16-N512-D64", "B8-H16-Hkv4-N2048-D64", "B2-H16-N8192-D64"
    assert m[n512, f"{B}_el_dl->{B}_el_dl_ta"] == 0.9103 and m[n512, f"{B}->{B}_ta"] == 0.9236
    assert m[gqa, f"{B}->{B}_ta"] == 0.9782 and m[d64, f"{B}->{B}_ta"] == 0.9586
    assert all(v < 0.98 for (_, pair), v in m.items() if pair.endswith("_ta"))
    with tarfile.open(ITEM / "json.tgz") as tf:
        tier = json.load(tf.extractfile("tier/tier.json"))
    assert all(s["failures"] == [] for s in tier.values())
    text = (ITEM / "anatomy.txt").read_text()
    reads = [float(x) for x in re.findall(r"DRAM r/w ([\d.]+)/", text)]
    assert reads == [50355968.0, 108445184.0]  # cuDNN, then ours tile by tile
    assert "SM active 88129.96 of 101353.0 cycles" in text


def test_the_suite_ten_of_eleven_with_n512_at_0_981():
    suite = RESULTS / "2026-12-06_h100_suite"
    got = {}
    for part in ("a", "b"):
        for r in read_record(suite / f"best_{part}.json"):
            got[r["shape"]] = (r["best"], r["confirm"]["summary"][f"cudnn:{r['best']}"]["margin"])
    assert len(got) == 11 and sorted(k for k, (_, m) in got.items() if m < 1) == ["B16-H16-N512-D64-float16-noncausal"]
    assert got["B16-H16-N512-D64-float16-noncausal"] == (f"{B}_el", pytest.approx(0.9807, abs=5e-4))
    printed = (suite / "best_a.log").read_text() + (suite / "best_b.log").read_text()
    for key, (best, m) in got.items():
        assert re.search(rf"^{key} \| {best} \(pass\) \| {m:.3f} ", printed, re.M), key


def test_policy_24_leaves_the_counter_alone():
    """ws_idle_tail_tile_major on the static schedule alone from policy 24: from the launch-order items claimed from a
    counter policy 23 asked it again (ask 17 at N512 D64) and lost 0.8985; policy 23's replay reads it as it ran."""
    assert POLICIES[24].model_copy(update={"version": 23}) == POLICIES[23]
    tail = levers.get("ws_idle_tail_tile_major")
    after = levers.get("ws_launch_order_row_sums").apply(TILE_MAJOR).replace(cta_order="launch")
    assert not tail.applies_to(after, False, 64, 512, "float16")
    assert tail.applies_to(after.replace(schedule="static"), False, 64, 512, "float16")
    old = next(lv for lv in as_read_by(POLICIES[23]) if lv.name == tail.name)
    assert old.applies_to(after, False, 64, 512, "float16") and "schedule" not in old.requires


def test_policy_24_at_n512_asked_policy_23s_first_fourteen_until_cut():
    cut = RESULTS / "2026-12-06_h100_policy24_cut" / "n512_agent_4.txt"
    text = cut.read_text()
    asked = re.findall(r"^#(\d+) lever (\S+) on .*\n  (KEPT|SLOWER|NULL) margin ([\d.]+)", text, re.M)
    before = printed_history(HERE / "n512_agent_4.txt")[:14]
    assert [(n, o) for _, n, o, _ in asked] == [r[:2] for r in before]
    assert all(abs(float(m) - r[2]) < 0.02 for (_, _, _, m), r in zip(asked, before))
    assert re.search(r"^#15 lever ws_launch_order_row_sums on ", text, re.M) and "exit 124" in text
    assert "H100 80GB HBM3" in (cut.parent / "gpu.txt").read_text()
