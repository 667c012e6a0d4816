#!/usr/bin/env bash
# Each head's last query tile half a grid of heads later (item_order=short_tiles_late, `_sl`) at N512 D64. Tile by tile
# (../2026-12-06_h100_item_order) put the short third tiles last and lost 0.91-0.92 to L2 misses; this order puts them
# last while a head's K/V reuse distance stays 66 heads. 1. The tier of the two `_sl` kernels (bitwise the best).
# 2. At B16 H16 N512 D64 fp16: the A/A nulls of the agent's N512 final (`_el`) and of it with the dependent launch
# (`_el_dl`); `_sl` over each; each against cuDNN, and cuDNN against `_el_sl` in two more fresh processes.
# 3. At B8 H16/4 N2048 D64 (11 tiles, the last 128 rows) and B2 H16 N8192 D64 (43 tiles, the last 128 rows): `_sl`
# over `_el`. 4. ncu of `_el_sl` beside cuDNN at N512 (DRAM reads: launch order read 50.4 MB).
# Predicted (model.txt): 1.01-1.05 at N512, 1.000-1.005 elsewhere (there the short items are 1/11 and 1/43 of a head's);
# DRAM reads at N512 within 5% of launch order's.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_short_tiles_late/device_call.sh   (carry .whl; about 6 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
A=${B}_el
E=${B}_el_dl
{ time timeout 120 python3 $S /tmp/sl/tier --plan tier --only ${A}_sl --only ${E}_sl; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/sl/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $A --aa $E \
    --move "$A>${A}_sl" --move "$E>${E}_sl" --move "cudnn>${A}_sl" --move "cudnn>$A" --move "cudnn>${E}_sl"
  echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
for i in 2 3; do
  timeout 60 python3 $S /tmp/sl/r$i --plan margins --shape "B16 H16 N512 D64 fp16" --aa ${A}_sl --move "cudnn>${A}_sl" \
    --move "$A>${A}_sl" > $OUT/repeat_$i.txt 2>&1; grep -E "^B16" $OUT/repeat_$i.txt | grep -v warmup
done
{ time timeout 120 python3 $S /tmp/sl/m2 --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --shape "B2 H16 N8192 D64 fp16" \
    --aa $A --move "$A>${A}_sl"; echo "exit $?"; } > $OUT/margins_other.txt 2>&1
grep -E "^A/A|^B[0-9]|exit" $OUT/margins_other.txt | grep -v warmup
{ timeout 90 python3 scripts/device_anatomy.py /tmp/sl/anat --shape "B16 H16 N512 D64 fp16=${A}_sl"; echo "exit $?"
} > $OUT/anatomy.txt 2>&1; tail -9 $OUT/anatomy.txt
tar czf $OUT/json.tgz -C /tmp/sl tier/tier.json m/margins.json r2/margins.json r3/margins.json m2/margins.json \
  anat/anatomy.json 2>/dev/null
echo "total $SECONDS s"
