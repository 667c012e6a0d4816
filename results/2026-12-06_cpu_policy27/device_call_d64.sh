#!/usr/bin/env bash
# Policy 27's `run --budget 20` from the naive seed at B2 H16 N8192 D64 fp16 (rng seed 4), then again at B8 H16/4 N2048
# D64 fp16 with rng seed 5 (the first call's run there was seed 4), each on a fresh database.
# Predicted (first_choices_d64.txt): at N8192 asks 1-12 as policy 23's run there (../2026-12-06_h100_policy23), the
# lever at ask 13 at 0.99-1.03 (Q by TMA alone lost 0.885 there, the persistent grid 0.909; the suite's persistent
# kernel with all three parts reads 1.109-1.121x cuDNN against the run's final 1.099), a final of 1.10-1.12x cuDNN;
# at N2048 GQA the lever kept again at ask 13, a final within 0.015 of the first call's 1.115x.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy27/device_call_d64.sh   (carry .whl; about 8 minutes)
LIMIT=330 bash results/2026-12-03_h200_agent_suite/race.sh d64 "--seqlen 8192 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d64_agent_4.txt | cut -c1-140
mv $OUT/gpu.txt $OUT/gpu_d64.txt; mv $OUT/source.txt $OUT/source_d64.txt
LIMIT=$((575 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh gqa64 \
    "--batch 8 --heads 16 --kv-heads 4 --seqlen 2048 --head-dim 64" agent:5
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/gqa64_agent_5.txt | cut -c1-140
echo "total $SECONDS s"
