#!/usr/bin/env bash
# Issue 11 on the device machine: the planted edge-test defects (no_tail_mask, causal_off_by_one;
# `all` for every planted defect) evaluated through the keep path at BC 16/32/64/128, each beside
# a control (the correct kernel against itself), then the correct kernel at each BC on the C1 plan
# (both input patterns) at fp16/bf16 x D64/D128. Everything lands under $OUT/tail.
# Usage (device tool, carrying .whl from scripts/fetch_wheels.sh): bash scripts/device_tail_battery.sh [all]
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 FA5090_CACHE=/tmp/facache
R=$OUT/tail; mkdir -p $R
echo "# $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)" > $R/tail_battery.txt
python3 scripts/device_tail_battery.py $R ${1:+--$1} 2>&1 | tee -a $R/tail_battery.txt
echo "exit ${PIPESTATUS[0]}" | tee -a $R/tail_battery.txt
