#!/usr/bin/env bash
# Is the paired timing's per-call figure the kernel, or the kernel and its launch? At B16 H16 N512 D64 fp16 (about
# 50 us a call) cuDNN and ours are 2.5% apart; a 1 us gap between back-to-back kernels is 2%. 1. torch.profiler's
# kernel records of blocks of 50 back-to-back calls (device_anatomy.py --trace) at N512 D64 and N8192 D64, cuDNN
# and ours: each kernel's duration and the gap to the next, and whether cuDNN's kernels overlap (programmatic
# dependent launch). 2. The written row-sum call (../2026-12-06_cpu_row_sum/device_call_last.sh) into $OUT/rs3.
# Predicted: gaps of 1-2 us for both if neither uses programmatic dependent launch; cuDNN's kernel alone then
# 0.97-0.98 of ours, as the events say. Then ncu's anatomy of the row-sum kernel beside cuDNN at N512 D64.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_launch_gaps/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
{ time timeout 200 python3 scripts/device_anatomy.py /tmp/gaps --trace --shape "B16 H16 N512 D64 fp16=$B" \
    --shape "B16 H16 N512 D64 fp16=ws3_lazy_qp_ot_pm_dm" --shape "B2 H16 N8192 D64 fp16=$B"; echo "exit $?"
} > $OUT/trace.txt 2>&1
cp /tmp/gaps/trace.json $OUT/ 2>/dev/null
cat $OUT/trace.txt
{ time timeout 120 python3 scripts/device_anatomy.py /tmp/anat --shape "B16 H16 N512 D64 fp16=$B"; echo "exit $?"
} > $OUT/anatomy.txt 2>&1
cp /tmp/anat/anatomy.json $OUT/ 2>/dev/null; tail -12 $OUT/anatomy.txt
mkdir -p $OUT/rs3 && OUT=$OUT/rs3 bash results/2026-12-06_cpu_row_sum/device_call_last.sh
tar czf $OUT/rs3.tgz -C $OUT rs3 && rm -rf $OUT/rs3
echo "total $SECONDS s"
