#!/usr/bin/env bash
# Issue 9, first step on the H200 (one device call, nvidia-h200-x2, carrying .whl):
#   GPU 0: the covering-set correctness run with the FA2 knobs (scripts/device_ladder.py: every
#          configuration on 96 shapes, every bitwise lever against its off setting), the margin
#          screen at B2 H16 N8192 D128 fp16 from the agent's N8192 final kernel, then the dispatch
#          library through the tier (issue 9 item 6);
#   GPU 1: issue 11's tail battery (planted edge defects at BC 16..128 with controls, the correct
#          kernel on the new C1 plan), the wgmma probe (issue 10), then the same screen at B2 H16
#          N32768 D128 bf16 causal;
#   then both GPUs: the N8192 screen again with --gpus 2 (issue 13), and the side-by-side table.
# Each screen measures every applicable lever of the catalog once, paired against that fixed kernel,
# with its own A/A null. Results under $OUT/fa2 (at most two folders down; artifacts packed).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
R=$OUT/fa2; W=/tmp/w/fa2; mkdir -p $R $W
FINAL="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on persistent=on"
SEED=$(for k in $FINAL; do printf -- '--seed-knob %s ' $k; done)
DEADLINE=$(( $(date +%s) + ${TOTAL:-540} ))
one() {  # one GPU(S) NAME ARGS...: a command on those GPUs with the first one's cache, killed at the deadline
  local gpu=$1 name=$2; shift 2; local left=$(( DEADLINE - $(date +%s) ))
  [ $left -gt 30 ] || { echo "# not started: ${left}s left" > $W/$name.txt; return; }
  { echo "# $(date -u +%FT%TZ) on GPU $gpu: $(nvidia-smi -i $gpu --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\$ $*   (CUDA_VISIBLE_DEVICES=$gpu, timeout ${left}s)"
    CUDA_VISIBLE_DEVICES=$gpu FA5090_CACHE=/tmp/facache${gpu%%,*} timeout $left "$@"
    echo "# exit $? at $(date -u +%FT%TZ)"; } > $W/$name.txt 2>&1
}
N8="--seqlen 8192"; C32="--seqlen 32768 --dtype bfloat16 --causal"
SCREEN8="run $SEED $N8 --screen --budget 30 --no-profile --time-budget 1.5"
( one 0 covering python3 scripts/device_ladder.py $W/ladder
  one 0 screen_n8192 python3 -m agent $SCREEN8 --db $W/screen_n8192.db
  one 0 dispatch_check python3 scripts/device_dispatch_check.py $W/dispatch results/2026-11-30_h200_agent_vs_random/n8192_agent.db results/2026-11-30_h200_agent_vs_random/c16384_agent.db results/2026-11-30_h200_run2/fa5090.db ) &
( one 1 tail_battery python3 scripts/device_tail_battery.py $W/tail
  one 1 wgmma_probe bash scripts/device_wgmma_probe.sh $W
  one 1 screen_c32768 python3 -m agent run $SEED $C32 --screen --budget 30 --no-profile --time-budget 1.5 --db $W/screen_c32768.db ) &
wait
# issue 13: the same N8192 screen with one Dask worker per GPU (the build cache is GPU 0's, warm)
one 0,1 screen_n8192_gpus2 python3 -m agent $SCREEN8 --gpus 2 --db $W/screen_n8192_gpus2.db
[ -f $W/screen_n8192_gpus2.db ] && python3 scripts/dask_side_by_side.py $W/screen_n8192.db $W/screen_n8192_gpus2.db $W > /dev/null 2>&1
for n in screen_n8192 screen_c32768 screen_n8192_gpus2; do
  [ -f $W/$n.db ] || continue
  python3 -m agent history --json --db $W/$n.db > $W/${n}_history.json 2>/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $W/$n.db
done
rm -f $W/*.db-wal $W/*.db-shm
# the device tool brings back at most 8 files: everything in one archive, and a summary beside it
tar -C /tmp/w --exclude='*.so' --exclude='wgmma_probe' -czf $R/fa2.tgz fa2
{ for f in $W/*.txt; do echo "== $f"; grep -E "^#|^\\$|built|configurations x|worst|failures|^  [a-z_+]+: |KEPT|SLOWER|NULL|WRONG|CRASH|SDPA|stopped|variant|dispatch library|BC |rejected" $f | cut -c1-220 | tail -45; done
  [ -f $W/side_by_side.md ] && cat $W/side_by_side.md; } > $R/summary.txt
ls -la $R
cat $R/summary.txt
