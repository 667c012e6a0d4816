"""Policy 32 (ws_persistent_warp_uniform from 176 keys too, going back to 128) read from policy 31's recorded H100 runs
at B2 H16 N8192 D128 and D64 (results/2026-12-07_h100_tier_policy31): each run replayed on the CPU from its recording,
and from ask 10 policy 32's first five choices; beside the first, what the run measured of that lever first. CPU only:
PYTHONPATH=. python3 results/2026-12-07_cpu_policy32/first_choices.py > results/2026-12-07_cpu_policy32/first_choices.txt"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_25", HERE.parent / "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(32, ("2026-12-07_h100_tier_policy31/d8k_agent_4", "2026-12-07_h100_tier_policy31/d64_agent_4"), 10)
