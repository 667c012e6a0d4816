#!/usr/bin/env bash
# Issue 13 after the TimeoutError fix (agent/distributed.py _wait): the --gpus 2 screen of session 5's
# queue again, on a fresh nvidia-h200-x2 (one call, carrying .whl): a --budget 1 run that fills the build
# cache, then the same screen as scripts/device_session5.sh's dask_one_gpu on GPUs 0 and 1.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache_dask
W=/tmp/w/dask2; R=$OUT/dask2; mkdir -p $W $R
SCREEN="--seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2 --seqlen 8192 --screen --no-profile --time-budget 1.5"
DEADLINE=$(( $(date +%s) + ${TOTAL:-400} ))
one() {
  local gpus=$1 name=$2; shift 2; local left=$(( DEADLINE - $(date +%s) ))
  { echo "# $(date -u +%FT%TZ) on GPU(s) $gpus: $(nvidia-smi -i $gpus --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tr '\n' ';')"
    echo "\$ $*   (CUDA_VISIBLE_DEVICES=$gpus, timeout ${left}s)"; local t0=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=$gpus timeout $left "$@"; local rc=$?
    echo "$t0 $(date +%s.%N)" > $W/$name.time; echo "# exit $rc at $(date -u +%FT%TZ)"; } > $W/$name.txt 2>&1
}
one 0 dask_warm python3 -m agent run $SCREEN --budget 1 --db $W/dask_warm.db
one 0,1 dask_two_gpus python3 -m agent run $SCREEN --budget 12 --gpus 2 --db $W/dask_two_gpus.db
for f in $W/*.db; do n=$(basename $f .db); python3 -m agent history --json --db $f > $W/${n}_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $f; done
rm -f $W/*.db-wal $W/*.db-shm
tar -C /tmp/w --exclude='*.so' -czf $R/dask2.tgz dask2
for f in $W/*.txt; do echo "== $f"; grep -E "^#|KEPT|SLOWER|NULL|SDPA|stopped|Error|error" $f | cut -c1-200 | tail -30; done | tee $R/summary.txt
