#!/usr/bin/env bash
# Issue 3's margin tables: every applicable lever once against the final kernel, paired, at the two
# shapes the issue names, each after a calibration of that shape. One shape per device call (each
# fits the 10-minute limit):
#   bash results/2026-11-30_h200_margins/device_margins.sh n8192    B2 H16 N8192 D128 fp16 non-causal
#   bash results/2026-11-30_h200_margins/device_margins.sh n32768   B2 H16 N32768 D128 bf16 causal
# (device tool, carrying .whl); results under $OUT/margins
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
FA="python3 -m agent"; R=$OUT/margins; mkdir -p $R
BEST="--knob compute=mma --knob layout=pad --knob staging=cp_async --knob exp=ex2"
SEED="--seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2"
LOG=$R/$1.txt
step() { echo "\$ $*" | tee -a $LOG; "$@" 2>&1 | tee -a $LOG; }
echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > $LOG
if [ "$1" = n8192 ]; then
  step $FA calibrate $BEST --seqlen 8192 --repeats 6 --time-budget 2.0 --db $R/n8192.db
  step $FA run $SEED --seqlen 8192 --screen --budget 30 --no-profile --time-budget 2.0 --db $R/n8192.db
else
  step $FA calibrate $BEST --seqlen 32768 --dtype bfloat16 --causal --repeats 4 --time-budget 3.0 --db $R/n32768.db
  step $FA run $SEED --seqlen 32768 --dtype bfloat16 --causal --screen --budget 30 --no-profile --time-budget 3.0 --db $R/n32768.db
fi
$FA history --json --db $R/$1.db > $R/$1_history.json
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $R/$1.db
# the device tool brings back files at most two folders down: pack the recordings and CSVs
tar -C $R -czf $R/$1_artifacts.tgz $1_artifacts 2>/dev/null && rm -rf $R/$1_artifacts
ls -la $R
