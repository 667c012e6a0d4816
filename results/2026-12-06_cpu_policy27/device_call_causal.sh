#!/usr/bin/env bash
# Policy 27's `run --budget 20` from the naive seed at the suite's causal D=64 shape, B2 H16 N4096 D64 bf16 causal
# (rng seed 4, a fresh database): no agent run was recorded at a causal D=64 shape before. The suite's best there,
# `ws3_lazy_hf_oq_pm`, read 1.077x cuDNN (../2026-12-06_h100_suite). Policy 27's move is non-causal only.
# Predicted: the three-warpgroup mainloop kept by ask 10-12, the heaviest-first order kept under the mask; a final of
# 1.00-1.07x cuDNN in its own row.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy27/device_call_causal.sh   (carry .whl; about 5-9 minutes)
LIMIT=590 bash results/2026-12-03_h200_agent_suite/race.sh causal64 "--seqlen 4096 --head-dim 64 --dtype bfloat16 --causal" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/causal64_agent_4.txt | cut -c1-140
echo "total $SECONDS s"
