"""Policy 27 (ws_q_by_tma_lazy_p_mid_wait: Q by TMA with the persistent schedule, the lazy rescale and P packed
mid-wait as one move on the one-item-a-CTA three-warpgroup kernel) read from policy 26's recorded H100 run at B8 H16/4
N2048 D64 (results/2026-12-06_h100_policy26) and from policy 25's at N512 D64 (results/2026-12-06_h100_policy25): each
run replayed on the CPU from its recording (the loop's own states, today's catalog in them), and from ask 10 policy
27's first five choices; beside the first, what the run measured of that lever first (any ask). CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-06_cpu_policy27/first_choices.py > results/2026-12-06_cpu_policy27/first_choices.txt"""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("first_choices_25", Path(__file__).resolve().parent.parent /
                                              "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(27, ("2026-12-06_h100_policy26/gqa64_agent_4", "2026-12-06_h100_policy25/n512_agent_4"), 10)
