#!/usr/bin/env bash
# Written, not run (the session's device time was spent): the stream's shares at few items, then policy 30 from the
# naive seed at B2 H16 N8192 D128, in one call (about 8 minutes).
# 1. B1 H16 N32768 D128 fp16: the streamed kernel with the last 4 items in shares of 16 blocks (16 pieces an item, as
#    the key split's; FA_LAST_ROUND_SPLIT=4:4, which forces the split kernel to its own choice, 4 items in 16 pieces)
#    against the split and against `KS_wu`; A/A of it. The launch's model streams them in shares of 8 (32 pieces an
#    item, each item's last piece merging 31 partials): 1.0234 over `KS_wu` there, the split 1.0322
#    (../2026-12-06_h100_static_last_round).
# 2. Policy 30, `run --budget 20 --seqlen 8192` (rng seed 4, a fresh database).
# Predicted: shares of 16 level with the split (0.995-1.005) and 1.025-1.035 over `KS_wu`; the agent run: the lever
# asked only if the run's kernel reaches the static persistent schedule, which no recorded run at N >= 4096 did
# (first_choices.txt); a final of 1.03-1.08x cuDNN.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy30/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu
{ time FA_LAST_ROUND_SPLIT=4:4 timeout 120 python3 scripts/device_suite.py /tmp/w/m32k --plan margins \
    --shape "B1 H16 N32768 D128 fp16" --aa ${KS}_ls --move "${KS}_lr>${KS}_ls" --move "$KS>${KS}_ls"; echo "exit $?"; } \
  > $OUT/margins.txt 2>&1
grep -E "^A/A|^B1|exit" $OUT/margins.txt | grep -v warmup
(cd /tmp/w && tar czf $OUT/json.tgz m32k/margins.json) 2>/dev/null
if [ $SECONDS -lt 200 ]; then
  LIMIT=$((560 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d8k "--seqlen 8192" agent:4
  grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d8k_agent_4.txt | cut -c1-140
  grep -E "^SDPA|^summary" $OUT/d8k_agent_4.txt | cut -c1-200
fi
echo "total $SECONDS s"
