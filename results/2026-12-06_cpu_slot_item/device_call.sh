#!/usr/bin/env bash
# The decoded slot (slot_item=decoded) on the dynamic schedule's N512 D64 final (`..._el`) and on it with the dependent
# launch (`..._el_dl`): the producer decodes each item it claims, so no consumer divides between two items.
# 1. The tier of both (bitwise against the kernel without it). 2. The item trace of the final beside its `_sd`: the gap
# between items. 3. Paired margins `_el>_el_sd` with the A/A null of `_el` at N512 D64, N2048 D64 GQA and N8192 D64; and
# `_el_dl>_el_dl_sd`, cuDNN against each at N512.
# Predicted: between items from 4.5-4.7% of the span to 2.0-3.0% (the trace's own records stay); the margin 1.005-1.02
# at N512 (4-5 boundaries a CTA in a 48 us span), 1.000-1.008 at N2048 GQA, 0.998-1.004 at N8192 (items 4-16x longer);
# N512 against cuDNN from 0.981 to 0.99-1.00 (and with the dependent launch above 1.0 against our own previous call).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_slot_item/device_call.sh   (carry .whl; about 6 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
{ time timeout 150 python3 $S /tmp/sd/tier --plan tier --only ${B}_el_sd --only ${B}_el_dl_sd; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
N512="B16 H16 N512 D64 fp16"
{ time timeout 120 python3 scripts/device_anatomy.py /tmp/sd/it --items --shape "$N512=${B}_el" --shape "$N512=${B}_el_sd"; \
  echo "exit $?"; } > $OUT/trace.txt 2>&1
cp /tmp/sd/it/trace.json.gz $OUT/ 2>/dev/null; grep -E "us a call|launch 1" $OUT/trace.txt | cut -c1-330
{ time timeout 150 python3 $S /tmp/sd/m512 --plan margins --shape "$N512" --aa ${B}_el --move "${B}_el>${B}_el_sd" \
    --move "${B}_el_dl>${B}_el_dl_sd" --move "cudnn>${B}_el" --move "cudnn>${B}_el_sd" --move "cudnn>${B}_el_dl_sd"; \
  echo "exit $?"; } > $OUT/margins_n512.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins_n512.txt | grep -v warmup
for SH in "B8 H16 N2048 D64 fp16 Hkv4" "B2 H16 N8192 D64 fp16"; do
  T=$(echo $SH | cut -d' ' -f3)
  { time timeout 120 python3 $S /tmp/sd/m$T --plan margins --shape "$SH" --aa ${B}_el --move "${B}_el>${B}_el_sd"; \
    echo "exit $?"; } > $OUT/margins_$T.txt 2>&1
  grep -E "^A/A|^B|exit" $OUT/margins_$T.txt | grep -v warmup
done
tar czf $OUT/json.tgz -C /tmp/sd tier/tier.json m512/margins.json mN2048/margins.json mN8192/margins.json 2>/dev/null
echo "total $SECONDS s"
