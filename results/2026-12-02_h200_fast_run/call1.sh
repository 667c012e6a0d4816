#!/usr/bin/env bash
# call 1: the README's search, `run --budget 20` at the default problem (B2 H16 N2048 D128 fp16) from the naive seed on
# a fresh database and a cold build cache, with the keep-side and replicate settle rules, spare workers and the
# background builds; then, in what is left of the call, the same at B16 H16 N512 D64 (interrupted by SIGINT if it runs
# past the call, resumable with `run --resume 1`)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
T0=$(date +%s)
one() {  # one run: $1 folder, $2 seconds, the rest the problem's options
  local d=/tmp/$1 s=$2; shift 2; mkdir -p $d
  date -u +%FT%TZ > $OUT/$1.txt
  ( cd $d && time timeout -s INT $s python3 -m agent run --budget 20 --db $d/fa5090.db "$@" ) >> $OUT/$1.txt 2>&1
  echo "exit $?" >> $OUT/$1.txt; date -u +%FT%TZ >> $OUT/$1.txt
  tar czf $OUT/$1_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
}
one d128 400
LEFT=$(( 555 - ($(date +%s) - T0) ))
[ $LEFT -gt 60 ] && one d64 $LEFT --batch 16 --seqlen 512 --head-dim 64
tail -25 $OUT/d128.txt; tail -8 $OUT/d64.txt
