#!/usr/bin/env bash
# call 2: the tier of the causal one-item-a-CTA kernel with either packing, then plan best at the suite's three shapes
# below cuDNN and at N8192 D128 over the shape's best kernels with and without the packing (screen against cuDNN,
# then the best and the arm confirmed in a fresh process against cuDNN and flash)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/pack2; mkdir -p $W
run() { echo "\$ $*"; local t=$SECONDS; timeout 170 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier --only ws_op_lazy_hf_w_oq_pk --only ws_op_lazy_hf_w_oq_pm > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
C="ws2c_ot ws2c_ot_pk ws3_lazy_qp_ot ws3_lazy_qp_ot_pm ws_op_lazy_qp_w_ot_pr_pm ws_op_lazy_w_oq ws_op_lazy_w_oq_pk
   ws_op_lazy_qp_w_ot_pr_pk ws_op_lazy_qp_hf_w_ot ws_op_lazy_qp_hf_w_ot_pm ws_op_lazy_hf_w_oq ws_op_lazy_hf_w_oq_pk
   ws_op_lazy_hf_w_oq_pm ws_op_bc176_lazy_w_oq"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
{ time timeout 400 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B16 H16 N512 D64 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --shape "B2 H16 N2048 D128 fp16" \
    --shape "B2 H16 N8192 D128 fp16"
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c $W/best/best.json > $OUT/best.json.gz
tar czf $OUT/tier.tgz -C $W tier
tail -12 $OUT/best.log
echo "total $SECONDS s"
