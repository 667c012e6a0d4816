#!/usr/bin/env bash
# The item trace with its marks inside each item (kernel_src/trace.cuh: Q arrived, first K arrived, last PV done) on the
# N512 D64 kernel with the decoded slot (`..._el_sd`, level with cuDNN), at N512 and at N2048 D64 GQA (items of 16 key
# blocks where N512's have 4): what an item's 7 us at N512 are made of, where a key block costs about 0.42 us in the
# long items of N8192 (280 us over 10-11 items of 64 blocks a CTA).
# Predicted: at N512 the item's fixed part (to Q, Q to first K, epilogue) 2-4 us of the 7; to Q the largest (one Q
# buffer: the next Q is loaded only once this item's last QK^T is done).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_item_phases/device_call.sh   (carry .whl; about 1 minute)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd
{ time timeout 200 python3 scripts/device_anatomy.py /tmp/ip --items --shape "B16 H16 N512 D64 fp16=$B" \
    --shape "B8 H16 N2048 D64 fp16 Hkv4=$B"; echo "exit $?"; } > $OUT/trace.txt 2>&1
cp /tmp/ip/trace.json.gz $OUT/ 2>/dev/null
grep -E "us a call|launch 1" $OUT/trace.txt | cut -c1-700
echo "total $SECONDS s"
