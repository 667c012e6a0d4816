#!/usr/bin/env bash
# ptxas figures (sm_90a, fp16, D=128) of the kernels with the ping-pong turns carried across items (`_ho`) and of the
# 24-register producer beside their
# bases: registers at entry and spill bytes of the non-causal and the causal instantiation.
# Usage: bash results/2026-12-06_cpu_pingpong_handoff/ptxas.sh > results/2026-12-06_cpu_pingpong_handoff/ptxas.txt
cd "$(dirname "$0")/../.."
KS=ws_op_lazy_qp_w_ot_pr_pk_dm
for NAME in $KS ${KS}_ho ${KS}_dy_sd ${KS}_dy_sd_ho ${KS}_dy_sd_ho_lr ws_op_lazy_w_oq_pk_dm ws_op_lazy_w_oq_pk_dm_ho \
            ws_op_lazy_qp_w_ot_pk_dm; do
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  for C in 1 2; do
    OUT=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=2 -DFA_CAUSALS=$C \
      -Ikernel_src -cubin -o /tmp/ptxas_ho.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1)
    echo "$NAME D128 $([ $C = 1 ] && echo noncausal || echo causal): $(echo "$OUT" | grep -o "[0-9]* bytes spill stores, [0-9]* bytes spill loads" | head -1); $(echo "$OUT" | grep -o "Used [0-9]* registers, used [0-9]* barriers" | head -1)"
  done
done
