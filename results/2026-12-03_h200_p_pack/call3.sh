#!/usr/bin/env bash
# call 3: plan best at the suite's other seven shapes, over each shape's recorded best kernels with and without a
# packing (the tier of the three new ones first)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/pack3; mkdir -p $W
run() { echo "\$ $*"; local t=$SECONDS; timeout 120 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier --only ws3_lazy_hf_oq_pm --only ws_op_bc176_lazy_hf_w_oq_pm \
  --only ws_op_bc176_lazy_w_pm > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
C="ws3_lazy_qp_ot ws3_lazy_qp_ot_pm ws3_lazy_hf_oq ws3_lazy_hf_oq_pm ws_op_lazy_w_oq ws_op_lazy_w_oq_pk
   ws_op_lazy_qp_w_ot_pr_pk ws_op_bc176_lazy_w ws_op_bc176_lazy_w_pm ws_op_bc176_lazy_hf_w_oq ws_op_bc176_lazy_hf_w_oq_pm
   ws_op_lazy_hf_w_oq_pk ws_op_lazy_qp_hf_w_ot_pm"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
{ time timeout 330 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B1 H16 N32768 D128 fp16" --shape "B2 H16 N8192 D128 fp16 causal" --shape "B2 H16 N8192 D64 fp16" \
    --shape "B4 H16 N4096 D128 bf16" --shape "B2 H16 N4096 D64 bf16 causal" --shape "B1 H32 N16384 D128 bf16 causal Hkv4" \
    --shape "B8 H16 N2048 D64 fp16 Hkv4"
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c $W/best/best.json > $OUT/best.json.gz
tail -14 $OUT/best.log
echo "total $SECONDS s"
