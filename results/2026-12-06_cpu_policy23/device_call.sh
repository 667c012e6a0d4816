#!/usr/bin/env bash
# The device call of policy 23 (written on the CPU): `run --budget 20` from the naive seed on a fresh database, rng seed
# 4, as policy 22's H100 runs (../2026-12-05_h100_agent_runs), one after the other:
# 1. B16 H16 N512 D64 fp16: predicted (first_choices.txt) asks 1-14 as policy 22's run, ws_launch_order_row_sums first
#    at ask 15 and kept at 1.03-1.06, a final of 0.96-0.98x cuDNN in the run's own row (policy 22: 0.934); about 200 s;
# 2. B2 H16 N8192 D64 fp16: asks 1-15 as policy 22's run, ws_suspended_waits first at ask 16 (0.996-1.01), a final of
#    about 1.10x cuDNN (policy 22: 1.098); about 210 s.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy23/device_call.sh   (carry .whl)
R=results/2026-12-03_h200_agent_suite/race.sh
LIMIT=290 bash $R n512 "--batch 16 --seqlen 512 --head-dim 64" agent:4
LIMIT=280 bash $R d64 "--seqlen 8192 --head-dim 64" agent:4
for f in $OUT/*_agent_4.txt; do grep -E "│ (lever|compound|comparator|rescreen) " $f | cut -c1-140; done
echo "total $SECONDS s"
