#!/usr/bin/env bash
# Policy 27 at B8 H16/4 N2048 D64 fp16: the lever's kernel paired, then `run --budget 20` from the naive seed.
# 1. The tier of `ws3_lazy_qp_ot_pm_dm_s3` (the ladder's top with a third K/V stage: what ws_q_by_tma_lazy_p_mid_wait
#    builds from the ladder's base with hoisted descriptors), against the bound (the lazy rescale changes the bits).
# 2. Paired at the shape: the ladder's base `ws3_ot_dm` -> it, the two-stage top -> it, cuDNN -> it.
# 3. The agent (rng seed 4, a fresh database). Predicted (first_choices.txt): asks 1-12 as policy 26's run
#    (../2026-12-06_h100_policy26), the lever at ask 13 kept at 1.03-1.07, a final of 1.06-1.12x cuDNN in its own row.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy27/device_call.sh   (carry .whl; about 7 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
S=scripts/device_suite.py; K=ws3_lazy_qp_ot_pm_dm_s3
{ time timeout 120 python3 $S /tmp/p27/tier --plan tier --only $K; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/p27/m --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $K \
    --move "ws3_ot_dm>$K" --move "ws3_lazy_qp_ot_pm_dm>$K" --move "cudnn>$K"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B8|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/p27 tier/tier.json m/margins.json 2>/dev/null
LIMIT=$((560 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh gqa64 \
    "--batch 8 --heads 16 --kv-heads 4 --seqlen 2048 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/gqa64_agent_4.txt | cut -c1-140
echo "total $SECONDS s"
