"""Policy 21: the three-warpgroup mainloop with Q and O by TMA (ws_mainloop_three_warpgroups_short_items) moves to
three K/V stages, where ptxas reads no spill; earlier policies replay it with two (results/2026-12-04_cpu_short_items_
three_stages). Read from policy 20's two recorded runs at B16 H16 N512 D64, it becomes the first choice at ask 12,
where those runs asked (and kept) the two-warpgroup move."""
from agent import levers
from agent.policy import CURRENT, POLICIES
from agent.replay.catalog import as_listed
from agent.strategies.limiter import LimiterAgent
from recorded import RESULTS, load_script

HERE = RESULTS / "2026-12-04_cpu_short_items_three_stages"
MOVE = "ws_mainloop_three_warpgroups_short_items"


def _stages(policy) -> int | None:
    got = [lv for lv in levers.catalog_for(policy) if lv.name == MOVE]
    return got[0].sets["kv_stages"] if got else None


def test_policy_21_changes_the_move_and_no_rule():
    assert CURRENT.version >= 21
    assert POLICIES[21].model_copy(update={"version": 20}) == POLICIES[20]
    assert _stages(CURRENT) == 3 and levers.get(MOVE).sets["kv_stages"] == 3
    assert [_stages(POLICIES[v]) for v in (17, 18, 19, 20)] == [None, 2, 2, 2]
    listed = as_listed(levers.get(MOVE))
    assert listed["sets"]["kv_stages"] == 2 and listed["sets_since"] == {"21": {"kv_stages": 3}}
    assert as_listed(levers.get("ws_mainloop_short_items"))["sets_since"] == {}


def test_at_n512_the_three_warpgroup_move_comes_at_ask_12(tmp_path, cli_build_cache):
    """Policy 20's run (results/2026-12-04_h200_race/call15): at ask 12 it chose the two-warpgroup move (kept,
    1.0086) with the three-warpgroup one #10 for its 16 B spill; policy 21's knob set, built here, spills none and
    ranks first. At asks 10 and 11 both choose as the run did (the plain mainloop, last_warp_refill)."""
    mod = load_script(HERE / "first_choices.py")
    shape, version, states, miss = mod.earlier.states_of("2026-12-04_h200_race/call15/n512_agent_1", tmp_path)
    assert version == 20 and miss is None and len(states) == 20
    old, new = LimiterAgent(20), LimiterAgent(21)
    firsts = []
    for st in states[9:12]:
        a, b = old.ranked(st), new.ranked(mod.with_figures(new, st, shape))
        firsts.append((a[0].move.name, b[0].move.name, mod.rank_of(a, MOVE), mod.rank_of(b, MOVE)))
    assert firsts == [("ws_mainloop_three_warpgroups", "ws_mainloop_three_warpgroups", "#12 of 23", "#3 of 23"),
                      ("last_warp_refill", "last_warp_refill", "#11 of 22", "#2 of 22"),
                      ("ws_mainloop_short_items", MOVE, "#10 of 21", "#1 of 21")]
    st = mod.with_figures(new, states[11], shape)
    k = next(k for lv, k in new._singles(st) if lv.name == MOVE)
    assert k.kv_stages == 3 and st.static[k.key()].spill_bytes == 0 and st.static[k.key()].smem_per_cta == 147584


def test_the_committed_reading():
    text = (HERE / "first_choices.txt").read_text()
    runs = [ln for ln in text.splitlines() if not ln.startswith(" ")]
    assert len(runs) == 8
    assert sum("first choices differ at 1" in r for r in runs) == 2 and all(
        "first choices differ at 0" in r for r in runs if "n512_agent" not in r)
    assert text.count("ask 12: policy 20 ws_mainloop_short_items (KEPT 1.008") == 2
    assert "policy 20's knob set: 128 regs, 16 B spilled, 114784 B smem" in text
    assert "policy 21's knob set: 128 regs, 147584 B smem" in text


def test_the_device_call_runs_the_agent_and_names_suite_kernels():
    import re
    import subprocess

    from scripts.device_suite import KERNELS

    script = HERE / "device_call.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert 'race.sh n512 "--batch 16 --seqlen 512 --head-dim 64" agent:3' in text
    named = re.findall(r"fp16=(\w+)", text)
    assert named == ["ws3_lazy_qp_hf_ot_pm_ts_s3", "ws_op_lazy_qp_ot_pr_pm"] and set(named) <= set(KERNELS)
