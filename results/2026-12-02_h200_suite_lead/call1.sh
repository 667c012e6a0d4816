#!/usr/bin/env bash
# call 1: the suite of eleven shapes against SDPA cuDNN and flash with today's source (the strided entry, 4-D tensor
# maps) and the paired timer's 0.3 ms lead (the default since 2026-12-02_h200_comparator_order): plan `best` over the
# kernels that won a shape in 2026-12-02_h200_q_tile_poly and their neighbours, each shape's best confirmed in a
# fresh process. Before it, results/2026-12-02_h200_fast_run/call5's run (cut at 320 s) resumed to its end
# (`run --resume 1`, FA5090_PROFILE_INPUTS=driver as it started), for its closing comparator rows
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
mkdir -p $OUT/best /tmp/d128
F=$PWD/results/2026-12-02_h200_fast_run
tar xJf $F/call5/d128_db.tar.xz -C /tmp/d128
{ date -u +%FT%TZ; echo "FA5090_PROFILE_INPUTS=driver python3 -m agent run --db /tmp/d128/fa5090.db --resume 1"
  ( cd /tmp/d128 && time FA5090_PROFILE_INPUTS=driver timeout -s INT 130 python3 -m agent run --db /tmp/d128/fa5090.db --resume 1 )
  echo "exit $?"; date -u +%FT%TZ; } > $OUT/resume.txt 2>&1
tar czf $OUT/resume_db.tgz -C /tmp/d128 fa5090.db fa5090_artifacts 2>/dev/null
tail -6 $OUT/resume.txt
ONLY="--only ws_op_lazy_w_oq --only ws_op_lazy_hf_w_oq --only ws_op_bc176_lazy_w_oq --only ws_op_bc176_lazy_hf_w_oq
      --only ws_op_bc176_lazy_hf_w --only ws_op_bc176_lazy_w --only ws_op_lazy_qp_hf_w_ot --only ws_op_lazy_qp_w_ot
      --only ws3_lazy_qp_ot --only ws3_lazy_oq --only ws3_lazy_hf_oq --only ws2c_ot --only ws3_lazy_qp_hf_ot"
{ echo "python3 scripts/device_suite.py \$OUT/best --plan best --budget 0.3 --confirm-budget 0.8 $ONLY"
  time timeout ${SECS:-390} python3 scripts/device_suite.py $OUT/best --plan best --budget 0.3 --confirm-budget 0.8 $ONLY
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -f $OUT/best/best.json
tail -16 $OUT/best.log
