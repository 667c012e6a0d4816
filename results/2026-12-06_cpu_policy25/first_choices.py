"""Policy 25 (ws_short_tiles_late: each head's last query tile half a grid of heads later) read from policy 23's
recorded H100 runs (results/2026-12-06_h100_policy23): each run replayed on the CPU from its recording (the loop's own
states, today's catalog in them), and from ask 13 policy 25's first five choices; beside the first, what the run
measured of that lever first (any ask). CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-06_cpu_policy25/first_choices.py > results/2026-12-06_cpu_policy25/first_choices.txt"""
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


def read(version: int, runs, from_ask: int) -> None:
    """Each recorded run replayed from its recording, and from ask `from_ask` policy `version`'s first five choices."""
    agent = LimiterAgent(version)
    for run in runs:
        with tempfile.TemporaryDirectory() as d:
            shape, recorded, states, miss = fc.earlier.states_of(run, Path(d))
        print(f"{run} ({shape.key()}, policy {recorded}): {len(states)} asks replayed{', ' + miss if miss else ''}")
        for i, st in enumerate(states, 1):
            if i >= from_ask:
                st = fc.with_figures(agent, st.model_copy(update={"levers": CATALOG, "dtype": shape.dtype}), shape)
                names = [a.move.name for a in agent.ranked(st)]
                print(f"  ask {i}: {', '.join(names[:5])} (first measured {fc.earlier.measured(states, names[0])})")


if __name__ == "__main__":
    read(25, ("2026-12-06_h100_policy23/n512_agent_4", "2026-12-06_h100_policy23/d64_agent_4"), 13)
