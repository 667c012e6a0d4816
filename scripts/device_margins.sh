#!/usr/bin/env bash
# Issue 3's margin tables (not yet run): every applicable lever once against the final kernel,
# paired, at the two shapes the issue names, each after a calibration of that shape.
#   bash scripts/device_margins.sh          (device tool, carrying .whl); results under $OUT/margins
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
FA="python3 -m agent"; R=$OUT/margins; mkdir -p $R  # one database per problem shape: n8192.db, n32768.db
BEST="--knob compute=mma --knob layout=pad --knob staging=cp_async --knob exp=ex2"
SEED="--seed-knob compute=mma --seed-knob layout=pad --seed-knob staging=cp_async --seed-knob exp=ex2"
step() { echo "\$ $*" | tee -a $R/margins.txt; "$@" 2>&1 | tee -a $R/margins.txt; }
echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > $R/margins.txt
step $FA calibrate $BEST --seqlen 8192 --repeats 6 --time-budget 2.0 --db $R/n8192.db
step $FA run $SEED --seqlen 8192 --screen --budget 30 --no-profile --time-budget 2.0 --db $R/n8192.db
step $FA calibrate $BEST --seqlen 32768 --dtype bfloat16 --causal --repeats 4 --time-budget 3.0 --db $R/n32768.db
step $FA run $SEED --seqlen 32768 --dtype bfloat16 --causal --screen --budget 30 --no-profile --time-budget 3.0 --db $R/n32768.db
# the device tool brings back files at most two folders down: pack the recordings and CSVs
tar -C $R -czf $R/artifacts.tgz n8192_artifacts n32768_artifacts 2>/dev/null && rm -rf $R/n8192_artifacts $R/n32768_artifacts
