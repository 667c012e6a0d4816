#!/usr/bin/env bash
# The plain and the traced build timed in alternation (alternate.py): `..._el_sd` at B8 H16/4 N2048 D64 (where the
# traced build read 5.7% faster, timed once after the plain one) and at N512 D64 (4.4% slower), `..._el` at the GQA
# shape, and the suite's GQA kernel `ws3_lazy_qp_ot_pm_dm` (static persistent schedule).
# Predicted: at GQA traced / plain 0.99-1.02 (the once-timed figure a clock or order effect); at N512 1.03-1.05.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_trace_timing/device_call.sh   (carry .whl; about 1-2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD:$PWD/scripts
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
G="B8 H16 N2048 D64 fp16 Hkv4"
{ time timeout 240 python3 results/2026-12-06_cpu_trace_timing/alternate.py "$G=${B}_el_sd" "B16 H16 N512 D64 fp16=${B}_el_sd" \
    "$G=${B}_el" "$G=ws3_lazy_qp_ot_pm_dm"; echo "exit $?"; } > $OUT/alternate.txt 2>&1
cut -c1-260 $OUT/alternate.txt
echo "total $SECONDS s"
