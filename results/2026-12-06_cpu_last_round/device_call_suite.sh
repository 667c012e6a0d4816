#!/usr/bin/env bash
# The suite against SDPA cuDNN and flash with today's candidates (../2026-12-06_cpu_suite/device_call.sh's list without
# the items tile by tile, plus the decoded slot `_el_sd`, short tiles late `_el_sl`, and the last round's key split
# `_lr` on `_el_sl`, `_el_sd_sl`, `_el_sd` and the persistent D=128 kernel with the dynamic schedule).
#   PART=a (about 5 minutes): the four shapes nearest cuDNN (N512 D64, N2048 D128, causal N1024 GQA, N2048 D64 GQA);
#   PART=b (about 6 minutes): the other seven.
# Usage: PART=a|b SOURCE=<commit> bash results/2026-12-06_cpu_last_round/device_call_suite.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu_$PART.txt
W=/tmp/suite; mkdir -p $W
R=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
KP=ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd
C="ws3_lazy_qp_ot_pm ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_hf_ot_ts_s3 ws3_lazy_qp_hf_ot_ts_s3_dm ws3_lazy_hf_oq_pm
   ws3_lazy_qp_hf_ot_pm_ts_s3 ws3_lazy_qp_hf_ot_pm_ts_s3_dm
   ws_op_lazy_w_oq_pk ws_op_lazy_w_oq_pk_dm ws_op_lazy_qp_w_ot_pr_pk ws_op_lazy_qp_w_ot_pr_pk_dm ws_op_bc176_lazy_hf_w_oq_pm
   ws_op_lazy_qp_hf_w_ot_pm ws_op_lazy_qp_hf_w_ot_pm_dy ws_op_lazy_qp_hf_w_ot_pr_pk_dy
   $R ${R}_el ${R}_el_sd ${R}_el_sl ${R}_el_sl_lr ${R}_el_sd_sl ${R}_el_sd_sl_lr ${R}_el_sd_lr $KP ${KP}_lr"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
if [ "$PART" = a ]; then
  SHAPES=(--shape "B16 H16 N512 D64 fp16" --shape "B2 H16 N2048 D128 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8"
          --shape "B8 H16 N2048 D64 fp16 Hkv4")
else
  SHAPES=(--shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16" --shape "B2 H16 N8192 D128 fp16 causal"
          --shape "B2 H16 N8192 D64 fp16" --shape "B4 H16 N4096 D128 bf16" --shape "B2 H16 N4096 D64 bf16 causal"
          --shape "B1 H32 N16384 D128 bf16 causal Hkv4")
fi
{ time timeout 540 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY "${SHAPES[@]}"
  echo "exit $?"; } > $OUT/best_$PART.log 2>&1
gzip -c $W/best/best.json > $OUT/best_$PART.json.gz
tail -16 $OUT/best_$PART.log
echo "total $SECONDS s"
