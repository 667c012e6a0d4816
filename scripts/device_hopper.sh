#!/usr/bin/env bash
# Issue 10's next step on an H200 (one device call, nvidia-h200 or -x2, carrying .whl): the wgmma
# probe with variants 8 and 9 (the MN-major N 128 question on hashed data), the Hopper arm's tier
# (scripts/device_ladder.py --hopper: kernel_src.covering.hopper_set on 96 shapes with bitwise
# partners), then the N8192 screen from the agent's N8192 final kernel, in which lever `wgmma`
# meets the mma.sync kernel paired (and every other lever is measured again). Written in session 4,
# not yet run. Results: $OUT/hopper/hopper.tgz and summary.txt.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
R=$OUT/hopper; W=/tmp/w/hopper; mkdir -p $R $W
FINAL="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on persistent=on"
SEED=$(for k in $FINAL; do printf -- '--seed-knob %s ' $k; done)
DEADLINE=$(( $(date +%s) + ${TOTAL:-540} ))
step() {  # NAME ARGS...: one step, killed at the deadline, its output in NAME.txt
  local name=$1; shift; local left=$(( DEADLINE - $(date +%s) ))
  [ $left -gt 30 ] || { echo "# not started: ${left}s left" > $W/$name.txt; return; }
  { echo "# $(date -u +%FT%TZ) on $(nvidia-smi -i 0 --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\$ $*   (timeout ${left}s)"; CUDA_VISIBLE_DEVICES=0 timeout $left "$@"; echo "# exit $? at $(date -u +%FT%TZ)"; } > $W/$name.txt 2>&1
}
step wgmma_probe bash scripts/device_wgmma_probe.sh $W
step hopper_tier python3 scripts/device_ladder.py $W/tier --hopper
step screen_n8192 python3 -m agent run $SEED --seqlen 8192 --screen --budget 32 --no-profile --time-budget 1.5 --db $W/screen_n8192.db
if [ -f $W/screen_n8192.db ]; then
  python3 -m agent history --json --db $W/screen_n8192.db > $W/screen_n8192_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $W/screen_n8192.db
fi
rm -f $W/*.db-wal $W/*.db-shm
tar -C /tmp/w --exclude='wgmma_probe' -czf $R/hopper.tgz hopper
for f in $W/*.txt; do echo "== $f"; grep -E "^#|built|configurations x|worst|failures|^  [A-Z]+ |variant|wgmma|KEPT|SLOWER|NULL|WRONG|stopped" $f | cut -c1-220 | tail -40; done > $R/summary.txt
cat $R/summary.txt
