#!/usr/bin/env bash
# The balance levers' margins under the agent's own timer, in fresh processes: the seeded agent run (call2) read
# ws_idle_tail_tile_major at 1.0057 and its replicate at 0.9955, where device_suite's one process read 1.0216.
# null_builds.py (../2026-12-03_cpu_null_builds) times, in each of 8 fresh processes, A/A, A against the same machine
# code from another library (A/A'), and A/B: here A the suite's kernel, B it with the lever.
# Then the short-items mainloop move from the naive-seed run's final, and the snake's margin while time is left.
# Usage: SOURCE=<commit> bash results/2026-12-03_h200_round_order/replicate_call.sh   (about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
N=results/2026-12-03_cpu_null_builds/null_builds.py
timeout 230 python3 $N /tmp/nb_tail --shape "B16 H16 N512 D64 fp16" --a ws3_lazy_qp_ot_pm --b ws3_lazy_qp_hf_ot_pm_ts \
  --repeats 8 > $OUT/tail.txt 2>&1; echo "tail: exit $?"
cp /tmp/nb_tail/null_builds.json $OUT/tail.json
# the three-warpgroup mainloop with Q and O by TMA on the persistent schedule as one move (policy 18), from the
# naive-seed run's final (call2): the plain mainloop moves, measured there (0.844, 0.805), left out
d=/tmp/short; mkdir -p $d
{ echo "python3 -m agent run --db $d/fa5090.db --budget 2 (seeded with the naive run's final)"
  (cd $d && time timeout -s INT 120 python3 -m agent run --db $d/fa5090.db --budget 2 --batch 16 --heads 16 \
    --seqlen 512 --head-dim 64 $(for k in compute=wgmma layout=sw128 staging=tma exp=ex2 br=64 bc=64 warps=4 \
    kv_stages=2 q_in=smem softmax=fused copies=unrolled; do printf -- "--seed-knob %s " $k; done) \
    --exclude-lever ws_mainloop_three_warpgroups --exclude-lever ws_mainloop); echo "exit $?"; } > $OUT/short.txt 2>&1
tar czf $OUT/short_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
grep -E "^#|KEPT|SLOWER|NULL|cuDNN" $OUT/short.txt | cut -c1-200
if [ $SECONDS -lt 400 ]; then
  timeout $((560 - SECONDS)) python3 $N /tmp/nb_snake --shape "B2 H16 N8192 D128 fp16 causal" \
    --a ws_op_lazy_qp_hf_w_ot_pr_pk --b ws_op_lazy_qp_hf_w_ot_pr_pk_sn --repeats 4 > $OUT/snake.txt 2>&1
  echo "snake: exit $?"; cp /tmp/nb_snake/null_builds.json $OUT/snake.json
else echo "snake: not run, $SECONDS s elapsed"; fi
grep -E "^A/|^#" $OUT/tail.txt $OUT/snake.txt 2>/dev/null; tail -4 $OUT/tail.txt
echo "total $SECONDS s"
