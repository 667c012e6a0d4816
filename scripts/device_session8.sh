#!/usr/bin/env bash
# The next session's device work on nvidia-h200-x2 (written in session 7, not yet run), carrying .whl:
#   bash scripts/device_session8.sh start   (device tool, kind nvidia-h200-x2)
#   bash scripts/device_session8.sh wait    (at once after it, on the same warm machine; again if needed)
# Phase 1 (PHASE1 s):
#   GPU 0: agent v5 (the default) from the naive seed at N8192, budget 20, profiled: session 7's v4 run
#          reached the arm (1.685x SDPA flash) and then spent 12 experiments on compounds of levers that
#          had lost at that best; v5 carries such a loss to the moves that share the lever. Does it spend
#          them on softmax_ffma / lazy_rescale (1.85x in session 7) or stop on the plateau?
#   GPU 1: the arm at causal N8192 and at D=64 N8192 (issue 10's stretch beyond the one shape; issue 9
#          asks >= 0.95x at causal and D=64): a budget-4 agent run from session 7's 0.94x-cuDNN kernel at
#          each shape, then `baseline --backend flash --backend cudnn` on each run's best.
# Phase 2 (PHASE2 s): GPU 0: v5 resumed if phase 1 cut it. GPU 1: issue 9, mma.sync at D=64: agent v5
#   with wgmma excluded (--exclude-lever wgmma hopper_tile tma tma_ring) from the naive seed, budget 14.
# Everything lands in $OUT/s8/s8.tgz with a summary (one archive: the device tool returns a bounded
# number of files); copy to results/<date>_h200_session8/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s8; R=$OUT/s8; mkdir -p $W $R
COMMON="--time-budget 1.5"
ARM="compute=wgmma layout=sw128 staging=tma exp=ex2 q_in=smem br=128 warps=8 bc=64 kv_stages=2 rescale_skip=on rescale_lazy=on softmax=fused"
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-700} ${PHASE2:-560}
  cp scripts/device_session8.sh $W/device_session8.sh.as_run
  cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 v5_naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $COMMON --db $W/v5_naive_n8192.db
  one $P2 0 v5_naive_n8192_resumed python3 -m agent run --resume --db $W/v5_naive_n8192.db; } > $W/q0.log 2>&1 &
{ one $P1 1 arm_c8192 python3 -m agent run $(seed $ARM) --seqlen 8192 --causal --budget 4 $COMMON --db $W/arm_c8192.db
  one $P1 1 arm_c8192_baseline python3 -m agent baseline --backend flash --backend cudnn --db $W/arm_c8192.db
  one $P1 1 arm_d64 python3 -m agent run $(seed $ARM) --seqlen 8192 --head-dim 64 --budget 4 $COMMON --db $W/arm_d64.db
  one $P1 1 arm_d64_baseline python3 -m agent baseline --backend flash --backend cudnn --db $W/arm_d64.db
  one $P2 1 mma_d64 python3 -m agent run --seqlen 8192 --head-dim 64 --budget 14 $NO_ARM $COMMON --db $W/mma_d64.db; } > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
  queue_start $W ${FIRST:-540}
  exit 0
fi
queue_wait $W $R s8
