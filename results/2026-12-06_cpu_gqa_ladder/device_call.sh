#!/usr/bin/env bash
# The ladder at B8 H16/4 N2048 D64 fp16 from the agent's final there (`ws3_ot_dm`: three warpgroups, two stages, one
# item a CTA, O by TMA, hoisted descriptors; 1.030-1.031x cuDNN in policy 25's and 26's runs) to the suite's
# `ws3_lazy_qp_ot_pm_dm` (1.0888x cuDNN in the screen there): each part alone and each pair, paired against the final.
# The parts: the lazy rescale with its skip (`lazy`), Q by TMA with the persistent schedule (`qp`), P packed mid-wait
# (`pm`). The agent measured `lazy` 0.99 and `qp` 0.95 alone there (../2026-12-06_h100_policy25, ../2026-12-06_h100_policy26).
# 1. The tier of the seven kernels (each against the bound). 2. The final's A/A null; each rung against it; the final
# and the full set against cuDNN. 3. ncu of the final and of `ws3_qp_ot_dm` (what Q by TMA with the persistent schedule
# costs there) beside cuDNN.
# Predicted: lazy 0.99, qp 0.95, pm 0.99-1.01 alone; some pair above 1.02 and the three together 1.05-1.06 over the final
# (the screen: 1.0888 against 1.030 in the runs' rows); which pair says what a compound lever should hold.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_gqa_ladder/device_call.sh   (carry .whl; about 5 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
F=ws3_ot_dm
R="ws3_lazy_ot_dm ws3_qp_ot_dm ws3_pm_ot_dm ws3_lazy_qp_ot_dm ws3_lazy_pm_ot_dm ws3_qp_pm_ot_dm ws3_lazy_qp_ot_pm_dm"
ONLY=$(for n in $F $R; do printf -- "--only %s " $n; done)
{ time timeout 150 python3 $S /tmp/gl/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
MOVES=$(for n in $R; do printf -- "--move %s>%s " $F $n; done)
{ time timeout 240 python3 $S /tmp/gl/m --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $F $MOVES \
    --move "cudnn>$F" --move "cudnn>ws3_lazy_qp_ot_pm_dm"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B8|exit" $OUT/margins.txt | grep -v warmup
{ timeout 100 python3 scripts/device_anatomy.py /tmp/gl/anat --shape "B8 H16 N2048 D64 fp16 Hkv4=$F" \
    --shape "B8 H16 N2048 D64 fp16 Hkv4=ws3_qp_ot_dm"; echo "exit $?"; } > $OUT/anatomy.txt 2>&1; tail -12 $OUT/anatomy.txt
tar czf $OUT/json.tgz -C /tmp/gl tier/tier.json m/margins.json anat/anatomy.json 2>/dev/null
echo "total $SECONDS s"
