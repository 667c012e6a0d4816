#!/usr/bin/env python3
"""What ptxas and the SASS say of p_pack, on this CPU machine (nvcc 13.0, sm_90a, no GPU): for each kernel of
scripts/device_suite.py named, its registers and spills per instantiation (fp16, D=64 and, unless the kernel is built
for D=64 alone, D=128; non-causal, and causal for the kernels of the causal suite shapes), and in its SASS the runs of MUFU.EX2 (a block's exponentials: 30 or more MUFU, no
two more than 40 instructions apart) with the F2FP (P's packing) that stand among them. Needs cuobjdump (the [static]
extra).

    python3 results/2026-12-03_h200_p_pack/static_cpu.py [NAME ...] > results/2026-12-03_h200_p_pack/static_cpu.txt"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, d64_only  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.sass import cuobjdump_path  # noqa: E402

NAMES = ["ws2c_ot", "ws2c_ot_pk", "ws2c_o_ot", "ws2c_o_ot_pk", "ws2c_o_ot_pm", "ws3_lazy_qp_ot", "ws3_lazy_qp_ot_pk",
         "ws3_lazy_qp_ot_pm", "ws_op_lazy_w_oq", "ws_op_lazy_w_oq_pk", "ws_op_lazy_w_oq_pm", "ws_op_lazy_qp_w_ot_pr",
         "ws_op_lazy_qp_w_ot_pr_pk", "ws_op_lazy_qp_w_ot_pr_pm", "ws_op_lazy_qp_hf_w_ot", "ws_op_lazy_qp_hf_w_ot_pk",
         "ws_op_lazy_qp_hf_w_ot_pm"]


def mufu_runs(ops: list[str]) -> list[tuple[int, int, int]]:
    """(MUFU, instructions, F2FP) of each run of 30 or more MUFU no two more than 40 instructions apart"""
    idx = [k for k, o in enumerate(ops) if o.startswith("MUFU")]
    runs, cur = [], idx[:1]
    for a in idx[1:]:
        if a - cur[-1] < 40:
            cur.append(a)
        else:
            runs.append(cur)
            cur = [a]
    runs.append(cur)
    return [(len(r), r[-1] - r[0] + 1, sum(o.startswith("F2FP") for o in ops[r[0]:r[-1] + 1])) for r in runs if len(r) >= 30]


def main() -> int:
    names = sys.argv[1:] or NAMES
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",),
                          dims=(64,) if d64_only(n) else (64, 128),
                          causals=(False, True) if "_hf" in n else (False,), host=False) for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        built = build(list(specs.values()), Path(tmp), jobs=2)
        print("# kernel, instantiation: registers, stack frame / spill stores / spill loads (bytes); SASS instructions; "
              "each run of a block's exponentials: MUFU in instructions, F2FP among them")
        for n, s in specs.items():
            b = built[s.key()]
            if not b.ok:
                print(f"{n}: build failed")
                continue
            log = b.log
            sass = subprocess.run([cuobjdump_path(), "-sass", str(Path(b.library))], capture_output=True, text=True).stdout
            funcs = {f.split("\n")[0].strip(): f for f in re.split(r"\n\s*Function : ", sass)[1:]}
            for fn, body in sorted(funcs.items()):
                d = 64 if "Li64ELb" in fn else 128
                mask = " causal" if "Lb1E" in fn else ""
                m = re.search(re.escape(fn) + r".*?Function properties.*?\n\s*(\d+) bytes stack frame, (\d+) bytes spill "
                              r"stores, (\d+) bytes spill loads.*?Used (\d+) registers", log, re.S)
                ops = [re.sub(r"^@!?U?P\w+\s+", "", i).split()[0]
                       for i in re.findall(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", body)]
                runs = "; ".join(f"{a} in {b_}, F2FP {c}" for a, b_, c in mufu_runs(ops))
                regs = f"{m.group(4)} registers, {m.group(1)}/{m.group(2)}/{m.group(3)}" if m else "?"
                print(f"{n} D{d}{mask}: {regs}; {len(ops)} instructions; {runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
