#!/usr/bin/env bash
# Is the paired timing's per-call figure the kernel, or the kernel and its launch? At B16 H16 N512 D64 fp16 (about
# 50 us a call) cuDNN and ours are 2.5% apart; a 1 us gap between back-to-back kernels is 2%.
# 1. torch.profiler's kernel records of blocks of 50 back-to-back calls (device_anatomy.py --trace), cuDNN and ours:
#    each kernel's duration, the gap to the next, and whether the kernels overlap (programmatic dependent launch), at
#    N512 D64 (the row-sum best, and it with dependent_launch=on) and N2048 D128 (the suite's kernel, and it with).
# 2. The tier of the two dependent-launch kernels (bitwise their bases).
# 3. Margins: at N512 D64 the best's A/A null, dependent launch over it, it and the dependent launch against cuDNN;
#    at N2048 D128 the suite's kernel with the dependent launch over it and against cuDNN.
# WIDE=1: also N2048 D128 (trace, tier, margins). ANATOMY=1: ncu's anatomy of the row-sum best beside cuDNN at N512 D64.
# Predicted: gaps of 1-2 us for both without programmatic dependent launch and cuDNN's kernel alone 0.97-0.98 of
# ours, as the events say; with it, our gaps near zero or negative and the margin 1.01-1.03 at N512, less at the
# 60 us calls at N2048 D128 (1.01-1.02).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_launch_gaps/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
D128=ws_op_lazy_qp_w_ot_pr_pk_dm
T128=(); [ "$WIDE" = 1 ] && T128=(--shape "B2 H16 N2048 D128 fp16=$D128" --shape "B2 H16 N2048 D128 fp16=${D128}_dl")
{ time timeout 200 python3 scripts/device_anatomy.py /tmp/gaps --trace --shape "B16 H16 N512 D64 fp16=$B" \
    --shape "B16 H16 N512 D64 fp16=${B}_dl" "${T128[@]}"; echo "exit $?"
} > $OUT/trace.txt 2>&1
cp /tmp/gaps/trace.json $OUT/ 2>/dev/null
grep -v "^ *$" $OUT/trace.txt | tail -14
{ time timeout 120 python3 $S /tmp/dl/tier --plan tier --only ${B}_dl $([ "$WIDE" = 1 ] && echo --only ${D128}_dl)
  echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/dl/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $B --move "$B>${B}_dl" \
    --move "cudnn>$B" --move "cudnn>${B}_dl"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
[ "$WIDE" = 1 ] && { time timeout 100 python3 $S /tmp/dl/m2 --plan margins --shape "B2 H16 N2048 D128 fp16" \
    --move "$D128>${D128}_dl" --move "cudnn>${D128}_dl"; echo "exit $?"; } > $OUT/margins_other.txt 2>&1
[ "$WIDE" = 1 ] && grep -E "^A/A|^B[0-9]|exit" $OUT/margins_other.txt | grep -v warmup
if [ "$ANATOMY" = 1 ]; then
  { time timeout 90 python3 scripts/device_anatomy.py /tmp/anat --shape "B16 H16 N512 D64 fp16=$B"; echo "exit $?"
  } > $OUT/anatomy.txt 2>&1
  cp /tmp/anat/anatomy.json $OUT/ 2>/dev/null; tail -11 $OUT/anatomy.txt
fi
tar czf $OUT/json.tgz -C /tmp/dl tier/tier.json m/margins.json m2/margins.json 2>/dev/null
echo "total $SECONDS s"
