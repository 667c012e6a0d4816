#!/usr/bin/env bash
# Policy 26's `run --budget 20` from the naive seed at B8 H16/4 N2048 D64 fp16 (rng seed 4, a fresh database).
# Predicted (first_choices.txt): asks 1-12 as policy 25's run (../2026-12-06_h100_policy25), ws_q_by_tma_three_stages at
# ask 13, kept at 1.02-1.08; then the moves of the persistent kernel (hoisted descriptors, the launch-order compound with
# the row sums); a final of 1.05-1.12x cuDNN in the run's own row (policy 25: 1.030).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy26/device_call.sh   (carry .whl; about 5 minutes)
LIMIT=560 bash results/2026-12-03_h200_agent_suite/race.sh gqa64 "--batch 8 --heads 16 --kv-heads 4 --seqlen 2048 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/gqa64_agent_4.txt | cut -c1-140
echo "total $SECONDS s"
