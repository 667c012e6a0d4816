#!/usr/bin/env bash
# Policy 29 (lever ws_warp_uniform) from the naive seed at B2 H16 N2048 D128 fp16 (rng seed 4, a fresh database).
# The CPU reading (first_choices.txt): policy 22's run there (results/2026-12-05_h100_agent_runs, 1.021x cuDNN) asks the
# lever first at ask 12, after the wide PV at 11.
# Predicted: asks 1-11 as policy 22's run, ws_warp_uniform at 12 kept at 1.02-1.045 (1.0387 on the suite's persistent
# kernel at this shape: results/2026-12-06_h100_warp_uniform); a final of 1.04-1.07x cuDNN in its own row.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy29/device_call.sh   (carry .whl; at most 4 minutes)
LIMIT=230 bash results/2026-12-03_h200_agent_suite/race.sh d128 "" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d128_agent_4.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/d128_agent_4.txt | cut -c1-200
echo "total $SECONDS s"
