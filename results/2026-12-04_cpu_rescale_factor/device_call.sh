#!/usr/bin/env bash
# The device call that measures rescale_factor (written on the CPU, not yet run): the tier of the `_rf` (a branch) and
# `_rp` (predicated) kernels of scripts/device_suite.py (RF, each a bitwise pair with its kernel without the vote) and of
# the agent's N512 D64 final (ws3_lazy_qp_hf_ot_pm_ts_s3, a bitwise pair with its two-stage build); the margins (each move
# against the kernel without it and against SDPA cuDNN, the compared kernel's A/A null in three fresh processes) at B16
# N512 D64 (the suite's one shape below cuDNN: `_rf` predicted 1.005-1.015 if its 36 B of spill stay off the loop, `_rp`
# null if a predicated MUFU still takes the pipe), B2 N8192 D64 (1.000-1.010), B2 N2048 and N8192 D128 (null: the
# tensor pipe binds there) and causal B2 N8192 D128 (null to small).
# Usage: SOURCE=<commit> bash results/2026-12-04_cpu_rescale_factor/device_call.sh   (about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/rf; mkdir -p $W
S=ws3_lazy_qp_hf_ot_pm_ts_s3; P=ws3_lazy_qp_ot_pm; L=ws_op_lazy_w_oq_pk; Q=ws_op_lazy_qp_w_ot_pr_pk; C=ws_op_bc176_lazy_hf_w_oq_pm
ONLY=$(for n in $S ${S}_rf ${S}_rp ${P}_rf ${P}_rp ${L}_rf ${L}_rp ${Q}_rf ${Q}_rp ${C}_rf ${C}_rp; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 200 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
m n512 --shape "B16 H16 N512 D64 fp16" --aa $S --move $S\>${S}_rf --move $S\>${S}_rp --move cudnn\>$S \
  --move cudnn\>${S}_rf --move cudnn\>${S}_rp
more() { [ $SECONDS -lt 440 ] && m "$@" || echo "$1: not run, $SECONDS s elapsed"; }
more n8k64 --shape "B2 H16 N8192 D64 fp16" --aa $P --move $P\>${P}_rf --move $P\>${P}_rp --move cudnn\>${P}_rf
more n2k128 --shape "B2 H16 N2048 D128 fp16" --aa $Q --move $Q\>${Q}_rf --move $Q\>${Q}_rp --move cudnn\>${Q}_rf
more n8k128 --shape "B2 H16 N8192 D128 fp16" --aa $L --move $L\>${L}_rf --move $L\>${L}_rp
more causal8k --shape "B2 H16 N8192 D128 fp16 causal" --aa $C --move $C\>${C}_rf --move $C\>${C}_rp
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C $W .
echo "total $SECONDS s"
