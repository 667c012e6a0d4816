#!/usr/bin/env bash
# Issue 4's proof on the device machine, in two calls that fit its 10-minute limit:
#   bash results/2026-11-30_h200_instrument/device_instrument.sh a   calibrate (ceilings, A/A null, 20 A/A keep decisions),
#                                         a search that reads the calibration (re-anchors), baseline
#   bash results/2026-11-30_h200_instrument/device_instrument.sh b   derive-tolerance (1,024-config envelope + defect battery)
# Results land under $OUT/inst.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "pip -e failed; using python3 -m agent"
FA="fa5090-search"; command -v fa5090-search >/dev/null || FA="python3 -m agent"
R=$OUT/inst; mkdir -p $R; DB=/tmp/inst/fa5090.db; mkdir -p /tmp/inst
step() { echo "\$ $*" | tee -a $R/$LOG; "$@" 2>&1 | tee -a $R/$LOG; }
echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)" > $R/${1}.txt
LOG=${1}.txt
BEST="--knob compute=mma --knob layout=pad --knob staging=cp_async --knob exp=ex2"
if [ "$1" = a ]; then
  step $FA calibrate $BEST --repeats 10 --keep-trials 20 --time-budget 1.0 --db $DB
  step $FA run --budget 10 --time-budget 1.0 --db $DB
  step $FA baseline --time-budget 1.0 --db $DB
  step $FA history --db $DB
  $FA history --json --db $DB > $R/history.json
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $DB
  cp $DB $R/fa5090.db
  tar -C /tmp/inst -czf $R/artifacts.tgz fa5090_artifacts
else
  step $FA derive-tolerance --out $R/tolerance-report.json --db $DB
fi
ls -la $R
