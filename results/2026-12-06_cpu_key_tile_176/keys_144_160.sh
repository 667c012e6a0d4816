#!/usr/bin/env bash
# The D=64 suite's best (three consumer warpgroups, the QK^T overlap, P from registers) at 144 and 160 keys, which no
# knob value offers: a copy of kernel_src with m64n144k16 and m64n160k16 added beside m64n176k16 and the two values let
# through the static_asserts, compiled by ptxas (sm_90a, fp16, non-causal). Usage: bash .../keys_144_160.sh > keys_144_160.txt
cd "$(dirname "$0")/../.."
T=$(mktemp -d); cp -r kernel_src "$T/"
python3 - "$T/kernel_src" <<'P'
import sys
root = sys.argv[1]
def fn(n):
    r = n // 2
    regs = ", ".join(f"%{i}" for i in range(r)); outs = ", ".join(f'"+f"(d[{i}])' for i in range(r))
    body = [f'''    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r+2}, 0;\\n"
        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{regs}}}, %{r}, %{r+1}, p, %{r+3}, %{r+4}, %{r+5}, %{r+6};\\n}}\\n"
        : {outs} : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));''' for ty in ("f16", "bf16")]
    return (f"template <int TB, typename T>\n__device__ __forceinline__ void wgmma_ss_n{n}(float* d, uint64_t desc_a, "
            f"uint64_t desc_b, int scale_d) {{\n  if constexpr (std::is_same<T, __half>::value) {{\n{body[0]}\n  }} else {{\n"
            f"{body[1]}\n  }}\n}}\n")
p = f"{root}/mainloop_sm90_ws.cuh"; s = open(p).read()
s = s.replace("\n// Registers a thread after setmaxnreg.", "\n" + fn(144) + fn(160) + "\n// Registers a thread after setmaxnreg.", 1)
s = s.replace("    else if constexpr (K::BC == 176) wgmma_ss_n176<0, T>(&s[0][0], da, db, kk > 0);",
              "    else if constexpr (K::BC == 176) wgmma_ss_n176<0, T>(&s[0][0], da, db, kk > 0);\n"
              "    else if constexpr (K::BC == 144) wgmma_ss_n144<0, T>(&s[0][0], da, db, kk > 0);\n"
              "    else if constexpr (K::BC == 160) wgmma_ss_n160<0, T>(&s[0][0], da, db, kk > 0);")
open(p, "w").write(s)
for f, a, b in (("knobs_gen.cuh", "BC == 176 || BC == 192)", "BC == 176 || BC == 192 || BC == 144 || BC == 160)"),
                ("config.cuh", "(BC == 64 || BC == 128 || BC == 176 || BC == 192)",
                 "(BC == 64 || BC == 128 || BC == 144 || BC == 160 || BC == 176 || BC == 192)")):
    s = open(f"{root}/{f}").read(); assert a in s; open(f"{root}/{f}", "w").write(s.replace(a, b))
P
for EXTRA in "" "p_pack=mid_wait" "row_sum=fadd"; do
  BASE=$(PYTHONPATH=$PWD:$PWD/scripts python3 - $EXTRA <<'P'
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
k = {**KERNELS["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl"]}
for a in sys.argv[1:]:
    n, v = a.split("="); k[n] = v
print(" ".join(f"-D{a}={v}" for a, v in Knobs(**k).defines().items()))
P
)
  for BC in 144 160; do
    SPILL=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a ${BASE/-DFA_BC=128/-DFA_BC=$BC} -DFA_DTYPES=1 -DFA_DIMS=1 \
      -DFA_CAUSALS=1 -I"$T/kernel_src" -cubin -o "$T/x.cubin" "$T/kernel_src/fa_fwd.cu" -Xptxas -v 2>&1 | grep -o "[0-9]* bytes spill stores")
    echo "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl D64 bc=$BC ${EXTRA:-(as in the suite)}: $SPILL"
  done
done
rm -rf "$T"
