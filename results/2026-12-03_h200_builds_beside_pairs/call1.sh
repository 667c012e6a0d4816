#!/usr/bin/env bash
# call 1: pipelined pairs with and without a compile load beside them (compile_load.py: the agent's background
# build, ninja + nvcc at nice 10 on all cores but two). Four pairs, each in three fresh processes per condition,
# 1 s pairs with the 0.3 ms lead: the fast D=64 kernel (51 us) against itself and against its two-Q-tile build
# (0.9940 quiet in results/2026-12-03_h200_q_buffers), the N2048 D128 agent final against itself and its two-Q-tile
# build (0.9874 quiet there). Quiet first, then loaded.   SOURCE=<commit> bash call1.sh   (about 4 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nproc; } > $OUT/gpu.txt
H=results/2026-12-03_h200_builds_beside_pairs
P=ws3_lazy_qp_ot_pm; R=ws_op_lazy_qp_w_ot_pr_pk
pairs=(--pair "B16 H16 N512 D64 fp16:$P:$P" --pair "B16 H16 N512 D64 fp16:$P:${P}_q2"
       --pair "B2 H16 N2048 D128 fp16:$R:$R" --pair "B2 H16 N2048 D128 fp16:$R:${R}_q2")
t=$SECONDS
timeout 200 python3 results/2026-12-03_h200_pair_order/pair_order.py /tmp/quiet "${pairs[@]}" --mode pipelined@0.3 \
  --repeats 3 --budget 1 > $OUT/quiet.txt 2>&1
echo "quiet: exit $? in $((SECONDS - t)) s"
setsid python3 $H/compile_load.py /tmp/loadcache > $OUT/load.txt 2>&1 &
load=$!
sleep 8; echo "compilers running: $(pgrep -c -f cicc\|ptxas\|nvcc)"
t=$SECONDS
timeout 200 python3 results/2026-12-03_h200_pair_order/pair_order.py /tmp/loaded "${pairs[@]}" --mode pipelined@0.3 \
  --repeats 3 --budget 1 > $OUT/loaded.txt 2>&1
echo "loaded: exit $? in $((SECONDS - t)) s"
echo "compilers running at the end: $(pgrep -c -f cicc\|ptxas\|nvcc)"; uptime
kill -- -$load 2>/dev/null; pkill -f compile_load.py; pkill ninja; pkill -f "nvcc|cicc|ptxas"; sleep 1
cp /tmp/quiet/pair_order.json $OUT/quiet.json; cp /tmp/loaded/pair_order.json $OUT/loaded.json
grep process $OUT/quiet.txt $OUT/loaded.txt | sed 's/.*txt://' | cut -c1-160
