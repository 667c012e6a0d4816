"""ptxas's figures of the kernels whose K/V loads carry an L2 evict-last policy (kv_l2_hint=evict_last, `_kh`) beside the
same kernels without it, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each build
(non-causal and causal), and in the SASS the TMA loads (UTMALDG) and how many of them take a cache policy operand.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_kv_l2_hint/static_cpu.py > results/2026-12-04_cpu_kv_l2_hint/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KH, builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402


def sass_line(sass: list[str]) -> str:
    # a TMA load with a cache policy reads it from a uniform register: UTMALDG.4D [dst], [map], desc[URn]
    tma = [ln for ln in sass if "UTMALDG" in ln]
    return (f"SASS (both builds): {len(sass)} lines; UTMALDG {len(tma)}, with a cache policy (desc[URn]) "
            f"{sum('desc[' in ln for ln in tma)}; HGMMA {sum('HGMMA' in ln for ln in sass)}")


def main() -> None:
    print("\n".join(build_figures(builds_of([m for n in KH for m in (n, f"{n}_kh")]), sass_line)))


if __name__ == "__main__":
    main()
