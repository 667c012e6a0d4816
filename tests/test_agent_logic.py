"""Plateau rule, proposal, shelf conditions and the re-screen trigger."""

import pytest

from agent import levers
from agent.replay.ladder import propose, stop_reason
from agent.shelf import Conditions, changed, conditions, due_for_rescreen
from kernel_src.knobs import SEED, Knobs


def test_plateau_and_budget():
    assert stop_reason(0, 20, 0) is None
    assert stop_reason(2, 20, 2) is None
    assert stop_reason(3, 20, 3) == "plateau"
    assert stop_reason(20, 20, 0) == "budget"
    assert stop_reason(5, 20, 4, plateau=5) is None


def test_catalog_is_well_formed():
    for lv in levers.CATALOG:
        assert lv.predicted[0] < lv.predicted[1] and lv.hypothesis and lv.targets
        assert set(lv.sets) <= set(Knobs.model_fields)
    with pytest.raises(levers.UnknownLever, match="unknown lever 'fast'"):
        levers.get("fast")


def test_every_lever_applies_somewhere_and_builds_valid_knobs():
    bases = [SEED, SEED.replace(compute="mma"), SEED.replace(compute="mma", staging="cp_async"),
             SEED.replace(compute="mma", staging="cp_async", exp="ex2"),
             SEED.replace(compute="mma", staging="cp_async", exp="ex2", kv_stages=2),
             SEED.replace(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem"),  # the arm's own (tma)
             SEED.replace(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem", kv_overlap="on"),  # tma_ring
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2),  # last_warp_refill
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=128,
                          warps=8, kv_release="producer"),  # pingpong
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=128,
                          warps=8, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws"),  # the warp-specialised mainloop's own levers
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=128,
                          warps=8, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws", pipeline="on"),  # and those of its overlap
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=128,
                          warps=8, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws", pipeline="on", q_load="tma", persistent="on", cta_order="heaviest_first"),
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=3, br=192,
                          warps=12, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws", pipeline="on", q_load="tma", o_store="tma", persistent="on",
                          cta_order="heaviest_first", tail_rows="skip"),
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=3, br=192,
                          warps=12, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws", pipeline="on", q_load="tma", o_store="tma", persistent="on",
                          tail_rows="skip", schedule="dynamic", row_sum="mma"),
             SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=192,
                          warps=12, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer",
                          mainloop="ws", pipeline="on", o_store="tma")]
    # the persistent schedule's (ws_idle_tail_tile_major from launch order, ws_snake_rounds from heaviest first),
    # the three-warpgroup tile-major kernel's (ws_launch_order_row_sums), its launch-order one's (ws_short_tiles_late)
    # and the one-item-a-CTA three-warpgroup kernel's (ws_q_by_tma_three_stages)
    for lv in levers.CATALOG:
        base = next((b for b in bases for causal in (True, False) if lv.applies_to(b, causal=causal)), None)
        assert base is not None, lv.name
        cand, why = levers.candidate(lv, base)
        assert cand is not None and why is None, (lv.name, why)


def test_causal_only_levers_stay_out_of_non_causal_searches():
    mma = SEED.replace(compute="mma", staging="cp_async")
    for name in ("heaviest_first", "mask_predicate", "mask_split"):
        assert levers.get(name).applies_to(mma, causal=True)
        assert not levers.get(name).applies_to(mma, causal=False)


def test_noncausal_only_levers_stay_out_of_causal_searches_and_off_the_samplers_space():
    from agent.policy import POLICIES
    from agent.strategies.base import space

    ws = SEED.replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2, br=128,
                      warps=8, bc=128, softmax="fused", causal_mask="predicate", kv_release="producer", mainloop="ws",
                      pipeline="on")
    # the packing was non-causal from policy 13 to 15 (its causal build serialised the wgmma); from 16 both
    old = {lv.name: lv for lv in levers.catalog_for(POLICIES[15])}["ws_p_with_exp"]
    assert old.applies_to(ws, causal=False) and not old.applies_to(ws, causal=True)
    lv = levers.get("ws_p_with_exp")
    assert lv.applies_to(ws, causal=False) and lv.applies_to(ws, causal=True) and not lv.noncausal_only
    assert levers.get("ws_p_mid_wait").applies_to(ws, causal=True)
    for causal in (False, True):
        dims = space(levers.CATALOG, ws, causal)
        assert "p_pack" not in dims and not any("p_pack" in str(v) for v in dims["mainloop"])


def test_proposal_follows_the_diagnosis():
    assert propose(SEED, "tensor_idle_scalar_fma", set()).name == "tensor_cores"
    mma = SEED.replace(compute="mma")
    assert propose(mma, "smem_bank_conflicts", set()).name == "swizzle"
    assert propose(mma, "smem_bank_conflicts", {"swizzle"}).name == "padding"
    assert propose(mma.replace(layout="swizzle"), "global_latency", set()).name == "cp_async"
    # with no counters, by predicted gain alone
    assert propose(SEED, None, set()).name == "tensor_cores"


def test_proposal_exhausts():
    assert propose(SEED, None, {lv.name for lv in levers.CATALOG}) is None


def test_conditions_from_driver_attributes():
    c = conditions({"registers": 186, "smem_per_cta": 49152, "ctas_per_sm": 2, "threads": 128}, "occupancy_limited")
    assert c == Conditions(registers=186, smem_per_cta=49152, ctas_per_sm=2, warps_per_sm=8, diagnosis="occupancy_limited")


def test_rescreen_triggers_on_occupancy_smem_or_diagnosis_not_registers_alone():
    old = Conditions(registers=186, smem_per_cta=49152, ctas_per_sm=2, warps_per_sm=8, diagnosis="occupancy_limited")
    assert changed(old, old.model_copy(update={"registers": 173})) == []
    assert changed(old, old.model_copy(update={"ctas_per_sm": 3, "warps_per_sm": 12})) == ["ctas_per_sm", "warps_per_sm"]
    assert changed(old, old.model_copy(update={"smem_per_cta": 52224})) == ["smem_per_cta"]
    assert changed(old, old.model_copy(update={"diagnosis": None})) == []  # unknown never triggers
    rows = [{"lever": "a", "conditions": old.model_dump()},
            {"lever": "b", "conditions": old.model_copy(update={"smem_per_cta": 52224}).model_dump()}]
    now = old.model_copy(update={"smem_per_cta": 52224})
    assert [r["lever"] for r in due_for_rescreen(rows, now)] == ["a"]


def test_rescreen_leaves_the_shelf_alone_while_its_conditions_hold(tmp_path):
    """On the H200 instrument run's database, answered with that run's own measurements of its
    final kernel (driver attributes, ncu CSV): the shelf's conditions still hold, nothing reruns."""
    import json
    import shutil
    from pathlib import Path

    from agent.bench import ProfileRecord
    from agent.rescreen import rescreen
    from agent.summary import best_of_run
    from experiments.device import DeviceInfo
    from store import queries as q
    from store.db import open_db

    inst = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_instrument"
    shutil.copy(inst / "fa5090.db", tmp_path / "db.db")
    db = open_db(tmp_path / "db.db")
    recs = [json.loads(l) for l in (inst / "fa5090_artifacts" / "run-1" / "recording.jsonl").read_text().splitlines()]
    device = next(r["result"] for r in recs if r["key"].startswith("device:"))
    best = best_of_run(db, 1)
    kept_eval = [r["result"] for r in recs if r["key"].startswith("evaluate:") and r["result"]["outcome"] == "KEPT"][-1]
    csv = next((inst / "fa5090_artifacts" / "run-1").glob("ncu_exp9_*.csv")).read_text()

    class Recorded:
        def device(self):
            return DeviceInfo(**device)

        def attributes(self, knobs):
            assert knobs == best
            return kept_eval["attributes"]

        def profile(self, knobs):
            return ProfileRecord(csv=csv)

        def evaluate(self, *a, **k):
            raise AssertionError("nothing should be re-screened")

    before = q.shelf(db, 1)
    assert rescreen(Recorded(), db, 1, artifacts=tmp_path) == 0
    assert q.shelf(db, 1) == before
