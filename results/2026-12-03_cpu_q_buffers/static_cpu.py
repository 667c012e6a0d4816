"""ptxas's figures of the kernels with two Q tiles (q_buffers=2) beside the same kernels with one, on this CPU machine
(nvcc, sm_90a; no GPU): registers, stack and spills of each build (non-causal and causal), and whether ptxas serialised
the wgmma (C7520). Usage: PYTHONPATH=. python3 results/2026-12-03_cpu_q_buffers/static_cpu.py > .../static_cpu.txt"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, Q2, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> None:
    specs = {}
    for n in Q2:
        D = 64 if d64_only(n) else 128
        for q in (1, 2):
            k = Knobs.parse({**KERNELS[n], "q_buffers": q})
            specs[(n, q, D)] = BuildSpec(knobs=k, arch="sm_90", dtypes=("float16",), dims=(D,), causals=(False, True),
                                         host=False)
    with tempfile.TemporaryDirectory() as d:
        res = build(list(specs.values()), Path(d), jobs=2)
        for (n, q, D), sp in specs.items():
            r = res[sp.key()]
            print(f"{n} q_buffers={q} D{D}: {'built' if r.ok else 'FAILED'}; smem {Knobs.parse({**KERNELS[n], 'q_buffers': q}).smem_bytes(D)} B"
                  f"{'; C7520' if 'C7520' in r.log else ''}")
            # ptxas prints each entry's stack/spill line, then its registers line; the causal instantiation's name holds
            # the template's <..., T, D, CAUSAL> as ...Li<D>ELb1E
            ents = re.findall(r"Compiling entry function '(\S+)'.*?(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads.*?Used (\d+) registers", r.log, re.S)
            for name, stack, st, ld, regs in ents:
                causal = "causal" if re.search(r"Li\d+ELb1E", name) else "non-causal"
                print(f"  {causal}: {regs} registers, stack {stack} B, spill stores {st} B, loads {ld} B")


if __name__ == "__main__":
    main()
