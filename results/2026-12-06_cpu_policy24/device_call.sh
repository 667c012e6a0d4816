#!/usr/bin/env bash
# The device call of policy 24 (written on the CPU): `run --budget 20` from the naive seed on a fresh database, rng seed
# 4, one after the other:
# 1. B16 H16 N512 D64 fp16: predicted (first_choices.txt) asks 1-16 as policy 23's run, then the hoisted descriptors
#    at ask 17 (not the idle tail again), the suspended waits and evict-last K/V after them; the final policy 23's
#    kernel, 0.98-0.99x cuDNN in the run's own row; about 200 s;
# 2. causal B8 H32/8 N1024 D128 bf16: asks 1-12 as policy 22's run (../2026-12-05_h100_agent_runs), the suspended
#    waits first at ask 13 (0.996-1.01); a final of 1.00-1.03x cuDNN (policy 22: 1.026); about 240 s.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy24/device_call.sh   (carry .whl)
R=results/2026-12-03_h200_agent_suite/race.sh
LIMIT=260 bash $R n512 "--batch 16 --seqlen 512 --head-dim 64" agent:4
LIMIT=290 bash $R gqa "--batch 8 --heads 32 --kv-heads 8 --seqlen 1024 --causal --dtype bfloat16" agent:4
for f in $OUT/*_agent_4.txt; do grep -E "│ (lever|compound|comparator|rescreen) " $f | cut -c1-140; done
echo "total $SECONDS s"
