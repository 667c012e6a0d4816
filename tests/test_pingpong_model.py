"""kv_release=producer's barriers with pingpong on and off, as a model under random schedules
(scripts/model_pingpong.py): no deadlock, no named-barrier arrival left pending at an item's end or the kernel's,
no mbarrier parity that could alias; three deliberately wrong variants are caught. It checks the protocol that
the tensor-core mainloop's comments state (kernel_src/gemm_sm90.cuh), not the compiled kernel (the H200 tier, results/2026-11-30_h200_kv_release_ws/call2, does that)."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "model_pingpong.py"


def test_the_barrier_protocol_model_holds_and_catches_wrong_variants():
    p = subprocess.run([sys.executable, str(SCRIPT), "12"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ok  ") == 40 and "no deadlock, no pending arrival, no parity alias" in p.stdout
    for wrong in ("arrive_after_last", "no_first_arrival", "producer_parity"):
        assert f"wrong variant {wrong}: caught in 12 of 12" in p.stdout, p.stdout
