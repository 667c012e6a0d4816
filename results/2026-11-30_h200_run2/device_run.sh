#!/usr/bin/env bash
# The proof run of issue 2 on the device machine: doctor, then a search from the naive seed at
# B=2 H=16 N=2048 D=128 fp16 non-causal, then the listings. Everything lands under $OUT/run.
# Usage (device tool, carrying .whl): bash results/2026-11-30_h200_run2/device_run.sh BUDGET
set -uo pipefail
BUDGET=${1:-12}
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "pip -e failed; using python3 -m agent"
FA="fa5090-search"; command -v fa5090-search >/dev/null || FA="python3 -m agent"
R=$OUT/run; mkdir -p $R
{ echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"; } > $R/run.txt
echo "\$ $FA doctor" >> $R/run.txt; $FA doctor 2>&1 | tee -a $R/run.txt
CMD="$FA run --budget $BUDGET --db $R/fa5090.db"
echo "\$ $CMD" >> $R/run.txt
$CMD 2>&1 | tee -a $R/run.txt
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" $R/fa5090.db
for c in "history" "shelf" "show 3" "show 4"; do echo "\$ $FA $c" >> $R/listings.txt; $FA $c --db $R/fa5090.db >> $R/listings.txt 2>&1; done
$FA history --json --db $R/fa5090.db > $R/history.json
tar -C $R -czf $R/artifacts.tgz fa5090_artifacts
rm -rf $R/fa5090_artifacts $R/fa5090.db-wal $R/fa5090.db-shm
ls -la $R
