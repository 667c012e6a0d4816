#!/usr/bin/env bash
# The balance levers' margins under the agent's own timer, in fresh processes: the seeded agent run (call2) read
# ws_idle_tail_tile_major at 1.0057 and its replicate at 0.9955, where device_suite's one process read 1.0216.
# null_builds.py (../2026-12-03_cpu_null_builds) times, in each of 8 fresh processes, A/A, A against the same machine
# code from another library (A/A'), and A/B: here A the suite's kernel, B it with the lever.
# Usage: SOURCE=<commit> bash results/2026-12-03_h200_round_order/replicate_call.sh   (about 6 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
N=results/2026-12-03_cpu_null_builds/null_builds.py
timeout 230 python3 $N /tmp/nb_tail --shape "B16 H16 N512 D64 fp16" --a ws3_lazy_qp_ot_pm --b ws3_lazy_qp_hf_ot_pm_ts \
  --repeats 8 > $OUT/tail.txt 2>&1; echo "tail: exit $?"
cp /tmp/nb_tail/null_builds.json $OUT/tail.json
timeout 200 python3 $N /tmp/nb_snake --shape "B2 H16 N8192 D128 fp16 causal" --a ws_op_lazy_qp_hf_w_ot_pr_pk \
  --b ws_op_lazy_qp_hf_w_ot_pr_pk_sn --repeats 6 > $OUT/snake.txt 2>&1; echo "snake: exit $?"
cp /tmp/nb_snake/null_builds.json $OUT/snake.json
grep -E "^A/|^#" $OUT/tail.txt $OUT/snake.txt; tail -3 $OUT/tail.txt $OUT/snake.txt
echo "total $SECONDS s"
