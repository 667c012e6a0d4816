"""Policy 29 (ws_warp_uniform: the static persistent schedule's branches made provably warp-uniform) read from policy
22's recorded H100 runs at B2 H16 N8192 D128 and causal B8 H32/8 N1024 D128 bf16 (results/2026-12-05_h100_agent_runs),
whose kernels were on the static persistent schedule from their ask 10: each run replayed on the CPU from its
recording, and from ask 10 policy 29's first five choices; beside the first, what the run measured of that lever first.
CPU only: PYTHONPATH=. python3 results/2026-12-06_cpu_policy29/first_choices.py > results/2026-12-06_cpu_policy29/first_choices.txt"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_25", HERE.parent / "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(29, ("2026-12-05_h100_agent_runs/d128_agent_4", "2026-12-05_h100_agent_runs/gqa_agent_4"), 10)
