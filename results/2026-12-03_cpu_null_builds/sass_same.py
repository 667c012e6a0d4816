#!/usr/bin/env python3
"""A and A' of null_builds.py are one machine code in two modules: the N2048 D128 agent final built for sm_90a
with its problem's mask only (A) and with both masks (A'); the non-causal kernel's SASS of the two libraries
compared instruction for instruction (addresses dropped). CPU only (nvcc, cuobjdump):
python3 results/2026-12-03_cpu_null_builds/sass_same.py > results/2026-12-03_cpu_null_builds/sass_same.txt"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.sass import cuobjdump_path  # noqa: E402


def functions(lib: str) -> dict[str, str]:
    sass = subprocess.run([cuobjdump_path(), "-sass", lib], capture_output=True, text=True, check=True).stdout
    return {f.split("\n", 1)[0].strip(): re.sub(r"/\*[0-9a-f]{4,}\*/", "", f.split("\n", 1)[1])
            for f in re.split(r"\n\s*Function : ", sass)[1:]}


def main() -> int:
    k = Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot_pr_pk"])
    a, a2 = (BuildSpec(knobs=k, arch="sm_90a", dtypes=("float16",), dims=(128,), causals=c) for c in ((False,), (False, True)))
    with tempfile.TemporaryDirectory() as d:
        res = build([a, a2], Path(d), jobs=2)
        fa, fa2 = functions(res[a.key()].library), functions(res[a2.key()].library)
    common = sorted(set(fa) & set(fa2))
    print(f"A: library {a.key()}, {len(fa)} kernel(s); A': library {a2.key()}, {len(fa2)} kernel(s)")
    for f in common:
        n = len([line for line in fa[f].splitlines() if line.strip().startswith("/*")])
        print(f"{f[:80]}...: {n} SASS lines, identical in A and A': {fa[f] == fa2[f]}")
    return 0 if common and all(fa[f] == fa2[f] for f in common) else 1


if __name__ == "__main__":
    sys.exit(main())
