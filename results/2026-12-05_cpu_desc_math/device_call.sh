#!/usr/bin/env bash
# The device call that measures desc_math=hoisted (written on the CPU, not yet run; about 5 minutes):
# 1. the tier of the five `_dm` kernels of scripts/device_suite.py (MW), each in a bitwise pair with its own build;
# 2. margins, each kernel against its `_dm` build, and cuDNN against the `_dm` build: at B16 H16 N512 D64 the agent's
#    final and the two-consumer kernel, at B2 H16 N8192 D128 the suite's kernel, at N8192 D64 and causal N8192 D128 the
#    suite's kernels there (their A/A nulls: ../2026-12-05_cpu_mbar_wait/device_call.sh measures them at N512 and N8192
#    D128, the same kernels).
# Predicted (README.md): 1.00-1.02 at each.
# Usage: SOURCE=<commit> bash results/2026-12-05_cpu_desc_math/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/dm; mkdir -p $W
A=ws3_lazy_qp_hf_ot_ts_s3; T2=ws_op_lazy_qp_ot_pr_pm; N8=ws_op_lazy_w_oq_pk; D64=ws3_lazy_qp_ot_pm; C=ws_op_bc176_lazy_hf_w_oq_pm
run() { echo "\$ $*"; local t=$SECONDS; timeout ${LIMIT:-200} "$@"; echo "exit $? in $((SECONDS - t)) s"; }
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
LIMIT=240 run python3 scripts/device_suite.py $W/tier --plan tier --only ${A}_dm --only ${T2}_dm --only ${N8}_dm \
  --only ${D64}_dm --only ${C}_dm > $OUT/tier.txt 2>&1
tail -6 $OUT/tier.txt
m n512 --shape "B16 H16 N512 D64 fp16" --move $A\>${A}_dm --move $T2\>${T2}_dm --move cudnn\>${A}_dm
m n8192 --shape "B2 H16 N8192 D128 fp16" --move $N8\>${N8}_dm --move cudnn\>${N8}_dm
m n8192_d64 --shape "B2 H16 N8192 D64 fp16" --move $D64\>${D64}_dm --move cudnn\>${D64}_dm
m causal --shape "B2 H16 N8192 D128 fp16 causal" --move $C\>${C}_dm --move cudnn\>${C}_dm
grep -E "^B|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C $W . 2>/dev/null
echo "total $SECONDS s"
