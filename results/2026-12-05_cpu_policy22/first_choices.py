"""Policy 22 (ws_hoisted_descriptors, non-causal; ws_dynamic_items, causal) read from recorded H200 runs of the agent
from the naive seed: each run replayed on the CPU from its recording (the loop's own states, with today's catalog in
place of the one the run searched, as a fresh run would search it), and at every ask policy 22's first choice and the
rank of its two new levers. The knob sets a recorded run never built get their compiler figures from this machine's
ptxas (sm_90; ../2026-12-04_cpu_short_items_three_stages/first_choices.py). CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-05_cpu_policy22/first_choices.py > results/2026-12-05_cpu_policy22/first_choices.txt"""
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
RUNS = ["2026-12-04_h200_n512_policy21/n512_agent_3", "2026-12-04_h200_race/call16/gqa_agent_3",
        "2026-12-03_h200_agent_suite/call9/causal_p16", "2026-12-04_h200_race/call17/d128_agent_3"]
NEW = ("ws_hoisted_descriptors", "ws_dynamic_items")


def main() -> None:
    agent = LimiterAgent(22)
    for run in RUNS:
        with tempfile.TemporaryDirectory() as d:
            shape, version, states, miss = fc.earlier.states_of(run, Path(d))
        print(f"{run} ({shape.key()}, policy {version}): {len(states)} asks replayed{', ' + miss if miss else ''}")
        for i, st in enumerate(states, 1):
            st = fc.with_figures(agent, st.model_copy(update={"levers": CATALOG}), shape)
            names = [a.move.name for a in agent.ranked(st)]
            ranks = ", ".join(f"{n} #{names.index(n) + 1}" for n in NEW if n in names)
            if ranks:
                print(f"  ask {i}: first {names[0]} ({fc.earlier.measured(states, names[0])}); {ranks} of {len(names)}")


if __name__ == "__main__":
    main()
