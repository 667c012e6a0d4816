"""Policy 26 (ws_q_by_tma_three_stages: Q by TMA, the persistent schedule and a third K/V stage as one move on the
three-warpgroup kernel) read from policy 25's recorded H100 run at B8 H16/4 N2048 D64 (results/2026-12-06_h100_policy25):
the run replayed on the CPU from its recording (the loop's own states, today's catalog in them), and from ask 10 policy
26's first five choices; beside the first, what the run measured of that lever first (any ask). CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-06_cpu_policy26/first_choices.py > results/2026-12-06_cpu_policy26/first_choices.txt"""
import importlib.util
import tempfile
from pathlib import Path

from agent.levers import CATALOG
from agent.strategies.limiter import LimiterAgent

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_21", HERE.parent / "2026-12-04_cpu_short_items_three_stages" /
                                              "first_choices.py")
fc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fc)  # with_figures(); fc.earlier.states_of(), measured()


def main() -> None:
    agent = LimiterAgent(26)
    run = "2026-12-06_h100_policy25/gqa64_agent_4"
    with tempfile.TemporaryDirectory() as d:
        shape, version, states, miss = fc.earlier.states_of(run, Path(d))
    print(f"{run} ({shape.key()}, policy {version}): {len(states)} asks replayed{', ' + miss if miss else ''}")
    for i, st in enumerate(states, 1):
        if i >= 10:
            st = fc.with_figures(agent, st.model_copy(update={"levers": CATALOG, "dtype": shape.dtype}), shape)
            names = [a.move.name for a in agent.ranked(st)]
            print(f"  ask {i}: {', '.join(names[:5])} (first measured {fc.earlier.measured(states, names[0])})")


if __name__ == "__main__":
    main()
