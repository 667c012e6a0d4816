"""Registers and spills with pv_slab (P made and multiplied into O one 16-key slab at a time) against without, on
sm_80, sm_90 and sm_120, no GPU: issue 9's kernels, S5 unrolled (BR 128 x BC 32 on 4 warps) and FlashAttention-2's
128 x 64 on 4 warps (BC 64, with and without the persistent grid, with one K/V stage, which fits sm_120's 99 KB, and
with the predicate mask),
each built as the tool builds it (fp16/bf16, D 64/128, causal or not); the worst instantiation of each build.
  PYTHONPATH=. python3 results/2026-11-30_cpu_build_checks/check_pv_slab.py [CACHE_DIR]"""
import sys

from experiments.build import BuildSpec, build, nvcc_version
from kernel_src.knobs import Knobs
from profiler.ptxas import parse_ptxas

S5U = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
            q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on", copies="unrolled")
B64 = S5U.replace(bc=64, persistent="on")
# B64PR: with the predicate mask (a function template per block kind: interior blocks carry no mask code); its
# one-stage build with pv_slab on is B64L, the lean 128 x 64 kernel
KERNELS = {"S5U": S5U, "B64": B64, "B64np": S5U.replace(bc=64), "B64_ks1": B64.replace(kv_stages=1),
           "B64PR": B64.replace(causal_mask="predicate"), "B64PR_ks1": B64.replace(causal_mask="predicate", kv_stages=1)}
ARCHS = ("sm_80", "sm_90", "sm_120")


def main() -> None:
    specs = {(n, slab, a): BuildSpec(knobs=k.replace(pv_slab=slab), arch=a, dtypes=("float16", "bfloat16"),
                                     dims=(64, 128))
             for n, k in KERNELS.items() for slab in ("off", "on") for a in ARCHS}
    res = build(list(specs.values()), sys.argv[1] if len(sys.argv) > 1 else "/tmp/pv_slab_cache")
    print(f"nvcc {nvcc_version()}")
    print(f"{'kernel':<8} {'arch':<7} {'pv_slab':<8} {'max registers':>13} {'worst spill (B, stores+loads)':>30}")
    for (n, slab, a), s in specs.items():
        r = res[s.key()]
        if not r.ok:
            print(f"{n:<8} {a:<7} {slab:<8} BUILD FAILED")
            continue
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        print(f"{n:<8} {a:<7} {slab:<8} {max(x.registers for x in recs):>13} "
              f"{max(x.spill_stores + x.spill_loads for x in recs):>30}")


if __name__ == "__main__":
    main()
