#!/usr/bin/env bash
# call 1: pair_order.py at the run's kernels (N2048 D128: its best against itself and against two NULL'd levers) and
# at two D=64 suite kernels against themselves, under the synchronised pairs (lead 0.3 ms and 1 ms) and pipelined pairs
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S="B2 H16 N2048 D128 fp16"; P=ws3_lazy_qp_ot_pm
time timeout 560 python3 results/2026-12-03_h200_pair_order/pair_order.py $OUT --kernels results/2026-12-03_h200_pair_order/kernels.json \
  --pair "$S:best:best" --pair "$S:best:lazy" --pair "$S:best:mid_wait" \
  --pair "B2 H16 N8192 D64 fp16:$P:$P" --pair "B16 H16 N512 D64 fp16:$P:$P" \
  --mode sync@0.3 --mode sync@1 --mode pipelined@0.3 --repeats 3 --budget 1.5 2>&1 | tee $OUT/pair_order.txt | grep -v "^WARN"
