#!/usr/bin/env bash
# call 2: the README's search again on a fresh database and a cold build cache, now with the background build
# stopped while a job times anything and the compounds' figures read from figure builds (device code, one mask
# mode); then the B16 H16 N512 D64 run of call 1 resumed (`run --resume 1`) on its database
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
T0=$(date +%s)
one() {  # $1 name, $2 seconds, the rest: the run command's arguments
  local name=$1 secs=$2 d=/tmp/$1; shift 2; mkdir -p $d
  date -u +%FT%TZ > $OUT/$name.txt
  ( cd $d && time timeout -s INT $secs python3 -m agent run --db $d/fa5090.db "$@" ) >> $OUT/$name.txt 2>&1
  echo "exit $?" >> $OUT/$name.txt; date -u +%FT%TZ >> $OUT/$name.txt
  tar czf $OUT/${name}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
}
one d128 380 --budget 20
mkdir -p /tmp/d64r && tar xJf results/2026-12-02_h200_fast_run/call1/d64_db.tar.xz -C /tmp/d64r
LEFT=$(( 555 - ($(date +%s) - T0) ))
[ $LEFT -gt 60 ] && one d64r $LEFT --resume 1
tail -12 $OUT/d128.txt; tail -12 $OUT/d64r.txt
