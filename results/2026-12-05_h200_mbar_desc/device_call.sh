#!/usr/bin/env bash
# The device call of the two knobs together (mbar_wait=suspend and desc_math=hoisted, `_dmw`), and then the streams
# and many-heads records' checks (their own device_call.sh, run here in one call to save the machine's start):
# 1. the tier of the five `_dmw` kernels, each bitwise its own build;
# 2. margins at B16 H16 N512 D64: the final against its `_dm` and `_dmw` builds, cuDNN against the `_dmw` build;
# 3. the streams and many-heads checks (before_src.tar: `git archive -o before_src.tar 5c61264 kernel_src experiments`);
# 4. while time is left, margins at N8192 D128 and D64: each kernel's `_dm` against its `_dmw`, cuDNN against `_dmw`.
# Usage: SOURCE=<commit> bash results/2026-12-05_h200_mbar_desc/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/dmw; mkdir -p $W
A=ws3_lazy_qp_hf_ot_ts_s3; T2=ws_op_lazy_qp_ot_pr_pm; N8=ws_op_lazy_w_oq_pk; D64=ws3_lazy_qp_ot_pm; C=ws_op_bc176_lazy_hf_w_oq_pm
run() { echo "\$ $*"; local t=$SECONDS; timeout ${LIMIT:-200} "$@"; echo "exit $? in $((SECONDS - t)) s"; }
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
LIMIT=150 run python3 scripts/device_suite.py $W/tier --plan tier --only ${A}_dmw --only ${T2}_dmw --only ${N8}_dmw \
  --only ${D64}_dmw --only ${C}_dmw > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m n512 --shape "B16 H16 N512 D64 fp16" --move $A\>${A}_dmw --move ${A}_dm\>${A}_dmw --move cudnn\>${A}_dmw
grep -E "^B|exit" $OUT/margins.txt | grep -v warmup
mkdir -p /tmp/before && tar xf before_src.tar -C /tmp/before || echo "no before_src.tar: this tree alone"
B=$([ -d /tmp/before/kernel_src ] && echo "--before /tmp/before")
{ time timeout 200 python3 results/2026-12-05_cpu_streams/device_streams.py $OUT/streams $B; echo "exit $?"; } \
  > $OUT/streams.txt 2>&1
tail -15 $OUT/streams.txt
{ time timeout 150 python3 results/2026-12-05_cpu_many_heads/device_many_heads.py $OUT/many_heads $B; echo "exit $?"; } \
  > $OUT/many_heads.txt 2>&1
tail -15 $OUT/many_heads.txt
more() { [ $SECONDS -lt 420 ] && m "$@" || echo "$1: not run, $SECONDS s elapsed"; }
more n8192 --shape "B2 H16 N8192 D128 fp16" --move ${N8}_dm\>${N8}_dmw --move cudnn\>${N8}_dmw
more n8192_d64 --shape "B2 H16 N8192 D64 fp16" --move ${D64}_dm\>${D64}_dmw --move cudnn\>${D64}_dmw
grep -E "^B|exit" $OUT/margins.txt | grep -v warmup | tail -6
tar czf $OUT/json.tgz -C $W . 2>/dev/null
echo "total $SECONDS s"
