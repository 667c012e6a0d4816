#!/usr/bin/env bash
# Policy 25's `run --budget 20` from the naive seed at B8 H16/4 N2048 D64 fp16 (rng seed 4, a fresh database), where
# the short tiles late gained 1.0176 on the launch-order kernel (../2026-12-06_h100_short_tiles_late). No recorded run
# of this agent at this shape exists to read its path from: predicted only that if the run reaches the launch-order
# three-warpgroup kernel with the idle tail (ws_launch_order_row_sums from the tile-major one), ws_short_tiles_late
# comes within the next asks and gains 1.005-1.02; a final of 1.05-1.12x cuDNN (the suite's best there: 1.120).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy25/device_call_gqa64.sh   (carry .whl; about 5 minutes)
LIMIT=570 bash results/2026-12-03_h200_agent_suite/race.sh gqa64 "--batch 8 --heads 16 --kv-heads 4 --seqlen 2048 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/gqa64_agent_4.txt | cut -c1-140
echo "total $SECONDS s"
