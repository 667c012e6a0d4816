#!/usr/bin/env bash
# call 3: `run --budget 20` from the naive seed on a fresh database and a cold build cache at a third problem,
# B2 H16 N8192 D128 fp16, with the same code as call 2 (interrupted by SIGINT if it runs past the call)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
d=/tmp/n8k; mkdir -p $d; date -u +%FT%TZ > $OUT/n8k.txt
( cd $d && time timeout -s INT 470 python3 -m agent run --db $d/fa5090.db --budget 20 --seqlen 8192 ) >> $OUT/n8k.txt 2>&1
echo "exit $?" >> $OUT/n8k.txt; date -u +%FT%TZ >> $OUT/n8k.txt
tar czf $OUT/n8k_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
tail -14 $OUT/n8k.txt
