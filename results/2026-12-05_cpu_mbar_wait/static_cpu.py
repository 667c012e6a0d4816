"""ptxas's figures of the kernels whose mbarrier waits carry a suspend-time hint (mbar_wait=suspend, `_mw`) beside the
same kernels without it, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each build
(non-causal and causal), and in the SASS the mbarrier waits (SYNCS.PHASECHK.TRANS64.TRYWAIT), the NANOSLEEP.SYNCS that
the hint compiles to, and the YIELDs of the loops that ask again.
Usage: PYTHONPATH=. python3 results/2026-12-05_cpu_mbar_wait/static_cpu.py > results/2026-12-05_cpu_mbar_wait/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import MW, builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402


def sass_line(sass: list[str]) -> str:
    # without a hint ptxas loops YIELD, TRYWAIT, a branch back; with one it puts a NANOSLEEP.SYNCS of the hint's length
    # (0x989680 ns) after the TRYWAIT whose phase is not complete
    return (f"SASS (both builds): {len(sass)} lines; TRYWAIT {sum('TRYWAIT' in ln for ln in sass)}, "
            f"NANOSLEEP.SYNCS 0x989680 {sum('NANOSLEEP.SYNCS 0x989680' in ln for ln in sass)}, "
            f"YIELD {sum(' YIELD' in ln for ln in sass)}; HGMMA {sum('HGMMA' in ln for ln in sass)}")


def main() -> None:
    print("\n".join(build_figures(builds_of([m for n in MW for m in (n, f"{n}_mw")]), sass_line)))


if __name__ == "__main__":
    main()
