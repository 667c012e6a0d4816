#!/usr/bin/env bash
# A second Q tile (q_buffers=2) on the N512 D64 kernel with the decoded slot (`..._el_sd_q2`; and with the dependent
# launch): the marks put 0.19 us between an item's start and its Q and 0.19 us more to its first K
# (../2026-12-06_h100_item_phases); with two Q tiles the producer loads the next item's Q as soon as it has claimed the
# item, blocks before this one ends. ptxas sm_90a: 4 B of spill with it (none without); on an earlier N512 kernel it
# lost 0.9662 (../2026-12-06_h100_row_sum_around).
# 1. The tier (bitwise against the kernel without it). 2. The item trace with its marks. 3. Paired margins at N512 with
# cuDNN against each.
# Predicted: to Q from 0.19 to under 0.05 us and Q to first K unchanged; the margin 0.99-1.015 (the spill against
# about 0.2 us at each of 4-5 boundaries of a 48 us span).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_item_phases/device_call_q2.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
N512="B16 H16 N512 D64 fp16"
{ time timeout 100 python3 $S /tmp/q2/tier --plan tier --only ${B}_el_sd_q2 --only ${B}_el_dl_sd_q2; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -2 $OUT/tier.txt
{ time timeout 100 python3 scripts/device_anatomy.py /tmp/q2/it --items --shape "$N512=${B}_el_sd_q2"; echo "exit $?"; } \
  > $OUT/trace.txt 2>&1
cp /tmp/q2/it/trace.json.gz $OUT/ 2>/dev/null; grep -E "us a call|launch 1" $OUT/trace.txt | cut -c1-700
{ time timeout 150 python3 $S /tmp/q2/m --plan margins --shape "$N512" --aa ${B}_el_sd --move "${B}_el_sd>${B}_el_sd_q2" \
    --move "${B}_el_dl_sd>${B}_el_dl_sd_q2" --move "cudnn>${B}_el_sd" --move "cudnn>${B}_el_sd_q2" \
    --move "cudnn>${B}_el_dl_sd" --move "cudnn>${B}_el_dl_sd_q2"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/q2 tier/tier.json m/margins.json 2>/dev/null
echo "total $SECONDS s"
