#!/usr/bin/env python3
"""The packing kernels' builds on this CPU machine (nvcc 13.0, sm_90a, no GPU): for each kernel of
scripts/device_suite.py named, per instantiation (D=128; fp16, or bf16 for the causal GQA kernel; non-causal and
causal): whether ptxas said it serialised the wgmma (C7520), the SASS instruction count, and the count of
WARPGROUP.DEPBAR (waits for wgmma groups). Run once from the source before the fix and once after.

    python3 results/2026-12-03_h200_agent_suite/static_with_exp.py > results/2026-12-03_h200_agent_suite/static_with_exp_<when>.txt"""
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
from profiler.ptxas import parse_ptxas  # noqa: E402
from profiler.sass import cuobjdump_path  # noqa: E402

NAMES = {"ws_op_lazy_qp_hf_w_ot_pk": "bfloat16", "ws_op_lazy_qp_w_ot_pr_pk": "float16", "ws_op_lazy_w_oq_pk": "float16"}


def main() -> int:
    src = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "kernel_src"], capture_output=True,
                           text=True).stdout.strip()
    print(f"# kernel_src of {src.strip()}{' with uncommitted changes' if dirty else ''}")
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=(dt,), dims=(128,),
                          causals=(False, True), host=False) for n, dt in NAMES.items()}
    with tempfile.TemporaryDirectory() as tmp:
        built = build(list(specs.values()), Path(tmp), jobs=2)
        for n, s in specs.items():
            b = built[s.key()]
            serial = {r.function: r.wgmma_serialized for r in parse_ptxas(b.log) if r.entry}
            sass = subprocess.run([cuobjdump_path(), "-sass", b.library], capture_output=True, text=True).stdout
            for f in re.split(r"\n\s*Function : ", sass)[1:]:
                name = f.split("\n")[0].strip()
                ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+([^;]*);", f)
                causal = "causal" if "Lb1E" in name else "non-causal"
                print(f"{n} {NAMES[n]} D128 {causal}: C7520 {'yes' if serial.get(name) else 'no'}; {len(ops)} SASS "
                      f"instructions, {sum('WARPGROUP.DEPBAR' in o for o in ops)} WARPGROUP.DEPBAR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
