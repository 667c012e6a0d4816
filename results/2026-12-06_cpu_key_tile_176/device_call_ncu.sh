#!/usr/bin/env bash
# Why P through shared memory lost 30% (`_ps`: 0.697 at N8192 D64, ../2026-12-06_h100_key_tile_176): ncu's anatomy of
# `_el_sl_ps` beside `_el_sl` at B2 H16 N8192 D64 fp16, with shared memory's wavefronts for HGMMA and L1TEX's throughput.
# Predicted: the HGMMA wavefronts up by about 40% (each PV reads a 64 x 16 P slab beside V's 16 x 64; QK^T's Q and K
# unchanged), L1TEX near its peak (>= 85%) with P in shared memory against about 60% without, the tensor pipe down by
# about the margin; if L1TEX is not near its peak, the stall reasons (barrier for the warpgroup's sync, wait for
# HGMMA) say which cost it is.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_key_tile_176/device_call_ncu.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl
S="B2 H16 N8192 D64 fp16"
{ time timeout 240 python3 scripts/device_anatomy.py /tmp/an --shape "$S=${B}" --shape "$S=${B}_ps"; echo "exit $?"; } \
  > $OUT/anatomy.txt 2>&1
cp /tmp/an/anatomy.json $OUT/ 2>/dev/null; for f in /tmp/an/*.csv; do gzip -c "$f" > "$OUT/$(basename "$f").gz"; done
grep -vE "^\s*$" $OUT/anatomy.txt | tail -14
echo "total $SECONDS s"
