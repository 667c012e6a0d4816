"""ptxas's figures of the kernels with the persistent schedule's rounds turned or snaking (round_order) and with heaviest
first, with and without the idle tail warpgroup, beside the kernels they are paired with (ws3_lazy_qp_ot_pm at D=64,
ws_op_lazy_qp_hf_w_ot_pr_pk at D=128), on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each
build (non-causal and causal), and whether ptxas serialised the wgmma (C7520).
Usage: PYTHONPATH=. python3 results/2026-12-03_cpu_round_order/static_cpu.py > .../static_cpu.txt"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, TR, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> None:
    names = ["ws3_lazy_qp_ot_pm", "ws3_lazy_qp_ot_pm_ts", *TR, "ws_op_lazy_qp_hf_w_ot_pr_pk", "ws_op_lazy_qp_hf_w_ot_pr_pk_sn"]
    dim = lambda n: 64 if d64_only(n) else 128
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(dim(n),),
                          causals=(False, True), host=False) for n in names}
    with tempfile.TemporaryDirectory() as d:
        res = build(list(specs.values()), Path(d), jobs=2)
        for n, sp in specs.items():
            r = res[sp.key()]
            print(f"{n} D{dim(n)}: {'built' if r.ok else 'FAILED'}; smem {sp.knobs.smem_bytes(dim(n))} B{'; C7520' if 'C7520' in r.log else ''}")
            ents = re.findall(r"Compiling entry function '(\S+)'.*?(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads.*?Used (\d+) registers", r.log, re.S)
            for name, stack, st, ld, regs in sorted(ents, key=lambda e: bool(re.search(r"Li\d+ELb1E", e[0]))):
                causal = "causal" if re.search(r"Li\d+ELb1E", name) else "non-causal"
                print(f"  {causal}: {regs} registers, stack {stack} B, spill stores {st} B, loads {ld} B")


if __name__ == "__main__":
    main()
