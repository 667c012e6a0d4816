#!/usr/bin/env bash
# The last round's key split on the persistent static schedule (`KS_wu_lr`: last_round=key_split on the suite's
# persistent static D=128 kernel with warp_uniform=on), then policy 29's agent run (../2026-12-06_cpu_policy29), in one
# call (about 9.5 minutes; each later step guarded by the time left).
# 1. The tier, `KS_wu_lr` against the bound alone: as the launch picks (B2 H4 N2111: 4 of 136 items in 4 pieces), then
#    every item in halves and in eighths (FA_LAST_ROUND_SPLIT=-1:1, -1:3).
# 2. B1 H16 N32768 D128 fp16 (4,096 items on 132 CTAs: the last 4 in 16 pieces): A/A of `KS_wu_lr`; `KS_wu` ->
#    `KS_wu_lr`; cuDNN -> each.
# 3. Policy 29 from the naive seed at B2 H16 N2048 D128 (rng seed 4, a fresh database; at most 230 s).
# Predicted: `KS_wu` -> `KS_wu_lr` 1.015-1.025 at N32768 (the model: 32 -> 31.1 rounds, 2.8%; the dynamic kernel's
# split gained 1.0206-1.0212 there), so cuDNN -> `KS_wu_lr` 1.105-1.12 (`KS_wu`: 1.091 in the suite's call); the agent
# run as ../2026-12-06_cpu_policy29/device_call.sh says (ws_warp_uniform kept at ask 12, final 1.04-1.07x cuDNN).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_static_key_split/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
KS=ws_op_lazy_qp_w_ot_pr_pk_dm; L=${KS}_wu_lr
{ time timeout 170 python3 $S /tmp/w/tier --plan tier --alone --only $L; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
for f in 1 3; do
  if [ $SECONDS -lt $((150 + 40 * f)) ]; then
    { echo "FA_LAST_ROUND_SPLIT=-1:$f"; time FA_LAST_ROUND_SPLIT=-1:$f timeout 45 python3 $S /tmp/w/tf$f --plan tier --alone \
        --only $L; echo "exit $?"; } >> $OUT/tier.txt 2>&1
    grep -E "^tier|exit" $OUT/tier.txt | tail -2; save
  fi
done
if [ $SECONDS -lt 240 ]; then
  { time timeout 120 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" --aa $L \
      --move "${KS}_wu>$L" --move "cudnn>${KS}_wu" --move "cudnn>$L"; echo "exit $?"; } > $OUT/margins.txt 2>&1
  grep -E "^A/A|^B1|exit" $OUT/margins.txt | grep -v warmup; save
fi
if [ $SECONDS -lt 345 ]; then
  LIMIT=230 bash results/2026-12-03_h200_agent_suite/race.sh d128 "" agent:4
  grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d128_agent_4.txt | cut -c1-140
  grep -E "^SDPA|^summary" $OUT/d128_agent_4.txt | cut -c1-200
fi
echo "total $SECONDS s"
