import sys
from experiments.build import BuildSpec, build
from kernel_src.knobs import Knobs
from profiler.ptxas import parse_ptxas
S5U = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
            q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on", copies="unrolled")
ks = {"B64": S5U.replace(bc=64, persistent="on"), "B64_ks1": S5U.replace(bc=64, persistent="on", kv_stages=1),
      "B64np": S5U.replace(bc=64), "S5U": S5U}
specs = {(n, a): BuildSpec(knobs=k, arch=a, dtypes=("float16", "bfloat16"), dims=(64, 128)) for n, k in ks.items() for a in ("sm_80", "sm_90", "sm_120")}
res = build(list(specs.values()), sys.argv[1])
for (n, a), s in specs.items():
    r = res[s.key()]
    recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
    print(n, a, r.ok, "max regs", max(x.registers for x in recs), "worst spill", max(x.spill_stores + x.spill_loads for x in recs))
