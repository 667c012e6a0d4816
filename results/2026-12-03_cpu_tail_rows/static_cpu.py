#!/usr/bin/env python3
"""The three-warpgroup D=64 kernels with and without tail_rows=skip, built for sm_90a on this CPU machine (nvcc 13.0,
fp16, D=64, non-causal and causal): registers, stack frame, spill stores and loads of each instantiation, and whether
ptxas serialised its wgmma (C7520).

    python3 results/2026-12-03_cpu_tail_rows/static_cpu.py > results/2026-12-03_cpu_tail_rows/static_cpu.txt"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, TS  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402


def main() -> None:
    names = [x for n in TS for x in (n, n + "_ts")]
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(64,),
                          causals=(False, True), host=False) for n in names}
    print("# kernel, instantiation: registers, stack frame / spill stores / spill loads (bytes), C7520")
    with tempfile.TemporaryDirectory() as tmp:
        built = build(list(specs.values()), Path(tmp), jobs=2)
        for n, s in specs.items():
            b = built[s.key()]
            if not b.ok:
                print(n, "build failed")
                continue
            for r in sorted((r for r in parse_ptxas(b.log) if r.entry), key=lambda r: "Lb1E" in r.function):
                print(f"{n} D64 {'causal' if 'Lb1E' in r.function else 'non-causal'}: {r.registers} registers, "
                      f"{r.stack_frame}/{r.spill_stores}/{r.spill_loads}; C7520 {'yes' if r.wgmma_serialized else 'no'}")


if __name__ == "__main__":
    main()
