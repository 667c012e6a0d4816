#!/usr/bin/env bash
# device_call_2.sh cut to what the device time left allows (about 3 minutes): the tier of `_el_sl_lr` (bitwise `_el_sl`
# where nothing splits; every item forced into halves against the bound) and its paired margin with the A/A null at
# N8192 D64, each against cuDNN. Predicted: 1.005-1.015 over `_el_sl`.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_last_round/device_call_2_short.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
{ time timeout 80 python3 $S /tmp/lr/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa ${B}_el_sl_lr \
    --move "${B}_el_sl>${B}_el_sl_lr" --move "cudnn>${B}_el_sl_lr" --move "cudnn>${B}_el_sl"; echo "exit $?"; } \
  > $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 60 python3 $S /tmp/lr/tier --plan tier --only ${B}_el_sl_lr; echo "exit $?"; } > $OUT/tier.txt 2>&1
{ time FA_LAST_ROUND_SPLIT=-1:1 timeout 40 python3 $S /tmp/lr/tf1 --plan tier --alone --only ${B}_el_sl_lr; echo "exit $?"; } \
  >> $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt
(cd /tmp/lr && tar czf $OUT/json.tgz $(ls */tier.json */margins.json 2>/dev/null)) 2>/dev/null
echo "total $SECONDS s"
