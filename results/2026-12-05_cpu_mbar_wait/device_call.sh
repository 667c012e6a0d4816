#!/usr/bin/env bash
# The device call that measures mbar_wait=suspend (written on the CPU, not yet run; about 7 minutes):
# 1. the tier of the five `_mw` kernels of scripts/device_suite.py (MW), each in a bitwise pair with its own build;
# 2. margins, each kernel against its `_mw` build and cuDNN against the `_mw` build: at B16 H16 N512 D64 the agent's
#    final (with its A/A null in three fresh processes) and the two-consumer kernel whose page was counted; at B2 H16
#    N8192 D128 the suite's kernel (with its A/A); at N8192 D64 and causal N8192 D128 the suite's kernels there;
# 3. ncu's samples per SASS instruction (device_anatomy.py --sass) of the final and its `_mw` build at N512 D64, and
#    polls.py on both pages: the asks again of each wait site, before and after.
# Predicted (README.md): asks again from 8.7% of the instructions executed to under 1%; margins 1.00-1.03.
# Usage: SOURCE=<commit> bash results/2026-12-05_cpu_mbar_wait/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/mw; mkdir -p $W
A=ws3_lazy_qp_hf_ot_ts_s3; T2=ws_op_lazy_qp_ot_pr_pm; N8=ws_op_lazy_w_oq_pk; D64=ws3_lazy_qp_ot_pm; C=ws_op_bc176_lazy_hf_w_oq_pm
run() { echo "\$ $*"; local t=$SECONDS; timeout ${LIMIT:-200} "$@"; echo "exit $? in $((SECONDS - t)) s"; }
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
LIMIT=240 run python3 scripts/device_suite.py $W/tier --plan tier --only ${A}_mw --only ${T2}_mw --only ${N8}_mw \
  --only ${D64}_mw --only ${C}_mw > $OUT/tier.txt 2>&1
tail -6 $OUT/tier.txt
m n512 --shape "B16 H16 N512 D64 fp16" --aa $A --move $A\>${A}_mw --move $T2\>${T2}_mw --move cudnn\>${A}_mw
m n8192 --shape "B2 H16 N8192 D128 fp16" --aa $N8 --move $N8\>${N8}_mw --move cudnn\>${N8}_mw
m n8192_d64 --shape "B2 H16 N8192 D64 fp16" --move $D64\>${D64}_mw --move cudnn\>${D64}_mw
m causal --shape "B2 H16 N8192 D128 fp16 causal" --move $C\>${C}_mw --move cudnn\>${C}_mw
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 200 python3 scripts/device_anatomy.py $W/sass --sass --shape "B16 H16 N512 D64 fp16=$A" \
    --shape "B16 H16 N512 D64 fp16=${A}_mw"; echo "exit $?"; } > $OUT/sass.txt 2>&1
tail -8 $OUT/sass.txt
python3 results/2026-12-05_cpu_mbar_wait/polls.py $(for f in $W/sass/*_sass.csv; do echo "$f 3"; done) > $OUT/polls.txt 2>&1
cat $OUT/polls.txt
tar czf $OUT/json.tgz -C $W --exclude=sass . 2>/dev/null
[ -d $W/sass ] && tar czf $OUT/sass.tgz -C $W/sass --exclude='*.ncu-rep' .
echo "total $SECONDS s"
