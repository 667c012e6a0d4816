"""ptxas's figures of the kernels with the dynamic schedule (schedule=dynamic, `_dy`) beside the same kernels on the static
persistent schedule, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each build
(non-causal and causal), the shared memory a CTA asks for, and in the SASS the instructions the schedule adds (the
global atomics of the claim, the shared-memory mbarrier waits and arrivals) and the SASS's length.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_dynamic_schedule/static_cpu.py > results/2026-12-04_cpu_dynamic_schedule/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import DYN, builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402


def sass_line(sass: list[str]) -> str:
    count = lambda op: sum(op in ln for ln in sass)  # noqa: E731
    return (f"SASS (both builds): {len(sass)} lines; ATOMG {count('ATOMG')}, RED {count('RED.')}, "
            f"SYNCS.ARRIVE {count('SYNCS.ARRIVE')}, SYNCS.PHASECHK {count('SYNCS.PHASECHK')}, "
            f"HGMMA {count('HGMMA')}, MUFU.EX2 {count('MUFU.EX2')}")


def main() -> None:
    names = [m for n in DYN for m in (n, f"{n}_dy")] + ["ws3_lazy_qp_ot_ts_s3_dy"]  # the last: launch order
    print("\n".join(build_figures(builds_of(names), sass_line)))


if __name__ == "__main__":
    main()
