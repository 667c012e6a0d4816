"""Policy 30 (ws_last_round_stream: the static persistent schedule's last items streamed in equal shares of the CTAs)
read from recorded H100 runs at N >= 4096 without a mask: policy 27's at B2 H16 N8192 D64 (results/2026-12-06_h100_policy27)
and policy 22's (results/2026-12-05_h100_agent_runs) there; each run replayed on the CPU from its recording, and from
ask 10 policy 30's first five choices; beside the first, what the run measured of that lever first.
CPU only: PYTHONPATH=. python3 results/2026-12-06_cpu_policy30/first_choices.py > results/2026-12-06_cpu_policy30/first_choices.txt"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_25", HERE.parent / "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(30, ("2026-12-06_h100_policy27/d64_agent_4", "2026-12-05_h100_agent_runs/d64_agent_4"), 10)
