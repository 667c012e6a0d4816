#!/usr/bin/env bash
# SASS of the warp-specialised kernels with warp_uniform off and on (sm_90a, fp16, non-causal; D=128 or D=64 as the
# kernel is the suite's), counted in the consumers' code (from the consumers' setmaxnreg to the producer's) and in the
# rest (the producer's code and the waits' out-of-line retries): convergence barriers (BSSY), WARPSYNCs, YIELDs,
# per-thread reads of the shared window's base (S2R SR_CgaCtaId), mbarrier waits and those on a per-thread address
# (TRYWAIT-R), uniform-datapath instructions (U*), divergence checks (BRA.DIV); ptxas's registers and spills. cuobjdump and nvdisasm from the
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels (their bin directory on PATH, or CUDA_BIN).
# Usage: bash results/2026-12-06_cpu_warp_uniform/sass_counts.sh > results/2026-12-06_cpu_warp_uniform/sass_counts.txt
cd "$(dirname "$0")/../.."
export PATH="$PATH:${CUDA_BIN:-$(python3 -c "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13/bin'))")}"
count() {  # count <cubin>
  cuobjdump -sass "$1" | python3 -c '
import re, sys
ins = [(int(m.group(1), 16), m.group(2).strip()) for m in (re.match(r"\s+/\*([0-9a-f]+)\*/\s+(.*?);", l) for l in sys.stdin) if m]
lo = next(a for a, t in ins if "TRY_ALLOC" in t)
hi = next(a for a, t in ins if "DEALLOC" in t)
pats = [("BSSY", "BSSY"), ("WARPSYNC", "WARPSYNC"), ("YIELD", "YIELD"), ("S2R-base", "S2R .*SR_CgaCtaId"),
        ("TRYWAIT", "TRYWAIT"), ("TRYWAIT-R", r"TRYWAIT.*\[R"), ("U", r"^(@!?U?P\w+ )?U[A-Z]"), ("BRA.DIV", "BRA.DIV")]
for part, sel in (("consumers", [x for x in ins if lo <= x[0] < hi]), ("rest", [x for x in ins if not lo <= x[0] < hi])):
    print(f"  {part:9s} {len(sel):5d} instructions; " + ", ".join(f"{k} {sum(bool(re.search(p, t)) for _, t in sel)}" for k, p in pats))
'
}
for NAME_DIM in ws_op_lazy_qp_w_ot_pr_pk_dm:2 ws_op_lazy_w_oq_pk_dm:2 ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl:1 \
                ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st:1 ws3_lazy_qp_hf_ot_pm_ts_s3_dm:1 ws3_lazy_qp_ot_pm_dm:1; do
  NAME=${NAME_DIM%%:*}; DIMS=${NAME_DIM##*:}
  for SUF in "" _wu; do
    DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME$SUF")
    V=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=$DIMS -DFA_CAUSALS=1 \
      -Ikernel_src -cubin -o /tmp/sass_wu.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1 | grep -E "Used|spill" | tail -2 | tr -s ' ' | tr '\n' ';')
    echo "$NAME$SUF (D=$((DIMS * 64))):$V"
    count /tmp/sass_wu.cubin
  done
done
