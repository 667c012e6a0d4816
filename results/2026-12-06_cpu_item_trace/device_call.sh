#!/usr/bin/env bash
# The item trace (kernel_src/trace.cuh, FA_ITEM_TRACE=1) at B16 H16 N512 D64 fp16: where the SMs of three kernels idle.
# - ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el: the suite's best there (0.981x cuDNN), items claimed from a counter;
# - its _sl: each head's last tile half a grid of heads later;
# - ws_op_lazy_qp_ot_pr_pk: two consumers, cuDNN's launch shape (132 x 384 threads, 1024 items of 128 rows).
# Predicted: for the three-warpgroup kernels, of the span on a CTA's average, 2-4% before the first item and 6-9% after
# the last (the end: items of 7 us claimed to the last), between items under 1%; the tail items (tile 2) 0.8 of a full
# one; the two-consumer kernel's end under 4%, its items longer per row.
# (At the recorded commits the driver was scripts/device_item_trace.py with --kernel NAME; the same measurement.)
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_item_trace/device_call.sh   (carry .whl; about 2-3 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S="B16 H16 N512 D64 fp16"
{ time timeout 240 python3 scripts/device_anatomy.py /tmp/it --items --shape "$S=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el" \
    --shape "$S=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl" --shape "$S=ws_op_lazy_qp_ot_pr_pk"; echo "exit $?"; } > $OUT/trace.txt 2>&1
cp /tmp/it/trace.json.gz $OUT/ 2>/dev/null
cut -c1-400 $OUT/trace.txt | tail -14
echo "total $SECONDS s"
