#!/usr/bin/env bash
# The decoded slot with the short tiles late (`_sd_sl`) beside the decoded slot alone (`_sd`) at B16 H16 N512 D64 fp16:
# the tier, paired margins with cuDNN against each, the item trace of `_el_sd_sl`.
# Predicted: 1.000-1.015 over the decoded slot alone (the end from 7-8% of the span to 5%, the gaps now half as costly).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy28/device_call_suite.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
{ time timeout 100 python3 $S /tmp/p28/tier --plan tier --only ${B}_el_sd_sl --only ${B}_el_dl_sd_sl; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -2 $OUT/tier.txt
N512="B16 H16 N512 D64 fp16"
{ time timeout 120 python3 $S /tmp/p28/m --plan margins --shape "$N512" --aa ${B}_el_sd --move "${B}_el_sd>${B}_el_sd_sl" \
    --move "${B}_el_dl_sd>${B}_el_dl_sd_sl" --move "cudnn>${B}_el_sd" --move "cudnn>${B}_el_sd_sl" \
    --move "cudnn>${B}_el_dl_sd_sl"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 60 python3 scripts/device_anatomy.py /tmp/p28/it --items --shape "$N512=${B}_el_sd_sl"; echo "exit $?"; } \
  > $OUT/trace.txt 2>&1
cp /tmp/p28/it/trace.json.gz $OUT/ 2>/dev/null; grep -E "us a call|launch" $OUT/trace.txt | cut -c1-330
tar czf $OUT/json.tgz -C /tmp/p28 tier/tier.json m/margins.json 2>/dev/null
echo "total $SECONDS s"
