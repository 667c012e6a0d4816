#!/usr/bin/env bash
# Issue 13's proof on two GPUs of one host: a screen of every lever at B2 H16 N8192 D128 fp16
# (against the run2 final kernel, as scripts/device_margins.sh) on one GPU, then the same screen with
# --gpus 2 (a local Dask cluster, one worker per GPU); wall time and each lever's outcome side by side.
# Longer than one device call (10 minutes), so as scripts/device_long.sh: `start` launches the queue
# in the background (setsid, so it outlives the call) and returns before the call's limit; `wait`,
# called at once after it on the same warm machine, waits for it and packs everything under $OUT/dask/:
#   bash scripts/fetch_wheels.sh                (here, once per checkout: the wheels, dask's included)
#   bash scripts/device_dask.sh start           (device tool, kind nvidia-h200-x2, carrying .whl)
#   bash scripts/device_dask.sh wait
# The queue: a --budget 1 screen first, which builds every candidate into the shared build cache
# (the agent builds all of them before timing anything), so neither timed run pays for nvcc; then
# the one-GPU screen on GPU 0, then the --gpus 2 screen on GPUs 0 and 1. Both runs start from fresh
# databases and measure their own A/A null on the seed (5 fresh processes) on GPU 0; in the second
# run GPU 1's worker measures its own null before its first pair and judges its pairs with it.
# Copy $OUT/dask/ to results/<date>_h200_dask_screen/ afterwards (side_by_side.md is the table).
set -uo pipefail
W=/tmp/w/dask; R=$OUT/dask; mkdir -p $W $R
SEED="--seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2"
SCREEN="$SEED --seqlen 8192 --screen --no-profile --time-budget ${TB:-2.0}"
if [ "$1" = start ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  cat > $W/env.sh <<EOF
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
cd $PWD
DEADLINE=\$(( $(date +%s) + ${TOTAL:-1080} ))
one() {  # one NAME GPUS ARGS...: a run on those GPUs, its own database, killed at the deadline; its wall time
  local name=\$1 gpus=\$2; shift 2; local left=\$(( DEADLINE - \$(date +%s) ))
  [ \$left -gt 60 ] || { echo "# not started: \${left}s left" > $W/\$name.txt; return; }
  { echo "# \$(date -u +%FT%TZ) on GPU(s) \$gpus: \$(nvidia-smi -i \$gpus --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tr '\n' ';')"
    echo "\\\$ python3 -m agent \$* --db $W/\$name.db   (CUDA_VISIBLE_DEVICES=\$gpus, timeout \${left}s)"
    local t0=\$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=\$gpus timeout \$left python3 -m agent "\$@" --db $W/\$name.db
    local rc=\$?
    echo "\$t0 \$(date +%s.%N)" > $W/\$name.time
    echo "# exit \$rc at \$(date -u +%FT%TZ)"; } > $W/\$name.txt 2>&1
}
EOF
  python3 -c "import dask, distributed; print('dask', dask.__version__, 'distributed', distributed.__version__)" || exit 1
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  printf '. %s/env.sh\n%s\n%s\n%s\ntouch %s/q.done\n' "$W" \
    "one warm 0 run $SCREEN --budget 1" \
    "one one_gpu 0 run $SCREEN --budget 40" \
    "one two_gpus 0,1 run $SCREEN --budget 40 --gpus 2" "$W" > $W/q.sh
  setsid nohup bash $W/q.sh > $W/q.log 2>&1 < /dev/null &
  sleep ${FIRST:-540}
  for f in $W/*.txt; do cp $f $R/; echo "== $f"; grep -E "^#|KEPT|SLOWER|NULL|error" $f | cut -c1-160 | tail -8; done
  exit 0
fi
# wait: until the queue is done (or the call's own limit nears), then the table and the packing
export PYTHONPATH=/tmp/site:$PWD
for i in $(seq 1 ${WAITS:-110}); do [ -f $W/q.done ] && break; sleep 5; done
for f in $W/*.db; do
  n=$(basename $f .db)
  python3 -m agent history --json --db $f > $W/${n}_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $f
done
rm -f $W/*.db-wal $W/*.db-shm
if [ -f $W/one_gpu.db ] && [ -f $W/two_gpus.db ]; then
  python3 scripts/dask_side_by_side.py $W/one_gpu.db $W/two_gpus.db $W
  for n in one_gpu two_gpus; do  # the process's own wall time: start-up, cluster and torch imports included
    [ -f $W/$n.time ] && awk -v n=$n '{printf "\nprocess wall time of %s: %.1f s\n", n, $2 - $1}' $W/$n.time >> $W/side_by_side.md
  done
fi
tar -C /tmp/w -czf $R/dask.tgz dask
cp $W/*.txt $W/*.md $W/*.json $R/ 2>/dev/null
ls -la $R
[ -f $W/side_by_side.md ] && cat $W/side_by_side.md
