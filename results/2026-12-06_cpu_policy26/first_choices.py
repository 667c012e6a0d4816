"""Policy 26 (ws_q_by_tma_three_stages: Q by TMA, the persistent schedule and a third K/V stage as one move on the
three-warpgroup kernel) read from policy 25's recorded H100 run at B8 H16/4 N2048 D64 (results/2026-12-06_h100_policy25):
the run replayed on the CPU from its recording (the loop's own states, today's catalog in them), and from ask 10 policy
26's first five choices; beside the first, what the run measured of that lever first (any ask). CPU only, no GPU
(the reading is policy 25's record's `read`):
PYTHONPATH=. python3 results/2026-12-06_cpu_policy26/first_choices.py > results/2026-12-06_cpu_policy26/first_choices.txt"""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("first_choices_25", Path(__file__).resolve().parent.parent /
                                              "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(26, ("2026-12-06_h100_policy25/gqa64_agent_4",), 10)
