#!/usr/bin/env bash
# call 1: P packed among its exponentials (p_pack=with_exp: overlapped, two P buffers; p_pack=mid_wait: overlapped, one
# buffer, the previous PV waited for halfway through the exponentials) on the suite's best kernels, and two CTAs an SM
# with the overlap (ws2c_o_ot): the tier (each bitwise against its kernel without it), paired margins at six suite
# shapes (each move against the kernel without it and against SDPA cuDNN, one process a shape, with the compared
# kernel's A/A null in three fresh processes), then a source-level ncu at N512 D64 if time is left
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/pack; mkdir -p $W
NEW="ws2c_ot_pk ws3_lazy_qp_ot_pk ws_op_lazy_qp_w_ot_pk ws_op_lazy_w_oq_pk ws_op_lazy_qp_hf_w_ot_pk ws_op_lazy_qp_w_ot_pr_pk
     ws_op_lazy_qp_hf_w_ot_pr_pk ws2c_o_ot ws2c_o_ot_pk ws3_lazy_qp_ot_pm ws_op_lazy_qp_w_ot_pm ws_op_lazy_w_oq_pm
     ws_op_lazy_qp_hf_w_ot_pm ws_op_lazy_qp_w_ot_pr_pm ws_op_lazy_qp_hf_w_ot_pr_pm ws2c_o_ot_pm"
ONLY=$(for n in $NEW; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
Q=ws3_lazy_qp_ot; R=ws_op_lazy_qp_w_ot_pr; O=ws_op_lazy_w_oq; H=ws_op_lazy_qp_hf_w_ot
m n512 --shape "B16 H16 N512 D64 fp16" --aa ws2c_ot --move ws2c_ot\>ws2c_ot_pk --move $Q\>${Q}_pm --move $Q\>${Q}_pk \
  --move $R\>${R}_pk --move $R\>${R}_pm --move ws2c_ot\>ws2c_o_ot --move ws2c_ot\>ws2c_o_ot_pm \
  --move cudnn\>ws2c_ot --move cudnn\>ws2c_ot_pk --move cudnn\>${Q}_pm
m n2k128 --shape "B2 H16 N2048 D128 fp16" --aa $O --move $O\>${O}_pk --move $O\>${O}_pm --move $R\>${R}_pk \
  --move cudnn\>$O --move cudnn\>${O}_pk --move cudnn\>${O}_pm
m causal --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --aa $H --move $H\>${H}_pk --move $H\>${H}_pm \
  --move ${H}_pr\>${H}_pr_pk --move cudnn\>$H --move cudnn\>${H}_pk --move cudnn\>${H}_pm
m n8k128 --shape "B2 H16 N8192 D128 fp16" --aa $O --move $O\>${O}_pk --move $O\>${O}_pm --move cudnn\>${O}_pk
m n8k64 --shape "B2 H16 N8192 D64 fp16" --aa $Q --move $Q\>${Q}_pm --move cudnn\>${Q}_pm
m gqa64 --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $Q --move $Q\>${Q}_pm --move cudnn\>$Q --move cudnn\>${Q}_pm
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
echo "elapsed $SECONDS s"
if [ $SECONDS -lt 430 ]; then
  run python3 results/2026-12-02_h200_softmax_chain/chain_ncu.py $W/src sdpa_cudnn ws2c_ot ws2c_ot_pk > $OUT/chain_ncu.txt 2>&1
  tail -6 $OUT/chain_ncu.txt
fi
tar czf $OUT/json.tgz -C $W --exclude=src .
[ -d $W/src ] && tar czf $OUT/src.tgz -C $W --exclude='*.ncu-rep' src
echo "total $SECONDS s"
