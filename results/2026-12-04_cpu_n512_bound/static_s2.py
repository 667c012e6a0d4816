"""ptxas figures (sm_90, this CPU machine's nvcc) of the two-consumer-warpgroup kernels device_call.sh measures, at
D=64 and D=128, through `python3 -m agent static --json` (the non-causal instantiation).
PYTHONPATH=. python3 results/2026-12-04_cpu_n512_bound/static_s2.py > results/2026-12-04_cpu_n512_bound/static_s2.txt"""
import json
import subprocess
import sys

from scripts.device_suite import KERNELS

NAMES = ["ws_op_qp_ot_pr", "ws_op_lazy_qp_ot_pr", "ws_op_lazy_qp_ot_pr_pm", "ws_op_lazy_qp_ot_pr_pk"]


def main() -> int:
    print("| kernel | head dim | registers | spill bytes | CTAs/SM | shared memory a CTA |")
    print("|---|---|---|---|---|---|")
    for name in NAMES:
        for hd in ("64", "128"):
            args = [sys.executable, "-m", "agent", "static", "--arch", "sm_90", "--json", "--head-dim", hd]
            for k, v in KERNELS[name].items():
                args += ["--knob", f"{k}={v}"]
            row = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)[0]
            print(f"| {name} | {hd} | {row['registers']} | {row['spill_bytes']} | {row['ctas_per_sm']} | "
                  f"{row['smem_per_cta']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
