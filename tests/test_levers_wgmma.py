"""The Hopper arm's tuning levers (agent version 3).

On an H200 a run seeded on the wgmma arm (t64x64w4, two K/V stages) stopped at once, "no candidate
left (10 of 10 experiments unspent)": every lever but a few required compute=mma. From agent version
3 the levers whose knobs the arm shares apply to compute=wgmma too; versions 1 and 2 keep the
catalog they ran with, so their recordings replay. The runs here are on tests/fakes.SimBench, a
synthetic bench whose numbers are not measurements: they exercise the code paths, not the arm.
"""
import pytest

from agent import levers
from agent.loop import SearchOptions, run_search
from agent.policy import POLICIES
from agent.strategies import make
from agent.strategies.base import State
from agent.strategies.limiter import LimiterAgent
from experiments.problem import Shape
from kernel_src.arch import TABLE
from kernel_src.covering import hopper_set
from kernel_src.knobs import KnobError, Knobs
from store import queries as q
from store.db import open_db

from fakes import SimBench

# the seed of the H200 run that stopped "exhausted"
WG = Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem", br=64, warps=4, bc=64,
           kv_stages=2)
ARM = {"narrow_kv_tile", "wide_kv_tile", "tall_q_tile", "kv_double_buffer", "kv_triple_buffer", "kv_overlap",
       "rescale_skip", "lazy_rescale", "softmax_ffma", "mask_predicate", "mask_split", "persistent_grid",
       "split_kv_2", "split_kv_4", "split_kv_8", "min_ctas_3", "store_streaming", "store_write_through",
       "qk_pipeline",  # the arm's pipeline
       "unrolled_copies",  # Q's cp.async tile on the arm (K/V too with cp.async staging)
       "exp_poly_quarter", "exp_poly_half"}  # a share of P's exponentials on the FMA pipe
# the arm's own: TMA staging, wgmma only
ARM_ONLY = {"tma", "tma_ring", "last_warp_refill", "producer_warpgroup",  # tma_ring: TMA from a kv_overlap kernel; last_warp_refill: the TMA ring without its block barrier (agent 4)
            "pingpong",  # pingpong: a producer kernel's two consumer warpgroups in turns (agent 5)
            "ws_mainloop",  # the warp-specialised mainloop with its overlap and turns, as one move (agent 7)
            "ws_mainloop_three_warpgroups",  # the same with three consumer warpgroups, BR 192 (agent 8)
            "ws_mainloop_three_warpgroups_short_items",  # and with Q and O by TMA, persistent (agent 18)
            "ws_mainloop_short_items"}  # two consumer warpgroups with Q and O by TMA, persistent, N <= 2048 (agent 19)
# what makes no sense on the arm: its own layout, Q already in shared memory, no ldmatrix, no second
# m16 tile a warp, the direct epilogue and no pipeline in this step (Knobs refuses them), or the way in
MMA_ONLY = {"swizzle", "padding", "q_from_smem", "tall_q_tile_4_warps", "v_without_ldmatrix_trans", "smem_epilogue",
            "wgmma", "pv_slab"}


def _state(best: Knobs, arch: str = "sm_90", causal: bool = False) -> State:
    return State(best=best, seed=best, t_noise=0.002, t_keep=1.002, budget_left=10, causal=causal,
                 levers=levers.CATALOG, limits=TABLE[arch])


def test_the_catalog_says_which_levers_the_arm_shares():
    v2 = {lv.name: lv for lv in levers.catalog_for(POLICIES[2])}
    for lv in levers.CATALOG:
        compute = lv.requires.get("compute")
        assert (compute is not None and "wgmma" in compute) == (lv.name in ARM | ARM_ONLY), lv.name
        if lv.name in v2:
            assert "wgmma" not in (v2[lv.name].requires.get("compute") or ())  # agents 1 and 2: mma.sync only
            assert ("compute" in v2[lv.name].requires) == (compute is not None)
    assert all(levers.get(n).requires.get("compute") == ("mma",) for n in MMA_ONLY)
    assert all(levers.get(n).requires.get("compute") == ("wgmma",) for n in ARM_ONLY)
    assert POLICIES[3].wgmma_arm and not POLICIES[2].wgmma_arm
    assert make("agent").version == SearchOptions().agent_version == max(POLICIES)


@pytest.mark.parametrize("causal", [False, True])
def test_from_the_wgmma_seed_version_3_has_the_arm_levers_and_version_2_has_none(causal):
    moves = LimiterAgent(3).moves(_state(WG, causal=causal))
    names = {m.name for m in moves}
    # kv_double_buffer is the seed's own depth, tma_ring leaves a kv_overlap kernel (agent 4 only); the
    # masks and the order only under a causal mask
    # last_warp_refill and producer_warpgroup need the TMA ring the seed (cp.async) does not have
    # unrolled_copies and exp_poly_* join the catalog at version 5, ws_mainloop (TMA too) at 7, its three-warpgroup
    # form at 8 and those with Q and O by TMA at 18 and 19
    want = (ARM | ARM_ONLY) - {"kv_double_buffer", "tma_ring", "last_warp_refill", "producer_warpgroup", "pingpong",
                               "unrolled_copies", "exp_poly_quarter", "exp_poly_half", "ws_mainloop",
                               "ws_mainloop_three_warpgroups", "ws_mainloop_three_warpgroups_short_items",
                               "ws_mainloop_short_items"} - (
        {"mask_predicate", "mask_split"} if not causal else set())
    assert names == want | ({"heaviest_first"} if causal else set())
    for m in moves:
        assert m.knobs.compute.value == "wgmma" and m.knobs.needs_arch() == "sm_90"
        assert Knobs.parse(m.knobs.model_dump(mode="json")) == m.knobs
    # what an agent of version 2 saw there (its recordings replay with it): nothing but the order
    old = {m.name for m in LimiterAgent(2).moves(_state(WG, causal=causal))}
    assert old == ({"heaviest_first"} if causal else set())


def test_every_candidate_from_the_arms_tiles_is_a_valid_wgmma_kernel():
    """From each configuration of the arm's H200 battery (hopper_set) a lever gives a wgmma kernel
    that Knobs accepts, or nothing: never an mma.sync kernel, never an invalid one."""
    seen = set()
    for base in hopper_set():
        for lv in levers.CATALOG:
            if not lv.applies_to(base, causal=True):
                continue
            cand, why = levers.candidate(lv, base)
            if cand is None:
                assert why, lv.name
                continue
            assert cand.compute.value == "wgmma" and cand.layout.value == "sw128", (lv.name, base.label())
            assert cand.br == 16 * cand.warps and cand.warps in ((4, 8, 12) if cand.mainloop.value == "ws" else (4, 8))
            seen.add(lv.name)
    assert seen >= ARM and not seen & MMA_ONLY
    # the tile levers whose tile the arm cannot run: 32 query rows a warp
    assert not levers.get("tall_q_tile_4_warps").applies_to(WG)
    with pytest.raises(KnobError):
        WG.replace(br=128, warps=4)


def test_a_move_ptxas_cannot_compile_is_no_candidate():
    """min_ctas_3 on the arm's widest tile on two warpgroups leaves 85 registers a thread, under the
    90 a wgmma m64n128 needs: Knobs refuses it, so the agent never builds it."""
    wide = WG.replace(br=128, warps=8, bc=128, kv_stages=1)
    names = {m.name for m in LimiterAgent(3).moves(_state(wide))}
    assert "min_ctas_3" not in names and "narrow_kv_tile" in names
    bounded = WG.replace(min_ctas=3)
    assert "tall_q_tile" in {m.name for m in LimiterAgent(3).moves(_state(bounded))}  # t128x64w8: builds
    assert "wide_kv_tile" in {m.name for m in LimiterAgent(3).moves(_state(bounded))}  # t64x128w4: 168 regs


@pytest.mark.parametrize("arch", ["sm_80", "sm_120"])
def test_off_hopper_nothing_wgmma_is_ever_proposed(arch):
    assert LimiterAgent(3).moves(_state(WG, arch, causal=True)) == []
    mma = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2")
    for causal in (False, True):
        moves = LimiterAgent(3).moves(_state(mma, arch, causal))
        assert moves and not any(m.knobs.compute.value == "wgmma" for m in moves)


def _run(tmp_path, **opts):
    db = open_db(tmp_path / f"wg{len(opts)}.db")
    rid = run_search(SimBench(), db, shape=Shape(B=2, H=16, N=8192, D=128), seed=WG, artifacts=tmp_path / "art",
                     options=SearchOptions(budget=10, **opts))
    return db, rid


def test_a_wgmma_seeded_run_spends_its_budget(tmp_path):
    db, rid = _run(tmp_path, plateau=10)  # the synthetic bench models no gain on the arm: patience is the budget
    run = q.get_run(db, rid)
    assert run["status"] == "budget", run["stop_reason"]
    rows = [e for e in q.history(db, rid) if e["seq"] is not None and e["outcome"] is not None]
    assert len(rows) == 10 and run["options"]["search"]["agent_version"] == max(POLICIES)
    for e in rows:
        k = Knobs.parse(e["knobs"])
        assert k.compute.value == "wgmma" and Knobs.parse(e["base_knobs"]).compute.value == "wgmma"
        lv = levers.get(e["lever"].split("+")[0])
        assert lv.name in ARM | ARM_ONLY | {"heaviest_first"}
        if "+" not in e["lever"] and lv.on_wgmma:  # the hypothesis written before measuring is the arm's too
            assert e["hypothesis"].startswith(lv.hypothesis) and lv.on_wgmma in e["hypothesis"]


def test_version_2_stops_where_the_h200_run_stopped(tmp_path):
    db, rid = _run(tmp_path, agent_version=2, plateau=3)
    run = q.get_run(db, rid)
    assert run["status"] == "exhausted"
    assert run["stop_reason"] == "no candidate left (10 of 10 experiments unspent)"
    with pytest.raises(ValueError, match=f"agent version {max(POLICIES) + 1}"):
        LimiterAgent(max(POLICIES) + 1)


def test_the_levers_listing_says_which_compute_each_lever_applies_to():
    import json

    from typer.testing import CliRunner

    from agent.cli import app

    runner = CliRunner()
    out = {lv["name"]: lv for lv in json.loads(runner.invoke(app, ["levers", "--json"]).output)}
    assert out["kv_triple_buffer"]["requires"]["compute"] == ["mma", "wgmma"] and out["min_ctas_3"]["on_wgmma"]
    assert out["swizzle"]["requires"]["compute"] == ["mma"]
    table = runner.invoke(app, ["levers"], env={"COLUMNS": "400"}).output
    assert "from agent version 3" in table and levers.get("min_ctas_3").on_wgmma[:40] in table


def test_from_a_tma_kernel_the_ring_levers_keep_tma_and_tma_is_not_offered_again():
    tma = WG.replace(staging="tma", kv_stages=1)
    moves = {m.name: m.knobs for m in LimiterAgent(3).moves(_state(tma))}
    assert "tma" not in moves
    assert moves["kv_double_buffer"].staging.value == "tma" and moves["kv_double_buffer"].kv_stages == 2
    assert all(k.compute.value == "wgmma" for k in moves.values())


def test_pingpong_applies_to_a_two_warpgroup_producer_kernel_from_version_5():
    """Only where the knob is valid (kv_release=producer, wgmma, warps=8), and from agent version 5 (agent 4
    never proposes it; the current catalog holds it)."""
    ws = WG.replace(staging="tma", br=128, warps=8, kv_release="producer")
    pp = levers.get("pingpong")
    assert pp in levers.catalog_for(POLICIES[5]) and pp not in levers.catalog_for(POLICIES[4]) and pp.applies_to(ws)
    assert pp.apply(ws) == ws.replace(pingpong="on") and not pp.applies_to(ws.replace(pingpong="on"))
    for other in (ws.replace(kv_release="barrier"), ws.replace(kv_release="last_warp"), ws.replace(br=64, warps=4)):
        assert not pp.applies_to(other), other.label()
    assert "pingpong" not in {m.name for m in LimiterAgent(4).moves(_state(ws))}
