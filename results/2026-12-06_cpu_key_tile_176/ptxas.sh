#!/usr/bin/env bash
# ptxas figures (sm_90a, fp16, non-causal) of the suite's kernels with the wider key tiles and P through shared memory:
# spills and the shared memory each asks for. Usage: bash results/2026-12-06_cpu_key_tile_176/ptxas.sh > .../ptxas.txt
cd "$(dirname "$0")/../.."
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl
while read -r NAME DIM EXTRA; do
  ARGS=$(PYTHONPATH=$PWD:$PWD/scripts python3 - "$NAME" $EXTRA <<'P'
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
k = {**KERNELS[sys.argv[1]]}
for a in sys.argv[2:]:
    n, v = a.split("=")
    k[n] = int(v) if v.isdigit() else v
kn = Knobs(**k)
print(" ".join(f"-D{a}={v}" for a, v in kn.defines().items()), "SMEM64", kn.smem_bytes(64), "SMEM128", kn.smem_bytes(128))
P
)
  DEFS=${ARGS%% SMEM64*}; SMEM=${ARGS#*SMEM64 }
  BIT=$([ "$DIM" = 64 ] && echo 1 || echo 2)
  SPILL=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=$BIT -DFA_CAUSALS=1 \
    -Ikernel_src -cubin -o /tmp/ptxas_kt.cubin kernel_src/fa_fwd.cu -Xptxas -v 2>&1 | grep -o "[0-9]* bytes spill stores" | head -1)
  echo "$NAME D$DIM ${EXTRA:-(as in the suite)}: $SPILL; smem D64/D128 ${SMEM/ SMEM128 /\/}"
done <<L
$B 64
$B 64 pipeline=off p_pack=after
$B 64 bc=176
$B 64 bc=176 pipeline=off p_pack=after
$B 64 p_in=smem
$B 64 bc=176 p_in=smem kv_stages=2
$B 64 bc=192 pipeline=off p_pack=after
$B 64 bc=192 p_in=smem kv_stages=2
ws3_lazy_qp_ot_pm_dm 64 bc=176
ws3_lazy_qp_ot_pm_dm 64 bc=176 pipeline=off p_pack=after
ws_op_lazy_w_oq_pk_dm 128
ws_op_lazy_w_oq_pk_dm 128 bc=176
ws_op_lazy_w_oq_pk_dm 128 bc=176 p_pack=mid_wait
ws_op_lazy_w_oq_pk_dm 128 bc=192 p_pack=after
ws_op_lazy_w_oq_pk_dm 128 bc=192 p_pack=mid_wait
L
