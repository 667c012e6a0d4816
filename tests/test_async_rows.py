"""Policy 20 (Policy.async_rows): a move to the warp-specialised mainloop ranks below no other move for the rows/SM it
gives up for its producer. Read from the recorded H200 runs' own states (results/2026-12-04_cpu_async_rows), it
changes the first choice where policy 19's run at causal GQA asked five level moves and a compound before the
two-warpgroup mainloop move it then kept, and at two earlier runs at D=64; nowhere else."""
from agent.policy import CURRENT, POLICIES
from agent.strategies.limiter import LimiterAgent
from recorded import RESULTS, load_script

HERE = RESULTS / "2026-12-04_cpu_async_rows"


def _script():
    return load_script(HERE / "first_choices.py")


def test_the_switch_is_policy_20s_alone():
    assert CURRENT.async_rows and POLICIES[20].async_rows
    assert not any(POLICIES[v].async_rows for v in range(1, 20))
    assert POLICIES[20].model_copy(update={"version": 19, "async_rows": False}) == POLICIES[19]


def test_at_causal_gqa_it_asks_the_kept_mainloop_move_six_asks_sooner(tmp_path):
    """Policy 19's run (results/2026-12-04_h200_race/call11): at asks 9-14 policy 19 chose moves level with the
    mainloop move on relief, cost and whether the band's middle reaches t_keep, ranked above it by the 128 rows/SM it
    gives up; policy 20 chooses the move (kept at #15, 1.1045)."""
    _, version, states, miss = _script().states_of("2026-12-04_h200_race/call11/gqa_agent_2", tmp_path)
    assert version == 19 and miss is None and len(states) == 20
    old, new = LimiterAgent(19), LimiterAgent(20)
    firsts = [(old.ranked(st)[0].move.name, new.ranked(st)[0].move.name) for st in states]
    differ = [i + 1 for i, (a, b) in enumerate(firsts) if a != b]
    assert differ == [9, 10, 11, 12, 13, 14]
    assert {b for a, b in firsts[8:14]} == {"ws_mainloop_short_items"}
    st = states[13]
    move = next(m for m in new.moves(st) if m.name == "ws_mainloop_short_items")
    k19, k20 = old.assess(st, move)[0], new.assess(st, move)[0]
    assert k19[4] == -128 and k20[4] == 0 and k19[:4] == k20[:4] == (1.0, True, 1, 0)
    assert old.assess(st, move)[1] == new.assess(st, move)[1]  # the band is the same: only the rank moves


def test_the_recorded_runs_read_by_both_policies(capsys):
    """The script's output, committed beside it, is what it prints now: the first choices of policies 19 and 20 at
    every ask of nine recorded runs."""
    _script().main()
    assert capsys.readouterr().out == (HERE / "first_choices.txt").read_text()
