#!/usr/bin/env bash
# call 1: the tier with O through the Q tile (o_store=tma_in_q) and exp_poly on the warp-specialised mainloop,
# then the suite against cuDNN (--plan best) with the new kernels among each head dim's candidates, the margins of
# the new knobs, and ncu's pipes (MUFU/xu, FMA, ALU) of three kernels beside cuDNN
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
D128="--only ws_op_bc176_lazy_w --only ws_op_bc176_lazy_hf_w --only ws_op_bc176_lazy_w_oq --only ws_op_bc176_lazy_hf_w_oq --only ws_op_bc176_lazy_w_oq_pq --only ws_op_lazy_qp_w_ot --only ws_op_lazy_qp_hf_w_ot --only ws_op_lazy_w_oq --only ws_op_lazy_hf_w_oq"
D64="--only ws3_lazy_qp_ot --only ws3_lazy_qp_hf_ot --only ws3_lazy_oq --only ws3_lazy_hf_oq --only ws3_lazy_qp_ot_pq --only ws3_lazy_qp_ot_ph --only ws3_lazy_qp_hf_ot_pq --only ws2c_ot --only ws2c_ot_pq --only ws3_lazy_oq_pq --only ws1c3_bc64_qp_ot"
mkdir -p $OUT/tier $OUT/best $OUT/margins $OUT/anatomy
timeout 200 python3 scripts/device_suite.py $OUT/tier --plan tier > $OUT/tier.log 2>&1
tail -3 $OUT/tier.log
timeout 330 python3 scripts/device_suite.py $OUT/best --plan best --budget 0.3 --confirm-budget 0.8 $D128 $D64 > $OUT/best.log 2>&1
tail -14 $OUT/best.log
gzip -f $OUT/tier/tier.json $OUT/best/best.json
