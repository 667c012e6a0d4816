"""t128x64w4 (FlashAttention-2's 128 x 64 on 4 warps) with copies=unrolled: every valid combination of six knobs that
trade registers (stages, softmax form, rescale vote, epilogue, persistent grid, mask form) compiled for sm_90, fp16
D=128, causal and not; the worse spill of the two instantiations. No GPU.
  PYTHONPATH=. python3 results/2026-11-30_cpu_build_checks/check_bc64_spill_scan.py [CACHE_DIR]"""
import itertools
import sys
from experiments.build import BuildSpec, build, nvcc_version
from kernel_src.knobs import Knobs, KnobError
from profiler.ptxas import parse_ptxas
base = dict(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=64, q_in="smem", copies="unrolled")
opts = {"kv_stages": [1, 2], "softmax": ["separate", "fused"], "rescale_skip": ["off", "on"], "epilogue": ["direct", "smem"],
        "persistent": ["off", "on"], "causal_mask": ["runtime", "predicate"]}
cands = []
for vals in itertools.product(*opts.values()):
    d = dict(base, **dict(zip(opts, vals)))
    try:
        cands.append(Knobs.parse(d))
    except KnobError:
        pass
specs = [BuildSpec(knobs=k, arch="sm_90", dtypes=("float16",), dims=(128,)) for k in cands]
res = build(specs, sys.argv[1] if len(sys.argv) > 1 else "/tmp/bc64_scan_cache")
out = []
for s in specs:
    r = res[s.key()]
    recs = [(x.registers, x.spill_stores + x.spill_loads) for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
    out.append((max(sp for _, sp in recs), s.knobs.label()))
print(f"nvcc {nvcc_version()}; sm_90, fp16 D=128, both mask modes: the worse spill (stores + loads, bytes) of the two, every valid combination")
for sp, lab in sorted(out):
    print(sp, lab)
