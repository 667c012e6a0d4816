#!/usr/bin/env bash
# ptxas figures (sm_90a, fp16, D=64) of the kernels with the three warpgroups' cycle of turns (`_tc`) beside their
# bases: registers at entry and spill bytes of the non-causal and the causal instantiation.
# Usage: bash results/2026-12-06_cpu_turn_cycle/ptxas.sh > results/2026-12-06_cpu_turn_cycle/ptxas.txt
cd "$(dirname "$0")/../.."
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
for NAME in ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_ot_pm_dm_tc ${B}_el_tc0 ${B}_el_tc0_tc ws3_lazy_qp_hf_ot_pm_s3_dm \
            ws3_lazy_qp_hf_ot_pm_s3_dm_tc ws3_lazy_hf_oq_pm ws3_lazy_hf_oq_pm_tc; do
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  for C in 1 2; do
    OUT=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=1 -DFA_CAUSALS=$C \
      -Ikernel_src -cubin -o /tmp/ptxas_tc.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1)
    echo "$NAME D64 $([ $C = 1 ] && echo noncausal || echo causal): $(echo "$OUT" | grep -o "[0-9]* bytes spill stores, [0-9]* bytes spill loads" | head -1); $(echo "$OUT" | grep -o "Used [0-9]* registers, used [0-9]* barriers" | head -1)"
  done
done
