#!/usr/bin/env bash
# One device call: `python3 -m agent run --budget 20` from the naive seed on a fresh database and a cold build cache
# at one problem, interrupted by SIGINT if it runs past the call (then `run --resume` in the next call finishes it).
# Usage: SOURCE=<commit> bash call.sh NAME [run options...]
name=$1; shift
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
d=/tmp/$name; mkdir -p $d
{ date -u +%FT%TZ; echo "python3 -m agent run --db $d/fa5090.db --budget 20 $*"
  cd $d && time timeout -s INT ${LIMIT:-540} python3 -m agent run --db $d/fa5090.db --budget 20 "$@"
  echo "exit $?"; date -u +%FT%TZ; } > $OUT/$name.txt 2>&1
tar czf $OUT/${name}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
grep -E "comparator|KEPT|plateau|budget|final" $OUT/$name.txt | cut -c1-200 | tail -30; tail -6 $OUT/$name.txt
