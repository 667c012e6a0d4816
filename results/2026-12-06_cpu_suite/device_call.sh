#!/usr/bin/env bash
# The suite against SDPA cuDNN with this session's kernels among the candidates (written on the CPU, not yet run): the
# candidates of ../2026-12-05_cpu_suite22 (its C list), the N512 best with the row sums on the tensor cores and
# evict-last K/V (`_el`), and it with the items tile by tile (`_ta`). DL=1 adds the dependent-launch builds
# (`_dl`), which gain against our own previous call in back-to-back timing and which cuDNN does not use
# (../2026-12-06_h100_launch_gaps): report those apart.
#   PART=a (about 6 minutes): the four shapes nearest cuDNN (N512 D64, N2048 D128, causal N1024 GQA, N2048 D64 GQA);
#   PART=b (about 6 minutes): the other seven.
# Predicted (H100): 11 of 11 >= 1.0x without the dependent launch only if `_ta` gains >= 2.5% at N512 D64.
# Usage: PART=a|b [DL=1] SOURCE=<commit> bash results/2026-12-06_cpu_suite/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/suite; mkdir -p $W
R=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
C="ws3_lazy_qp_ot_pm ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_hf_ot_ts_s3 ws3_lazy_qp_hf_ot_ts_s3_dm ws3_lazy_hf_oq_pm
   ws3_lazy_qp_hf_ot_pm_ts_s3 ws3_lazy_qp_hf_ot_pm_ts_s3_dm
   ws_op_lazy_w_oq_pk ws_op_lazy_w_oq_pk_dm ws_op_lazy_qp_w_ot_pr_pk ws_op_lazy_qp_w_ot_pr_pk_dm ws_op_bc176_lazy_hf_w_oq_pm
   ws_op_lazy_qp_hf_w_ot_pm ws_op_lazy_qp_hf_w_ot_pm_dy ws_op_lazy_qp_hf_w_ot_pr_pk_dy
   $R ${R}_el ${R}_ta"
[ "$DL" = 1 ] && C="$C ${R}_dl ${R}_el_dl ${R}_el_dl_ta ws3_lazy_qp_ot_pm_dm_dl ws_op_lazy_qp_w_ot_pr_pk_dm_dl"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
if [ "$PART" = a ]; then
  SHAPES=(--shape "B16 H16 N512 D64 fp16" --shape "B2 H16 N2048 D128 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8"
          --shape "B8 H16 N2048 D64 fp16 Hkv4")
else
  SHAPES=(--shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16" --shape "B2 H16 N8192 D128 fp16 causal"
          --shape "B2 H16 N8192 D64 fp16" --shape "B4 H16 N4096 D128 bf16" --shape "B2 H16 N4096 D64 bf16 causal"
          --shape "B1 H32 N16384 D128 bf16 causal Hkv4")
fi
{ time timeout 480 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY "${SHAPES[@]}"
  echo "exit $?"; } > $OUT/best_$PART.log 2>&1
gzip -c $W/best/best.json > $OUT/best_$PART.json.gz
tail -16 $OUT/best_$PART.log
echo "total $SECONDS s"
