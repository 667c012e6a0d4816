#!/usr/bin/env bash
# call 1: the idle consumer warpgroup (tail_rows=skip) on the D=64 kernels of three consumer warpgroups, and the
# causal packing after the C7520 fix (p_pack=with_exp, its last PV issued from one site): the tier of each (bitwise
# against its kernel without it), paired margins at five suite shapes (each move against the kernel without it and
# against SDPA cuDNN, one process a shape, the compared kernel's A/A null in three fresh processes), then ncu of the
# fixed packing beside cuDNN at causal N1024 GQA and of the idle-row kernel at N512 D64.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/ts; mkdir -p $W
NEW="ws3_lazy_qp_ot_ts ws3_lazy_qp_ot_pm_ts ws3_lazy_hf_oq_pm_ts ws3_lazy_oq_ts
     ws_op_lazy_qp_hf_w_ot_pk ws_op_lazy_w_oq_pk ws_op_lazy_qp_w_ot_pr_pk ws_op_lazy_hf_w_oq_pk"
ONLY=$(for n in $NEW; do printf -- "--only %s " $n; done)
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
P=ws3_lazy_qp_ot_pm; Q=ws3_lazy_qp_ot; C=ws3_lazy_hf_oq_pm; H=ws_op_lazy_qp_hf_w_ot; F=ws_op_lazy_hf_w_oq
m n512 --shape "B16 H16 N512 D64 fp16" --aa $P --move $P\>${P}_ts --move $Q\>${Q}_ts --move ws3_lazy_oq\>ws3_lazy_oq_ts \
  --move cudnn\>$P --move cudnn\>${P}_ts
m gqa64 --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa $P --move $P\>${P}_ts --move cudnn\>${P}_ts
m causal64 --shape "B2 H16 N4096 D64 bf16 causal" --aa $C --move $C\>${C}_ts --move cudnn\>${C}_ts
m causal_gqa --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --aa ${H}_pm --move $H\>${H}_pk --move ${H}_pm\>${H}_pk \
  --move cudnn\>${H}_pm --move cudnn\>${H}_pk
m causal8k --shape "B2 H16 N8192 D128 fp16 causal" --aa ws_op_bc176_lazy_hf_w_oq_pm --move $F\>${F}_pk \
  --move ws_op_bc176_lazy_hf_w_oq_pm\>${F}_pk --move cudnn\>ws_op_bc176_lazy_hf_w_oq_pm --move cudnn\>${F}_pk
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
echo "elapsed $SECONDS s"
if [ $SECONDS -lt 440 ]; then
  run python3 scripts/device_anatomy.py $W/an --shape "B8 H32 N1024 D128 bf16 causal Hkv8=${H}_pk" \
    --shape "B16 H16 N512 D64 fp16=${P}_ts" --shape "B16 H16 N512 D64 fp16=$P" > $OUT/anatomy.txt 2>&1
  tail -12 $OUT/anatomy.txt
fi
tar czf $OUT/json.tgz -C $W --exclude=an .
[ -d $W/an ] && tar czf $OUT/an.tgz -C $W --exclude='*.ncu-rep' an
echo "total $SECONDS s"
