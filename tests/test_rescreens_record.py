"""results/2026-12-04_cpu_rescreens: every re-screen in the recorded H200 runs' databases, read back. The four that
were kept all came with CTAs/SM unchanged, so a trigger of occupancy alone would have lost them."""
import subprocess
import sys

from recorded import RESULTS

HERE = RESULTS / "2026-12-04_cpu_rescreens"


def test_the_script_prints_the_committed_table():
    out = subprocess.run([sys.executable, str(HERE / "rescreens.py")], capture_output=True, text=True,
                         check=True).stdout
    assert out == (HERE / "rescreens.txt").read_text()
    assert out.rstrip().endswith("23 re-screens: KEPT 4, NULL 12, SLOWER 7")
    kept = [ln.split(" | ") for ln in out.splitlines() if " | KEPT | " in ln]
    assert sorted((k[2], k[4]) for k in kept) == [("kv_triple_buffer", "1.0219"), ("ws_pv_wide", "1.0254"),
                                                  ("ws_pv_wide", "1.0337"), ("ws_pv_wide", "1.0343")]
    assert all(k[5].startswith("1->1") for k in kept)
