#!/usr/bin/env python3
"""A compile load like the agent's background build (experiments.lab.Lab.build_ahead): ninja and nvcc at nice 10
on all cores but two, building full libraries of the suite's kernels into a fresh cache each round, until killed.
Prints one line per round (kernels built, seconds). Usage: python3 compile_load.py CACHE_DIR [--arch sm_90a]"""
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> int:
    cache, arch = Path(sys.argv[1]), sys.argv[sys.argv.index("--arch") + 1] if "--arch" in sys.argv else "sm_90a"
    specs = []
    for name, knobs in sorted(KERNELS.items()):
        k = Knobs.parse(knobs)
        for d in (64, 128):
            specs.append(BuildSpec(knobs=k, arch=arch, dtypes=("float16",), dims=(d,), causals=(False, True)))
    rnd = 0
    while True:
        shutil.rmtree(cache, ignore_errors=True)
        t0 = time.perf_counter()
        res = build(specs[rnd % 4::4], cache, jobs=max(1, (os.cpu_count() or 2) - 2), nice=10)
        print(f"round {rnd}: {sum(r.ok for r in res.values())} of {len(res)} built in {time.perf_counter() - t0:.0f} s",
              flush=True)
        rnd += 1


if __name__ == "__main__":
    sys.exit(main())
