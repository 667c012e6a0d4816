"""ptxas's figures of the kernels whose wgmma descriptors are built once a block and operand (desc_math=hoisted, `_dm`)
beside the same kernels without it, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of
each build (non-causal and causal), and in the SASS the uniform-datapath instructions (U*, R2UR, S2UR), the HGMMAs and
all instructions, and the same for a key block's GEMMs (the longest run of HGMMAs each within 40 instructions of the
next: QK^T's and PV's, with the descriptor arithmetic between them).
Usage: PYTHONPATH=. python3 results/2026-12-05_cpu_desc_math/static_cpu.py > results/2026-12-05_cpu_desc_math/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import MW, builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402


def opcode(ln: str) -> str:
    body = ln.split("*/", 1)[1].split(";")[0].split() if "*/" in ln else []
    return (body[1] if body and body[0].startswith("@") and len(body) > 1 else body[0] if body else "")


def is_uniform(o: str) -> bool:
    return o.startswith("U") or o.split(".")[0] in ("R2UR", "S2UR")


def sass_line(sass: list[str]) -> str:
    ops = [o for o in map(opcode, sass) if o]
    h = [i for i, o in enumerate(ops) if o.startswith("HGMMA")]
    # a key block's GEMMs: the longest run of HGMMAs each within 40 instructions of the next, from the first to the last
    runs, start = [], 0
    for j in range(1, len(h) + 1):
        if j == len(h) or h[j] - h[j - 1] >= 40:
            runs.append((j - start, h[start], h[j - 1]))
            start = j
    n, a, b = max(runs, key=lambda r: (r[0], r[2] - r[1]))
    return (f"SASS (both builds): {len(ops)} instructions; uniform datapath {sum(map(is_uniform, ops))}; "
            f"HGMMA {len(h)}; the longest run of {n} HGMMAs: {b - a + 1} instructions, "
            f"{sum(map(is_uniform, ops[a:b + 1]))} of them uniform")


def main() -> None:
    print("\n".join(build_figures(builds_of([m for n in MW for m in (n, f"{n}_dm")]), sass_line)))


if __name__ == "__main__":
    main()
