#!/usr/bin/env bash
# call 3: the README's search, `run --budget 20` at the default problem (B2 H16 N2048 D128 fp16) from the naive seed on a
# fresh database, agent 12, with the paired measurement's settle rule; interrupted (SIGINT, resumable) if it runs past
# the call's limit
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
mkdir -p /tmp/run && cd /tmp/run
date -u +%FT%TZ > $OUT/run.txt
( time timeout -s INT 520 python3 -m agent run --budget 20 --db /tmp/run/fa5090.db ) >> $OUT/run.txt 2>&1
echo "exit $?" >> $OUT/run.txt; date -u +%FT%TZ >> $OUT/run.txt
python3 -m agent history --db /tmp/run/fa5090.db > $OUT/history.txt 2>&1
python3 -m agent history --db /tmp/run/fa5090.db --json > $OUT/history.json 2>&1
cp /tmp/run/fa5090.db $OUT/fa5090.db
tar czf $OUT/artifacts.tgz -C /tmp/run fa5090_artifacts 2>/dev/null
tail -30 $OUT/run.txt
