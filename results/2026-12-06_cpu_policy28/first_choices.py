"""Policy 28 (ws_decoded_slot: the dynamic schedule's items handed to the consumers decoded) read from policy 25's
recorded N512 D64 run on an H100 (results/2026-12-06_h100_policy25): the run replayed on the CPU from its recording, and
from ask 14 policy 28's first five choices; beside the first, what the run measured of that lever first. CPU only:
PYTHONPATH=. python3 results/2026-12-06_cpu_policy28/first_choices.py > results/2026-12-06_cpu_policy28/first_choices.txt"""
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_25", HERE.parent / "2026-12-06_cpu_policy25" / "first_choices.py")
p25 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p25)

if __name__ == "__main__":
    p25.read(28, ("2026-12-06_h100_policy25/n512_agent_4",), 14)
