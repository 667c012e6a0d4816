#!/usr/bin/env bash
# The suite's N512 D64 row again with the decoded slot among the candidates (plan `best`: every candidate checked and
# screened against cuDNN, the best confirmed in a fresh process against cuDNN and flash; the candidates of
# results/2026-12-06_cpu_suite/device_call.sh, without the dependent launch, plus `..._el_sd`), then policy 28's
# `run --budget 20` at N512 D64 again with rng seed 5 (a fresh database).
# Predicted: the row's best `..._el_sd` at 0.995-1.01x cuDNN (three paired calls read 0.9997, 1.0000, 1.0049); the run
# within 0.01 of seed 4's final (0.997x) and the decoded slot kept.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy28/device_call_n512.sh   (carry .whl; about 6 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
R=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
C="ws3_lazy_qp_ot_pm ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_hf_ot_ts_s3 ws3_lazy_qp_hf_ot_ts_s3_dm ws3_lazy_hf_oq_pm
   ws3_lazy_qp_hf_ot_pm_ts_s3 ws3_lazy_qp_hf_ot_pm_ts_s3_dm
   ws_op_lazy_w_oq_pk ws_op_lazy_w_oq_pk_dm ws_op_lazy_qp_w_ot_pr_pk ws_op_lazy_qp_w_ot_pr_pk_dm ws_op_bc176_lazy_hf_w_oq_pm
   ws_op_lazy_qp_hf_w_ot_pm ws_op_lazy_qp_hf_w_ot_pm_dy ws_op_lazy_qp_hf_w_ot_pr_pk_dy
   $R ${R}_el ${R}_ta ${R}_el_sd"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
{ time timeout 150 python3 scripts/device_suite.py /tmp/s512/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B16 H16 N512 D64 fp16"; echo "exit $?"; } > $OUT/best_n512.log 2>&1
gzip -c /tmp/s512/best/best.json > $OUT/best_n512.json.gz
tail -5 $OUT/best_n512.log
LIMIT=$((560 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh n512 "--batch 16 --seqlen 512 --head-dim 64" agent:5
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/n512_agent_5.txt | cut -c1-140 | tail -8
grep -E "^SDPA|^summary" $OUT/n512_agent_5.txt | cut -c1-200
echo "total $SECONDS s"
