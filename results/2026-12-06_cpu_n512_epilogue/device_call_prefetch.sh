#!/usr/bin/env bash
# The next item's Q and first K/V blocks prefetched into L2 as the producer claims it (next_prefetch=on) on the N512 D64
# kernel with the decoded slot (`..._el_sd_np`): ncu put 5.3% of the warp samples on the consumers' wait for an item's
# Q and 1.8% on its first K (../2026-12-06_h100_n512_epilogue). 1. The tier (bitwise against the kernel without it).
# 2. Paired margins at N512 D64 with cuDNN against it, and at N2048 D64 GQA.
# Predicted: 1.005-1.03 at N512 (half to all of the Q wait), 0.998-1.01 at GQA (items 4x longer).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_n512_epilogue/device_call_prefetch.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
{ time timeout 60 python3 $S /tmp/np/tier --plan tier --only ${B}_el_sd_np; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -2 $OUT/tier.txt
{ time timeout 90 python3 $S /tmp/np/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa ${B}_el_sd \
    --move "${B}_el_sd>${B}_el_sd_np" --move "cudnn>${B}_el_sd" --move "cudnn>${B}_el_sd_np"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 60 python3 $S /tmp/np/g --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --move "${B}_el_sd>${B}_el_sd_np"; \
  echo "exit $?"; } > $OUT/margins_gqa.txt 2>&1
grep -E "^B8|exit" $OUT/margins_gqa.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/np tier/tier.json m/margins.json g/margins.json 2>/dev/null
echo "total $SECONDS s"
