#!/usr/bin/env bash
# Next (written, not run): the item trace at B16 H16 N512 D64 fp16 on the best kernel beside three of its one-knob
# variants, to say what the 0.45 us between items (4.5-4.7% of the span, ../2026-12-06_h100_item_trace) is made of.
# - ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el: the best again (the record's figures, a second machine);
# - _st (schedule=static: no slot between the producer's claim and the consumers): if the slot's wait is the gap,
#   between items falls to the two-consumer static kernel's 3.5-3.9% and the end grows (0.9036 in the margins);
# - _el_dl (the dependent launch): before the first item falls from 2.0-2.4% (the launch's set-up under the previous
#   kernel's end);
# - _s2 (two K/V stages): if the gap is the next item's first K/V arriving late, two stages widen it.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_item_trace/device_call_next.sh   (carry .whl; about 1-2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
S="B16 H16 N512 D64 fp16"
{ time timeout 300 python3 scripts/device_anatomy.py /tmp/it --items --shape "$S=${B}_el" --shape "$S=${B}_st" \
    --shape "$S=${B}_el_dl" --shape "$S=${B}_s2"; echo "exit $?"; } > $OUT/trace.txt 2>&1
cp /tmp/it/trace.json.gz $OUT/ 2>/dev/null
cut -c1-400 $OUT/trace.txt | tail -16
echo "total $SECONDS s"
