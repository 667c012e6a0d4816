"""Policy 33 (hopper_tile asynchronous: the rows/SM it gives up no longer rank it last) against policy 32, read from the
recorded H100 runs of policies 31 and 32 and one causal GQA D=128 run of policy 20 on an H200: each run replayed on the
CPU from its recording, and at each recorded state both policies' first three choices; a line marked where they
differ. CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-07_cpu_policy33/first_choices.py > results/2026-12-07_cpu_policy33/first_choices.txt"""
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

RUNS = ("2026-12-07_h100_policy32_shapes/c4k_agent_4", "2026-12-07_h100_policy32_shapes/gqa_agent_4",
        "2026-12-07_h100_policy32_shapes/n4k_agent_4", "2026-12-07_h100_policy32/d8k_agent_4",
        "2026-12-07_h100_tier_policy31/d64_agent_4", "2026-12-07_h100_tier_policy31/d8k_agent_4",
        "2026-12-04_h200_race/call16/gqa_agent_3")


def main() -> None:
    agents = {v: LimiterAgent(v) for v in (32, 33)}
    for run in RUNS:
        with tempfile.TemporaryDirectory() as d:
            shape, recorded, states, miss = fc.earlier.states_of(run, Path(d))
        print(f"{run} ({shape.key()}, policy {recorded}): {len(states)} asks replayed{', ' + miss if miss else ''}")
        for i, st in enumerate(states, 1):
            first = {}
            for v, agent in agents.items():
                s = fc.with_figures(agent, st.model_copy(update={"levers": CATALOG, "dtype": shape.dtype}), shape)
                first[v] = [p.move.name for p in agent.ranked(s)[:3]]
            mark = "" if first[32] == first[33] else "  <- differs"
            print(f"  ask {i}: 32 {', '.join(first[32])} | 33 {', '.join(first[33])}{mark}", flush=True)


if __name__ == "__main__":
    main()
