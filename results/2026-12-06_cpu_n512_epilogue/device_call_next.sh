#!/usr/bin/env bash
# Next (written, not run): why the next item's prefetch lost (0.9579 at N512 D64, ../2026-12-06_h100_next_prefetch), and
# its GQA margin that timed out there.
# 1. ncu's anatomy of `..._el_sd_np` beside `..._el_sd` at N512 (DRAM and L2 bytes, issue, stalls) and its source page
#    (--sass): whether the consumers' Q wait (qfull, 5.0% of the samples on `..._el_sd`) shrank, and where the samples
#    went (waits.py). 2. The paired margin at N2048 D64 GQA, with a limit long enough to build.
# Predicted: the Q wait under 3% of the samples and the producer's samples up (its prefetches), DRAM bytes level; if the
# Q wait did not shrink, L2 was not where that wait came from.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_n512_epilogue/device_call_next.sh   (carry .whl; about 3 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
S="B16 H16 N512 D64 fp16"
{ time timeout 240 python3 scripts/device_anatomy.py /tmp/an --shape "$S=${B}_el_sd_np" --shape "$S=${B}_el_sd" --sass; \
  echo "exit $?"; } > $OUT/anatomy.txt 2>&1
cp /tmp/an/anatomy.json /tmp/an/*_sass.csv $OUT/ 2>/dev/null; gzip -f $OUT/*_sass.csv 2>/dev/null
for f in $OUT/*_sass.csv.gz; do echo "$f"; python3 results/2026-12-06_h100_n512_epilogue/waits.py "$f" | head -4; done
{ time timeout 200 python3 scripts/device_suite.py /tmp/np/g --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" \
    --move "${B}_el_sd>${B}_el_sd_np"; echo "exit $?"; } > $OUT/margins_gqa.txt 2>&1
grep -E "^B8|exit" $OUT/margins_gqa.txt | grep -v warmup
echo "total $SECONDS s"
