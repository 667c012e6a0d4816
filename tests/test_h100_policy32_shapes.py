"""The H100 record of policy 32 from the naive seed at three more suite shapes (B4 N4096 D128 bf16, B8 H16/4 N2048 D64,
causal B2 N4096 D64 bf16) with the suite kernels' tier again (results/2026-12-07_h100_policy32_shapes): each run
replayed with no GPU to the history and own row the H100 printed, and read as the README quotes it."""
import re
import sys

from recorded import RESULTS, agent_runs_fixture, assert_replayed_as_printed, assert_tier_passed, packed_tier

HERE = RESULTS / "2026-12-07_h100_policy32_shapes"
OWN_ROWS = {"n4k": (1.069, "t128x128w8"), "gqa": (1.107, "t192x128w12"), "c4k": (1.055, "t192x128w12")}

replayed = agent_runs_fixture(HERE, set(OWN_ROWS))


def test_each_run_replays_to_the_h100s_history_and_own_row(replayed):
    x, tile = OWN_ROWS[replayed[0]]
    assert_replayed_as_printed(HERE, replayed, x, tile, n_experiments=(20,))
    assert f"**{x:.3f}**" in (HERE / "README.md").read_text()


def _final(name: str):
    from kernel_src.knobs import Knobs

    label = re.findall(r"final kernel (\S+)", (HERE / f"{name}_agent_4.txt").read_text())[-1]
    parts = label.split("/")
    br, bc, w = map(int, re.match(r"t(\d+)x(\d+)w(\d+)$", parts[4]).groups())
    d = dict(zip(("compute", "layout", "staging", "exp"), parts[:4]), br=br, bc=bc, warps=w)
    d.update(x.split("=") for x in parts[5:])
    knobs = Knobs.parse(d)
    assert knobs.label() == label
    return knobs


def test_the_finals_against_the_suites_kernels_as_the_readme_says():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    from device_suite import KERNELS

    from kernel_src.knobs import Knobs

    ks, g = (Knobs.parse(KERNELS[k]) for k in ("ws_op_lazy_qp_w_ot_pr_pk_dm_wu_ls", "ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"))
    assert _final("n4k").diff(ks) == {"ws_producer_regs": (0, 40)}
    assert _final("gqa").diff(g) == {"cta_order": ("launch", "heaviest_first"), "tail_rows": ("compute", "skip")}
    assert len(_final("c4k").diff(g)) == 7


def test_the_tier_passed_again_and_the_wide_tile_lost_on_three_warpgroups():
    assert all("NVIDIA H100 80GB HBM3, 580.159.04" in (HERE / f"gpu_call{i}.txt").read_text() for i in (3, 4, 5))
    assert_tier_passed(packed_tier(HERE / "json.tgz"), {"D64+128": (168, 6, 2), "D64": (84, 8, 3)})
    assert (HERE / "tier.txt").read_text().count("failures 0: []") == 6
    gqa = (HERE / "gqa_agent_4.txt").read_text()
    asks = re.split(r"^#(\d+) ", gqa, flags=re.M)
    by_ask = {int(asks[i]): asks[i + 1] for i in range(1, len(asks), 2)}
    assert by_ask[19].startswith("lever ws_wide_kv_tile on wgmma/sw128/tma/ex2/t192x128w12/")
    assert "SLOWER margin 0.5738" in by_ask[19] and "**0.5738**" in (HERE / "README.md").read_text()
    assert "SLOWER margin 0.9997" in by_ask[14] and by_ask[14].startswith("lever ws_idle_tail_tile_major")


def test_policy_33_puts_the_hopper_tile_first_where_policy_32_ranked_it_last_for_its_rows():
    """Policy 33 reads hopper_tile as asynchronous (its rows/SM no cost or tie-break): at the causal D=64 run's ask 5
    it is first, where policy 32 ranked it behind every move that kept three CTAs an SM; the reading of seven recorded
    runs (results/2026-12-07_cpu_policy33) differs from policy 32's only there, at asks 5-11."""
    import tempfile
    from pathlib import Path

    from recorded import load_script

    from agent.levers import CATALOG, get
    from agent.policy import CURRENT, POLICIES
    from agent.replay.catalog import as_read_by
    from agent.strategies.limiter import LimiterAgent

    assert CURRENT is POLICIES[33] and POLICIES[33].model_copy(update={"version": 32}) == POLICIES[32]
    assert get("hopper_tile").asynchronous and not next(
        lv for lv in as_read_by(POLICIES[32]) if lv.name == "hopper_tile").asynchronous
    fc = load_script(RESULTS / "2026-12-04_cpu_short_items_three_stages" / "first_choices.py")
    with tempfile.TemporaryDirectory() as d:
        shape, _, states, _ = fc.earlier.states_of("2026-12-07_h100_policy32_shapes/c4k_agent_4", Path(d))
    first = {}
    for v in (32, 33):
        agent = LimiterAgent(v)
        st = fc.with_figures(agent, states[4].model_copy(update={"levers": CATALOG, "dtype": shape.dtype}), shape)
        ranked = [p.move.name for p in agent.ranked(st)]
        first[v] = (ranked[0], ranked.index("hopper_tile"))
    assert first == {32: ("padding", 17), 33: ("hopper_tile", 0)}
    read = (RESULTS / "2026-12-07_cpu_policy33" / "first_choices.txt").read_text().splitlines()
    differs = [x for x in read if x.endswith("<- differs")]
    assert len(differs) == 7 and all(" | 33 hopper_tile, " in x for x in differs)
    assert read.index(differs[0]) == 5 and read.index(differs[-1]) == 11 and len(read) == 7 + 20 * 6 + 17
