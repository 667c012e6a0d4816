#!/usr/bin/env bash
# The two agent runs that followed device_call.sh on the same warm H200 (2026-12-07), one device call each, the working
# tree at f6c62050c71d98f4251323fda4aa15902318774e (clean; SOURCE was not set, so source.txt came back empty and is not
# kept). Policy 30 from the naive seed on a fresh database, rng seed 4:
#   call 2: B2 H16 N2048 D128 fp16  -> d2k_agent_4.txt, d2k_agent_4_db.tgz, gpu_call2.txt
#   call 3: B2 H16 N8192 D64 fp16   -> d64_agent_4.txt, d64_agent_4_db.tgz, gpu_call3.txt
# Usage: bash results/2026-12-07_h200_policy30/agent_runs.sh d2k|d64   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
case $1 in
  d2k) LIMIT=400 bash results/2026-12-03_h200_agent_suite/race.sh d2k "--seqlen 2048" agent:4 ;;
  d64) LIMIT=290 bash results/2026-12-03_h200_agent_suite/race.sh d64 "--seqlen 8192 --head-dim 64" agent:4 ;;
esac
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/$1_agent_4.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/$1_agent_4.txt | cut -c1-200
echo "total $SECONDS s"
