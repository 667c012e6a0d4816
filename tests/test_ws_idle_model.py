"""The warp-specialised mainloop's mbarriers with a warpgroup sitting out its item (tail_rows=skip), as a model under
random schedules (results/2026-12-03_cpu_tail_rows/model_ws_idle.py): no deadlock, every empty-barrier arrival in the phase of the fill it
releases, no parity that could alias, with one Q tile and with two (q_buffers=2); deliberately wrong variants are caught. It checks the protocol that
kernel_src/mainloop_sm90_ws.cuh's comments state, not the compiled kernel (the H200 tier does that)."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "results" / "2026-12-03_cpu_tail_rows" / "model_ws_idle.py"


def test_the_idle_warpgroups_barrier_protocol_holds_and_wrong_variants_are_caught():
    p = subprocess.run([sys.executable, str(SCRIPT), "12"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ok  ") == 24 and "no deadlock, every arrival in its fill's phase, no parity alias" in p.stdout
    assert p.stdout.count(", 2 Q tiles: 12 random schedules") == 12  # q_buffers=2: item n's Q in tile n % 2
    for wrong in ("idle_keeps_q, 1 Q tile", "idle_no_wait, 1 Q tile", "idle_keeps_q, 2 Q tiles", "q2_one_tile, 2 Q tiles"):
        assert f"wrong variant {wrong}: caught in 12 of 12" in p.stdout, p.stdout
