"""ptxas's figures of the two suite kernels policy 22's levers add to the next suite call (the N2048 D128 best with
hoisted descriptors, the causal N1024 GQA best with items from a counter) beside their bases, on this CPU machine
(nvcc, sm_90a, fp16, D128; the three-warpgroup kernels D64; no GPU): registers, stack and spills, causal and not, and the SASS instruction count.
Usage: PYTHONPATH=. python3 results/2026-12-05_cpu_suite22/static_cpu.py > results/2026-12-05_cpu_suite22/static_cpu.txt"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import builds_of  # noqa: E402
from profiler.static import build_figures  # noqa: E402

NEW = ["ws_op_lazy_qp_w_ot_pr_pk", "ws_op_lazy_qp_w_ot_pr_pk_dm", "ws_op_lazy_qp_hf_w_ot_pm", "ws_op_lazy_qp_hf_w_ot_pm_dy",
       "ws3_lazy_qp_hf_ot_pm_ts_s3", "ws3_lazy_qp_hf_ot_pm_ts_s3_dm"]


def sass_line(sass: list[str]) -> str:
    ops = [ln.split("*/", 1)[1].split(";")[0].split() for ln in sass if "*/" in ln]
    ops = [o for o in ops if o]
    return f"SASS (both builds): {len(ops)} instructions; ATOMG {sum(any(x.startswith('ATOMG') for x in o) for o in ops)}"


def main() -> None:
    dims = [b for b in builds_of(NEW) if b[2] == (64 if b[0].startswith("ws3") else 128)]
    print("\n".join(build_figures(dims, sass_line)))


if __name__ == "__main__":
    main()
