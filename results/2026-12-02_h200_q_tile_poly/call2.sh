#!/usr/bin/env bash
# call 2: the tier again with the shared-memory formula fixed (the BC-176 kernels with O through the Q tile launch),
# the D128 shapes against cuDNN with them among the candidates, and the margins of o_store=tma_in_q with the A/A
# null of the kernels it compares
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
mkdir -p $OUT/tier $OUT/best $OUT/margins
timeout 150 python3 scripts/device_suite.py $OUT/tier --plan tier > $OUT/tier.log 2>&1
tail -3 $OUT/tier.log
D128="--only ws_op_bc176_lazy_w --only ws_op_bc176_lazy_hf_w --only ws_op_bc176_lazy_w_oq --only ws_op_bc176_lazy_hf_w_oq --only ws_op_lazy_w_oq --only ws_op_lazy_hf_w_oq --only ws_op_lazy_qp_hf_w_ot"
timeout 200 python3 scripts/device_suite.py $OUT/best --plan best --budget 0.3 --confirm-budget 0.8 $D128 \
  --shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16" --shape "B4 H16 N4096 D128 bf16" \
  --shape "B2 H16 N8192 D128 fp16 causal" --shape "B2 H16 N2048 D128 fp16" > $OUT/best.log 2>&1
tail -8 $OUT/best.log
timeout 170 python3 scripts/device_suite.py $OUT/margins --plan margins --confirm-budget 0.8 \
  --move "ws_op_lazy_w>ws_op_lazy_w_oq" --move "ws_op_bc176_lazy_w>ws_op_bc176_lazy_w_oq" --move "ws_op_lazy_qp_w_ot>ws_op_lazy_w_oq" \
  --move "ws3_lazy>ws3_lazy_oq" --move "ws3_lazy_qp_ot>ws3_lazy_qp_ot_pq" --move "ws2c_ot>ws2c_ot_pq" --move "ws3_lazy_oq>ws3_lazy_oq_pq" \
  --aa ws_op_lazy_w_oq --aa ws3_lazy_oq \
  --shape "B4 H16 N4096 D128 bf16" --shape "B2 H16 N8192 D128 fp16" --shape "B16 H16 N512 D64 fp16" --shape "B2 H16 N8192 D64 fp16" > $OUT/margins.log 2>&1
tail -30 $OUT/margins.log
gzip -f $OUT/tier/tier.json $OUT/best/best.json
