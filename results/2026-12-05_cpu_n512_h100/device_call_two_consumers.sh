#!/usr/bin/env bash
# The H100's N512 D64, second call (written on the CPU after ../2026-12-05_h100_n512): cuDNN's kernel there is a
# producer and two consumer warpgroups (384 threads, 168 registers, tile 64x128x64, one CTA an SM, 132 CTAs), the shape
# of our two-consumer kernel ws_op_lazy_qp_ot_pr_pk, which read 0.864x cuDNN against the three-consumer kernels'
# 0.90-0.92. ncu beside cuDNN and per SASS instruction (--sass) for the two-consumer kernel and the screen's best, so
# that where the two-consumer kernel's cycles go is read off the pages on the CPU (`device_anatomy.py --families`).
# About 2 minutes. Usage: SOURCE=<commit> bash results/2026-12-05_cpu_n512_h100/device_call_two_consumers.sh (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S="B16 H16 N512 D64 fp16"
{ time timeout 240 python3 scripts/device_anatomy.py /tmp/tc --sass --shape "$S=ws_op_lazy_qp_ot_pr_pk" \
    --shape "$S=ws3_lazy_qp_ot_ts_s3_dy"; echo "exit $?"; } > $OUT/two_consumers.txt 2>&1
for f in /tmp/tc/*_sass.csv; do python3 scripts/device_anatomy.py --families "$f"; done > $OUT/families.txt 2>&1
tar czf $OUT/two_consumers.tgz -C /tmp/tc --exclude='*.ncu-rep' . 2>/dev/null
grep -A4 "^B16" $OUT/two_consumers.txt | head -30
echo "total $SECONDS s"
