#!/usr/bin/env bash
# call 1: the tree row max (row_max=tree) and the 40-register producer (ws_producer_regs=40) on the suite's best
# kernels: the tier (bitwise against each kernel without them), paired margins at six suite shapes (each against the
# kernel without the lever, and against SDPA cuDNN, one process a shape), A/A nulls, and a source-level ncu at N512 D64
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
S=results/2026-12-02_h200_softmax_chain
W=/tmp/chain; mkdir -p $W
NEW="ws2c_ot_rt ws3_lazy_qp_ot_rt ws_op_lazy_qp_w_ot_rt ws_op_lazy_w_oq_rt ws_op_lazy_qp_hf_w_ot_rt ws_op_lazy_qp_w_ot_pr
     ws_op_lazy_qp_w_ot_rt_pr ws_op_lazy_qp_hf_w_ot_pr ws_op_lazy_qp_hf_w_ot_rt_pr"
ONLY=$(for n in $NEW; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
P=ws_op_lazy_qp_w_ot; H=ws_op_lazy_qp_hf_w_ot; Q=ws3_lazy_qp_ot; O=ws_op_lazy_w_oq
m n512 --shape "B16 H16 N512 D64 fp16" --aa ws2c_ot --move ws2c_ot\>ws2c_ot_rt --move $Q\>${Q}_rt --move $P\>${P}_pr \
  --move $P\>${P}_rt --move $P\>${P}_rt_pr --move cudnn\>ws2c_ot --move cudnn\>ws2c_ot_rt --move cudnn\>${P}_rt_pr
m gqa64 --shape "B8 H16 N2048 D64 fp16 Hkv4" --move $Q\>${Q}_rt --move cudnn\>${Q}_rt --move $P\>${P}_rt_pr
m n8k64 --shape "B2 H16 N8192 D64 fp16" --move $Q\>${Q}_rt --move cudnn\>${Q}_rt
m n2k128 --shape "B2 H16 N2048 D128 fp16" --aa $O --move $O\>${O}_rt --move $P\>${P}_pr --move $P\>${P}_rt_pr \
  --move cudnn\>$O --move cudnn\>${O}_rt --move cudnn\>${P}_rt_pr
m causal --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --move $H\>${H}_rt --move $H\>${H}_pr --move $H\>${H}_rt_pr \
  --move cudnn\>$H --move cudnn\>${H}_rt_pr
m n8k128 --shape "B2 H16 N8192 D128 fp16" --move $O\>${O}_rt --move cudnn\>${O}_rt
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
echo "elapsed $SECONDS s"
if [ $SECONDS -lt 420 ]; then
  run python3 $S/chain_ncu.py $W/src sdpa_cudnn ${P}_rt_pr > $OUT/chain_ncu.txt 2>&1; tail -6 $OUT/chain_ncu.txt
fi
tar czf $OUT/json.tgz -C $W --exclude=src .
[ -d $W/src ] && tar czf $OUT/src.tgz -C $W src
echo "total $SECONDS s"
