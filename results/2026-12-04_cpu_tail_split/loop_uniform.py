"""The key-block loop of the split kernel against the idle tail's, in the SASS this machine's ptxas writes (nvcc, sm_90a,
fp16, D=64, non-causal): its instructions, R2UR, the uniform ops ULOP3.LUT and UMOV, and BRA.DIV. The loop is the one
backward-branch region with 12 HGMMA and no STS (the helper's block stores its partials). Run against any commit's
kernel_src/ through --tree (a git worktree): the three device builds were 41bdca6, 5442af8 and 092b9a6.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_tail_split/loop_uniform.py [--tree DIR]"""
import argparse
import collections
import re
import sys
import tempfile
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[2])
a = ap.parse_args()
sys.path[:0] = [str(a.tree), str(a.tree / "scripts")]

from device_suite import KERNELS  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402


def loop(sass: str) -> collections.Counter:
    ins = [(int(m[1], 16), m[2]) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(.*?);", sass)]
    at = {addr: i for i, (addr, _) in enumerate(ins)}
    for i, (addr, text) in enumerate(ins):
        m = re.search(r"BRA\s+(?:`\(\S+\)\s*)?0x([0-9a-f]+)", text)
        if m and int(m[1], 16) < addr and int(m[1], 16) in at:
            ops = collections.Counter(t.split()[1] if t.startswith("@") else t.split()[0]
                                      for _, t in ins[at[int(m[1], 16)]:i + 1])
            if sum(v for k, v in ops.items() if k.startswith("HGMMA")) == 12 and not ops["STS"]:
                return ops
    return collections.Counter()


names = ["ws3_lazy_qp_hf_ot_ts_s3", "ws3_lazy_qp_hf_ot_tsp_s3"]
specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(64,), causals=(False,),
                      host=False) for n in names}
with tempfile.TemporaryDirectory() as d:
    res = build(list(specs.values()), Path(d), jobs=2)
    for n, sp in specs.items():
        ops = loop(dump_sass(str(Path(d) / sp.key() / "fa.cubin")))
        print(f"{n}: key-block loop {sum(ops.values())} instructions, R2UR {ops['R2UR']}, ULOP3.LUT {ops['ULOP3.LUT']}, "
              f"UMOV {ops['UMOV']}, BRA.DIV {ops['BRA.DIV']}")
