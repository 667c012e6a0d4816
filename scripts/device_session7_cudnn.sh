#!/usr/bin/env bash
# Session 7, a last short call (nvidia-h200, carrying .whl): issue 10's cuDNN stretch on the arm's best
# kernel of session 7 (release_t128_n8192: TMA t128x64w8, lazy rescale, softmax_ffma kept), `baseline`
# against SDPA flash and SDPA cuDNN, paired, in REPEATS fresh processes (the first read of session 7's
# baseline, on the 1.743x kernel, had AB 1.172 / BA 1.051 against cuDNN: an order effect one process
# cannot average away).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
R=$OUT/s7c; mkdir -p $R; cp scripts/device_session7_cudnn.sh $R/device_session7_cudnn.sh.as_run
for i in $(seq 1 ${REPEATS:-3}); do
  cp results/2026-11-30_h200_session7/release_t128_n8192.db /tmp/b$i.db
  { echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
    echo "\$ python3 -m agent baseline --backend flash --backend cudnn --db release_t128_n8192.db (copy $i)"
    python3 -m agent baseline --backend flash --backend cudnn --db /tmp/b$i.db; echo "# exit $?"; } > $R/baseline_release_$i.txt 2>&1
  cp /tmp/b$i.db $R/baseline_release_$i.db
done
cat $R/*.txt
