"""ptxas's figures of the kernels with the tail tile split inside the CTA (tail_rows=split, `_tsp_`) beside the same kernels
with the idle tail warpgroup (tail_rows=skip, `_ts_`), on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers,
stack and spills of each build (non-causal and causal), the shared memory a CTA asks for, and in the SASS the named
barrier instructions (BAR) the split adds.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_tail_split/static_cpu.py > results/2026-12-04_cpu_tail_split/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import TSP, builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402


def main() -> None:
    names = [m for n in TSP for m in (n, n.replace("_ts_", "_tsp_"))] + ["ws_o_lazy_qp_ot_pr_tsp"]
    print("\n".join(build_figures(builds_of(names), lambda sass: f"SASS (both builds): {len(sass)} lines; BAR.SYNC {sum('BAR.SYNC' in ln for ln in sass)}, "
                 f"BAR.ARV {sum('BAR.ARV' in ln for ln in sass)}, HGMMA {sum('HGMMA' in ln for ln in sass)}, "
                 f"MUFU.EX2 {sum('MUFU.EX2' in ln for ln in sass)}")))


if __name__ == "__main__":
    main()
