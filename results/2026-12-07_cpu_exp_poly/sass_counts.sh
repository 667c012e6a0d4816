#!/usr/bin/env bash
# The cubic's share of P's exponentials (exp_poly=quarter `_eq`, half `_eh`) on the suite's D=64 bests, in SASS: ptxas's
# registers and spills, and the consumers' instructions by opcode (the section between setmaxnreg's raise and its
# release, as ../2026-12-06_cpu_warp_uniform/sass_counts.sh). nvcc 13.0, sm_90a, fp16, D=64, non-causal.
# Usage: bash results/2026-12-07_cpu_exp_poly/sass_counts.sh > results/2026-12-07_cpu_exp_poly/sass_counts.txt
cd "$(dirname "$0")/../.."
export PATH="$PATH:${CUDA_BIN:-$(python3 -c "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13/bin'))")}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
for NAME in $B ${B}_eq ${B}_eh $G ${G}_eq; do
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  V=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=1 -DFA_CAUSALS=1 \
    -Ikernel_src -cubin -o "$T/k.cubin" kernel_src/fa_fwd.cu -Xptxas -v 2>&1 | grep -E "Used|spill" | tail -2 | tr -s ' ' | tr '\n' ';')
  echo "$NAME:$V"
  cuobjdump -sass "$T/k.cubin" | python3 -c '
import re, sys
from collections import Counter
ins = [(int(m.group(1), 16), m.group(2).strip()) for m in (re.match(r"\s+/\*([0-9a-f]+)\*/\s+(.*?);", l) for l in sys.stdin) if m]
lo = next(a for a, t in ins if "TRY_ALLOC" in t)
hi = next(a for a, t in ins if "DEALLOC" in t)
op = lambda t: re.sub(r"^@!?U?P\w+ ", "", t).split()[0].split(".")[0]
c = Counter(op(t) for a, t in ins if lo <= a < hi)
print(f"  consumers {sum(c.values()):5d} instructions; " + ", ".join(f"{k} {c[k]}" for k in
      ("MUFU", "FFMA", "FADD", "FMUL", "FMNMX", "IMAD", "SHF", "LEA", "F2FP", "HGMMA")))'
done
