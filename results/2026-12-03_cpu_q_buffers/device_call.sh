#!/usr/bin/env bash
# The H200 call that measures q_buffers=2 (not yet run): the tier of the four _q2 kernels (bitwise against their
# one-tile builds; grids of several items a CTA, odd N, causal), then paired margins at four suite shapes (each move
# against the kernel without it and against SDPA cuDNN, one process a shape, the compared kernel's A/A null in three
# fresh processes; pipelined pairs), then ncu of the N512 D64 pair beside cuDNN.
#   SOURCE=<commit> bash results/2026-12-03_cpu_q_buffers/device_call.sh   (about 5 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/q2; mkdir -p $W
ONLY=$(for n in ws3_lazy_qp_ot_pm_q2 ws3_lazy_qp_ot_q2 ws_op_lazy_qp_w_ot_pr_pk_q2 ws_op_lazy_qp_hf_w_ot_pm_q2; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
P=ws3_lazy_qp_ot_pm; Q=ws3_lazy_qp_ot; R=ws_op_lazy_qp_w_ot_pr_pk; H=ws_op_lazy_qp_hf_w_ot_pm
m n512 --shape "B16 H16 N512 D64 fp16" --aa $P --move $P\>${P}_q2 --move $Q\>${Q}_q2 --move cudnn\>$P --move cudnn\>${P}_q2
m gqa64 --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $P --move $P\>${P}_q2 --move cudnn\>${P}_q2
m n2k128 --shape "B2 H16 N2048 D128 fp16" --aa $R --move $R\>${R}_q2 --move cudnn\>${R}_q2
m causal_gqa --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --aa $H --move $H\>${H}_q2 --move cudnn\>${H}_q2
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
if [ $SECONDS -lt 420 ]; then
  run python3 scripts/device_anatomy.py $W/an --shape "B16 H16 N512 D64 fp16=${P}_q2" --shape "B16 H16 N512 D64 fp16=$P" \
    > $OUT/anatomy.txt 2>&1
  tail -12 $OUT/anatomy.txt
fi
tar czf $OUT/json.tgz -C $W --exclude=an .
[ -d $W/an ] && tar czf $OUT/an.tgz -C $W --exclude='*.ncu-rep' an
echo "total $SECONDS s"
