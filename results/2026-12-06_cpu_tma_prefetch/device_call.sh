#!/usr/bin/env bash
# The tensor maps prefetched as each CTA starts (tma_prefetch=on, `_tp`). ncu at B16 H16 N512 D64 read our SMs idle
# 10.6% of the elapsed cycles against cuDNN's 8.2% (../2026-12-06_h100_short_tiles_late) and the dependent launch, which
# overlaps each CTA's start with the previous kernel, gained 1.35% there: the start of the kernel costs. Each CTA's
# first TMA copy of Q, K, V and its first O store wait for the descriptor's fetch; prefetched, they do not.
# 1. The tier of the three `_tp` kernels (bitwise their bases). 2. At N512 D64 fp16: the A/A null of the agent's N512
# final (`_el`), `_tp` over it and over `_el_sl`, each against cuDNN, and cuDNN -> `_el_tp` and `_el` -> `_el_tp` in two
# more fresh processes. 3. At B2 H16 N2048 D128 fp16 the suite's kernel there against `_tp`.
# Predicted: 1.000-1.010 at N512 (a fetch of a few hundred ns once a CTA, of a 49 us call), 1.000-1.005 at N2048 D128.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_tma_prefetch/device_call.sh   (carry .whl; about 4 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
A=${B}_el
L=${B}_el_sl
M=ws_op_lazy_qp_w_ot_pr_pk_dm
{ time timeout 150 python3 $S /tmp/tp/tier --plan tier --only ${A}_tp --only ${L}_tp --only ${M}_tp; echo "exit $?"; } \
  > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/tp/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $A \
    --move "$A>${A}_tp" --move "$L>${L}_tp" --move "cudnn>${A}_tp" --move "cudnn>${L}_tp" --move "cudnn>$A"
  echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
for i in 2 3; do
  timeout 60 python3 $S /tmp/tp/r$i --plan margins --shape "B16 H16 N512 D64 fp16" --aa ${A}_tp --move "cudnn>${A}_tp" \
    --move "$A>${A}_tp" > $OUT/repeat_$i.txt 2>&1; grep -E "^B16" $OUT/repeat_$i.txt | grep -v warmup
done
{ time timeout 100 python3 $S /tmp/tp/m2 --plan margins --shape "B2 H16 N2048 D128 fp16" --aa $M --move "$M>${M}_tp" \
    --move "cudnn>${M}_tp"; echo "exit $?"; } > $OUT/margins_d128.txt 2>&1
grep -E "^A/A|^B[0-9]|exit" $OUT/margins_d128.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/tp tier/tier.json m/margins.json r2/margins.json r3/margins.json m2/margins.json 2>/dev/null
echo "total $SECONDS s"
