"""Policy 31 (ws_persistent_warp_uniform: the two-consumer D=128 kernel from one item a CTA to the static persistent
schedule with warp-uniform branches; ws_q_by_tma_lazy_p_mid_wait with warp-uniform branches) read from policy 30's
recorded H200 runs at B2 H16 N8192 D128 and D64 (results/2026-12-07_h200_policy30): each run replayed on the CPU from
its recording, and from ask 10 policy 31's first five choices; beside the first, what the run measured of that lever
first. CPU only: PYTHONPATH=. python3 results/2026-12-07_cpu_policy31/first_choices.py > results/2026-12-07_cpu_policy31/first_choices.txt"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_25", HERE.parent / "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(31, ("2026-12-07_h200_policy30/d8k_agent_4", "2026-12-07_h200_policy30/d64_agent_4",
                  "2026-12-07_h200_policy30/d2k_agent_4"), 10)
