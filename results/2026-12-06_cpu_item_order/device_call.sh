#!/usr/bin/env bash
# The items tile by tile (item_order=tiles_ascending) at N512 D64, written on the CPU, not yet run. ncu put the N512
# best's SMs' average active cycles level with cuDNN's and its elapsed 5.3% longer (../2026-12-06_h100_launch_gaps/
# anatomy): the end of the kernel. In launch order a full item (192 rows) may be claimed last; tile by tile the short
# third tiles (128 rows, a warpgroup idle) come last. 1. The tier of the two `_ta` kernels (bitwise the best).
# 2. At B16 H16 N512 D64 fp16: the A/A nulls of the best with both moves (`_el_dl`) and of the best; `_ta` over each;
# each against cuDNN, and cuDNN against `_el_dl_ta` in two more fresh processes (with --aa, so the plan's default
# nulls do not run). 3. At B8 H16/4 N2048 D64 (a short last tile of 11) and B2 H16 N8192 D64 (none: 43 tiles of 192,
# the last 128 rows) the best against `_ta`. 4. ncu of `_el_dl_ta` beside cuDNN at N512.
# Predicted (a model of greedy claims, ../2026-12-06_cpu_item_order/README.md): 1.02-1.06 at N512, 1.00-1.01 at
# N2048 GQA and N8192; the SMs' idle end from 12.2% toward cuDNN's 8.2%.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_item_order/device_call.sh   (carry .whl; about 4 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
E=${B}_el_dl
{ time timeout 120 python3 $S /tmp/ta/tier --plan tier --only ${B}_ta --only ${E}_ta; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/ta/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $E --aa $B \
    --move "$E>${E}_ta" --move "$B>${B}_ta" --move "cudnn>${E}_ta" --move "cudnn>$E" --move "cudnn>${B}_ta"
  echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
for i in 2 3; do
  timeout 60 python3 $S /tmp/ta/r$i --plan margins --shape "B16 H16 N512 D64 fp16" --aa ${E}_ta --move "cudnn>${E}_ta" \
    > $OUT/repeat_$i.txt 2>&1; grep -E "^B16" $OUT/repeat_$i.txt | grep -v warmup
done
{ time timeout 120 python3 $S /tmp/ta/m2 --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --shape "B2 H16 N8192 D64 fp16" \
    --aa $B --move "$B>${B}_ta"; echo "exit $?"; } > $OUT/margins_other.txt 2>&1
grep -E "^A/A|^B[0-9]|exit" $OUT/margins_other.txt | grep -v warmup
{ timeout 90 python3 scripts/device_anatomy.py /tmp/ta/anat --shape "B16 H16 N512 D64 fp16=${E}_ta"; echo "exit $?"
} > $OUT/anatomy.txt 2>&1; tail -9 $OUT/anatomy.txt
tar czf $OUT/json.tgz -C /tmp/ta tier/tier.json m/margins.json r2/margins.json r3/margins.json m2/margins.json \
  anat/anatomy.json 2>/dev/null
echo "total $SECONDS s"
