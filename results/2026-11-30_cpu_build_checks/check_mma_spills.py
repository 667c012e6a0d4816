"""Registers and spills of issue 9's measured mma.sync kernels on sm_80, sm_90 and sm_120, no GPU: S5 unrolled
(BR 128 x BC 32 on 4 warps, 1.006-1.012x SDPA flash on the H200) and the same on BC 64 with the persistent grid
(FlashAttention-2's 128 x 64 on 4 warps, 1.017-1.021x), each built as the tool builds it (fp16/bf16, D 64/128,
causal or not), one line per instantiation.
  PYTHONPATH=. python3 results/2026-11-30_cpu_build_checks/check_mma_spills.py [CACHE_DIR]"""
import re
import sys

from experiments.build import BuildSpec, build, nvcc_version
from kernel_src.knobs import Knobs
from profiler.ptxas import parse_ptxas

S5U = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
            q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on", copies="unrolled")
B64 = S5U.replace(bc=64, persistent="on")


def main() -> None:
    specs = [BuildSpec(knobs=k, arch=a, dtypes=("float16", "bfloat16"), dims=(64, 128)) for k in (S5U, B64)
             for a in ("sm_80", "sm_90", "sm_120")]
    res = build(specs, sys.argv[1] if len(sys.argv) > 1 else "/tmp/mma_spills_cache")
    print(f"nvcc {nvcc_version()}")
    for s in specs:
        r = res[s.key()]
        print(f"== {s.knobs.label()} {s.arch}: {'built' if r.ok else 'BUILD FAILED'}")
        for x in parse_ptxas(r.log):
            if x.entry and "fa_fwd_kernel" in x.function:
                # the kernel template's last three arguments: the dtype, D, CAUSAL
                m = re.search(r"(6__half|13__nv_bfloat16)Li(\d+)ELb([01])E", x.function)
                dt, d, c = ("fp16" if m[1] == "6__half" else "bf16"), m[2], ("causal" if m[3] == "1" else "non-causal")
                print(f"  {dt} D={d:<3} {c:<10} {x.registers:>3} registers, {x.spill_stores} B spill stores, "
                      f"{x.spill_loads} B spill loads")


if __name__ == "__main__":
    main()
