# Sourced by a device call's queue script (results/*/device_call*.sh.as_run show how): queues of runs
# on the GPUs of one device machine that outlive a 10-minute call. `queue_env` writes $W/env.sh with
# `one DEADLINE GPUS NAME CMD...` (a step on those GPUs, its own build cache unless CACHE is set, its
# printed output in NAME.txt with its command, GPU and start time, killed at DEADLINE); `queue_start`
# launches $W/q.sh detached (setsid) and returns after FIRST seconds with what it printed so far;
# `queue_wait` waits for $W/q.done (or the call's limit), then packs databases, histories, the
# one-vs-two-GPU table when both screens exist, and everything under $R/NAME.tgz with a summary.
queue_env() {  # W
  local W=$1
  # The queue runs from its own copy of the source: the device tool copies the working tree again at the start of
  # every call, so a step that started (imported the package) while the next call's copy was under way failed
  # (results/2026-11-30_h200_mma_reaches_flash: a `baseline` with "cannot import name 'queries' from 'store'" and a random run's A/A null, each at
  # the second the `wait` call began).
  local SRC=$W/src
  mkdir -p $SRC && cp -r agent experiments kernel_src profiler store scripts pyproject.toml $SRC/
  cat > $W/env.sh <<EOF
export PYTHONPATH=/tmp/site:$SRC PYTHONUNBUFFERED=1 COLUMNS=200
cd $SRC
T0=$(date +%s)
one() {  # one DEADLINE GPUS NAME CMD...: one step on those GPUs, its own database, killed at the deadline
  local dl=\$1 gpus=\$2 name=\$3; shift 3; local left=\$(( dl - \$(date +%s) ))
  [ \$left -gt 45 ] || { echo "# not started: \${left}s left" > $W/\$name.txt; return; }
  { echo "# \$(date -u +%FT%TZ) on GPU(s) \$gpus: \$(nvidia-smi -i \$gpus --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tr '\n' ';')"
    echo "\\\$ \$*   (CUDA_VISIBLE_DEVICES=\$gpus, timeout \${left}s)"
    local t0=\$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=\$gpus FA5090_CACHE=\${CACHE:-/tmp/facache\${gpus//,/}} timeout \$left "\$@"
    local rc=\$?; echo "\$t0 \$(date +%s.%N)" > $W/\$name.time
    echo "# exit \$rc at \$(date -u +%FT%TZ)"; } > $W/\$name.txt 2>&1
}
EOF
}

queue_begin() {  # W PHASE1 PHASE2: the wheels, env.sh sourced here too, and the phase deadlines P1 and P2
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  queue_env $1
  . $1/env.sh
  P1=$(( T0 + $2 )); P2=$(( T0 + $2 + $3 ))
}

seed() { for k in $*; do printf -- '--seed-knob %s ' $k; done; }  # --seed-knob for each NAME=VALUE

queue_start() {  # W FIRST: run $W/q.sh detached, report after FIRST seconds
  local W=$1
  setsid nohup bash $W/q.sh > $W/q.log 2>&1 < /dev/null &
  sleep $2
  for f in $W/*.txt; do echo "== $f"; grep -E "^#|KEPT|SDPA|stopped|failures|variant|configurations" $f | cut -c1-180 | tail -10; done
}

queue_wait() {  # W R NAME
  local W=$1 R=$2 NAME=$3
  export PYTHONPATH=/tmp/site:$PWD
  for i in $(seq 1 ${WAITS:-108}); do [ -f $W/q.done ] && break; sleep 5; done
  for f in $W/*.db; do
    [ -f "$f" ] || continue
    local n=$(basename $f .db)
    python3 -m agent history --json --db $f > $W/${n}_history.json 2>/dev/null
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $f 2>/dev/null
  done
  rm -f $W/*.db-wal $W/*.db-shm
  if [ -f $W/dask_one_gpu.db ] && [ -f $W/dask_two_gpus.db ]; then
    python3 scripts/dask_side_by_side.py $W/dask_one_gpu.db $W/dask_two_gpus.db $W
    for n in dask_one_gpu dask_two_gpus; do
      [ -f $W/$n.time ] && awk -v n=$n '{printf "\nprocess wall time of %s: %.1f s\n", n, $2 - $1}' $W/$n.time >> $W/side_by_side.md
    done
  fi
  [ -f $W/q.done ] && echo "# queue done" || echo "# queue still running"
  tar -C /tmp/w --exclude='*.so' --exclude='*.o' --exclude="$NAME/src" -czf $R/$NAME.tgz $NAME
  for f in $W/*.txt; do echo "== $f"; grep -E "^#|KEPT|SDPA|stopped|failures|variant|configurations x|worst" $f | cut -c1-200 | tail -16; done > $R/summary.txt
  [ -f $W/side_by_side.md ] && cat $W/side_by_side.md >> $R/summary.txt
  cat $R/summary.txt
}

queue_main() {  # W P2 SCREEN BUDGET: $W/q.sh runs q0.sh and q1.sh side by side, then the same
  # screen on one GPU and on two, after a --budget 1 run that fills their shared build cache
  local W=$1 P2=$2 SCREEN=$3 BUDGET=$4
  cat > $W/q.sh <<EOF
. $W/env.sh
bash $W/q0.sh > $W/q0.log 2>&1 &
bash $W/q1.sh > $W/q1.log 2>&1 &
wait
CACHE=/tmp/facache_dask one $P2 0 dask_warm python3 -m agent run $SCREEN --budget 1 --db $W/dask_warm.db
CACHE=/tmp/facache_dask one $P2 0 dask_one_gpu python3 -m agent run $SCREEN --budget $BUDGET --db $W/dask_one_gpu.db
CACHE=/tmp/facache_dask one $P2 0,1 dask_two_gpus python3 -m agent run $SCREEN --budget $BUDGET --gpus 2 --db $W/dask_two_gpus.db
touch $W/q.done
EOF
}
