#!/usr/bin/env bash
# The persistent static kernels with warp_uniform=on (`KS_wu` at D=128, `B_st_wu` at D=64) and with the last round
# split (`_lr`) or streamed (`_ls`), sm_90a fp16, non-causal and causal: ptxas's registers and spills, the SASS counts of
# ../2026-12-06_cpu_warp_uniform/sass_counts.sh (its count function: the consumers' code and the rest). The causal
# build runs no split, so its SASS should be its base's. Needs the nvidia-cuda-cuobjdump wheel (or CUDA_BIN).
# Usage: bash results/2026-12-06_cpu_static_key_split/sass_counts.sh > results/2026-12-06_cpu_static_key_split/sass_counts.txt
cd "$(dirname "$0")/../.."
eval "$(sed -n '/^export PATH/,/^}/p' results/2026-12-06_cpu_warp_uniform/sass_counts.sh)"
for NAME_DIM in ws_op_lazy_qp_w_ot_pr_pk_dm_wu:2 ws_op_lazy_qp_w_ot_pr_pk_dm_wu_lr:2 ws_op_lazy_qp_w_ot_pr_pk_dm_wu_ls:2 \
                ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu:1 ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls:1 \
                ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_lr:1; do
  NAME=${NAME_DIM%%:*}; DIMS=${NAME_DIM##*:}
  for C in 1:noncausal 2:causal; do
    DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
    V=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=$DIMS -DFA_CAUSALS=${C%%:*} \
      -Ikernel_src -cubin -o /tmp/sass_lr.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1 | grep -E "Used|spill" | tail -2 | tr -s ' ' | tr '\n' ';')
    echo "$NAME D$((DIMS * 64)) ${C##*:}:$V"
    count /tmp/sass_lr.cubin
    cuobjdump -sass /tmp/sass_lr.cubin | grep -E '^\s+/\*[0-9a-f]+\*/' | sed 's@/\*[0-9a-f]*\*/@@g' | md5sum | sed 's/^/  sass md5 /'
  done
done
