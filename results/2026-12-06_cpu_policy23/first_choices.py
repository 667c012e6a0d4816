"""Policy 23 (ws_launch_order_row_sums, ws_suspended_waits, kv_evict_last) read from the recorded H100 runs of the agent
from the naive seed (results/2026-12-05_h100_agent_runs, policy 22): each run replayed on the CPU from its recording (the
loop's own states, with today's catalog in place of the one the run searched, as a fresh run would search it), and at
every ask policy 23's first choice and the rank of its three new levers. The knob sets a recorded run never built get
their compiler figures from this machine's ptxas (sm_90; ../2026-12-04_cpu_short_items_three_stages/first_choices.py).
CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-06_cpu_policy23/first_choices.py > results/2026-12-06_cpu_policy23/first_choices.txt
(arguments: only the runs whose names hold one of them, e.g. `n512`; a number N: the asks up to the Nth)"""
import importlib.util
import sys
import tempfile
from pathlib import Path

from agent.levers import CATALOG
from agent.strategies.limiter import LimiterAgent

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_21", HERE.parent / "2026-12-04_cpu_short_items_three_stages" /
                                              "first_choices.py")
fc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fc)  # with_figures(); fc.earlier.states_of(), measured()
RUNS = [f"2026-12-05_h100_agent_runs/{n}_agent_4" for n in ("n512", "gqa", "d64", "d128")]
NEW = ("ws_launch_order_row_sums", "ws_suspended_waits", "kv_evict_last")


def main() -> None:
    agent = LimiterAgent(23)
    names, through = [a for a in sys.argv[1:] if not a.isdigit()], [int(a) for a in sys.argv[1:] if a.isdigit()]
    for run in [r for r in RUNS if not names or any(a in r for a in names)]:
        with tempfile.TemporaryDirectory() as d:
            shape, version, states, miss = fc.earlier.states_of(run, Path(d))
        print(f"{run} ({shape.key()}, policy {version}): {len(states)} asks replayed{', ' + miss if miss else ''}")
        for i, st in enumerate(states[:through[0] if through else None], 1):
            st = fc.with_figures(agent, st.model_copy(update={"levers": CATALOG, "dtype": shape.dtype}), shape)
            ranked = agent.ranked(st)
            names = [a.move.name for a in ranked]
            ranks = ", ".join(f"{n} #{names.index(n) + 1}" for n in NEW if n in names)
            if ranks:
                print(f"  ask {i}: first {names[0]} ({fc.earlier.measured(states, names[0])}); {ranks} of {len(names)}")


if __name__ == "__main__":
    main()
