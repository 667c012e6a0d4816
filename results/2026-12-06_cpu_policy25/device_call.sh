#!/usr/bin/env bash
# One device call (written on the CPU): 1. the suite's three non-causal D=64 shapes against SDPA cuDNN with the short
# tiles late (`_el_sl`) among the candidates of ../2026-12-06_cpu_suite (without the dependent launch: like for like
# with cuDNN's launches); 2. policy 25's `run --budget 20` from the naive seed at B16 H16 N512 D64 fp16, rng seed 4, on a
# fresh database.
# Predicted: N2048 D64 GQA and N8192 D64 take `_el_sl`, 1.12-1.14x cuDNN (the suite read 1.106 and 1.109); N512 stays
# 0.975-0.99. The agent (first_choices.txt): asks 1-16 as policy 23's run, the short tiles late at ask 17, level
# (0.998-1.005: NULL), then the hoisted descriptors, the suspended waits, evict-last K/V; a final of 0.98-0.99x cuDNN.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy25/device_call.sh   (carry .whl; about 8 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/suite; mkdir -p $W
R=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
C="ws3_lazy_qp_ot_pm ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_hf_ot_ts_s3 ws3_lazy_qp_hf_ot_ts_s3_dm
   ws3_lazy_qp_hf_ot_pm_ts_s3 ws3_lazy_qp_hf_ot_pm_ts_s3_dm $R ${R}_el ${R}_el_sl"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
{ time timeout 250 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B16 H16 N512 D64 fp16" --shape "B8 H16 N2048 D64 fp16 Hkv4" --shape "B2 H16 N8192 D64 fp16"
  echo "exit $?"; } > $OUT/best_d64.log 2>&1
gzip -c $W/best/best.json > $OUT/best_d64.json.gz
tail -8 $OUT/best_d64.log
echo "suite $SECONDS s"
LIMIT=$((585 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh n512 "--batch 16 --seqlen 512 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/n512_agent_4.txt | cut -c1-140
echo "total $SECONDS s"
