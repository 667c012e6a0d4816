#!/usr/bin/env bash
# The suite's rows at which the last round is streamed or split (plan best: screen against cuDNN, the best confirmed in
# a fresh process against cuDNN and flash), then policy 29's agent run (../2026-12-06_cpu_policy29/device_call.sh), in
# one call (about 7 minutes).
# Candidates: the persistent static D=128 kernel `KS_wu` and it with the last round split (`_lr`) or streamed (`_ls`);
# the D=64 best `B` (dynamic) and its static `_wu` schedule split or streamed.
# Shapes: B2 H16 N8192 D128, B1 H16 N32768 D128, B4 H16 N4096 D128 bf16, B2 H16 N8192 D64.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_static_key_split/device_call_suite.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/suite; mkdir -p $W
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl
C="$KS ${KS}_ls ${KS}_lr $B ${B}_st_wu_ls ${B}_st_wu_lr"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
SHAPES=(--shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16" --shape "B4 H16 N4096 D128 bf16"
        --shape "B2 H16 N8192 D64 fp16")
{ time timeout 240 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY "${SHAPES[@]}"
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c $W/best/best.json > $OUT/best.json.gz
tail -10 $OUT/best.log
if [ $SECONDS -lt 300 ]; then
  LIMIT=$((500 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d128 "" agent:4
  grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d128_agent_4.txt | cut -c1-140
  grep -E "^SDPA|^summary" $OUT/d128_agent_4.txt | cut -c1-200
fi
echo "total $SECONDS s"
