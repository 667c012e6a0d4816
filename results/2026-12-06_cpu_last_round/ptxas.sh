#!/usr/bin/env bash
# ptxas figures (sm_90a, fp16) of the kernels with the last round's key split (`_lr`) beside their bases: registers and
# spill bytes of each instantiation (the causal one runs no split: its code is the base's).
# Usage: bash results/2026-12-06_cpu_last_round/ptxas.sh > results/2026-12-06_cpu_last_round/ptxas.txt
cd "$(dirname "$0")/../.."
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
while read -r NAME DIM; do
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  BIT=$([ "$DIM" = 64 ] && echo 1 || echo 2)
  for C in 1 2; do
    OUT=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=$BIT -DFA_CAUSALS=$C \
      -Ikernel_src -cubin -o /tmp/ptxas_lr.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1)
    echo "$NAME D$DIM $([ $C = 1 ] && echo noncausal || echo causal): $(echo "$OUT" | grep -o "[0-9]* bytes spill stores, [0-9]* bytes spill loads" | head -1); $(echo "$OUT" | grep -o "Used [0-9]* registers" | head -1)"
  done
done <<L
${B}_el_sl 64
${B}_el_sl_lr 64
${B}_el_sd_sl 64
${B}_el_sd_sl_lr 64
${B}_el_sd 64
${B}_el_sd_lr 64
ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd 128
ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd_lr 128
L
