#!/usr/bin/env bash
# ncu at B16 H16 N512 D64 fp16 on the kernel with the decoded slot (`..._el_sd`, level with cuDNN): the anatomy beside
# cuDNN, and SourceCounters (warp-state samples per SASS instruction) of ours, so that the CPU can cut the samples into
# the key-block loop, the item's first block and ends, and the epilogue (--segments, --families).
# Predicted: the epilogue (normalise, stmatrix, fence, TMA store, LSE) 5-10% of the consumers' samples; the key-block
# loop 50-60%; the end (busiest SM against average) 4-7%.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_n512_epilogue/device_call.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
K=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd
{ time timeout 240 python3 scripts/device_anatomy.py /tmp/an --shape "B16 H16 N512 D64 fp16=$K" --sass; echo "exit $?"; } \
  > $OUT/anatomy.txt 2>&1
cp /tmp/an/anatomy.json /tmp/an/*_sass.csv $OUT/ 2>/dev/null
gzip -f $OUT/*_sass.csv 2>/dev/null
tail -30 $OUT/anatomy.txt | cut -c1-220
echo "total $SECONDS s"
