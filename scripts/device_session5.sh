#!/usr/bin/env bash
# Session 5's device work on nvidia-h200-x2 (longer than one call, so as scripts/device_long.sh):
#   bash scripts/device_session5.sh start   (device tool, kind nvidia-h200-x2, carrying .whl)
#   bash scripts/device_session5.sh wait    (at once after it, on the same warm machine; again if needed)
# Phase 1, one queue per GPU, each step killed at the phase deadline:
#   GPU 0: `run --budget 20` from the naive seed at B2 H16 N8192 D128 fp16 (agent v2, the whole
#          catalog, wgmma included: issues 8, 9, 10); then the stacked mma.sync winners (the N8192
#          agent's final kernel + lazy_rescale + softmax_ffma, issue 9) as a seed, budget 6, no wgmma.
#   GPU 1: the wgmma probe (variants 8 and 9), the Hopper arm's tier (scripts/device_ladder.py
#          --hopper); a run seeded on the wgmma arm at N8192, budget 10 (issue 10); the stacked
#          mma.sync seed at causal N8192, budget 6, no wgmma (issue 9).
# Phase 2, both GPUs (issue 13): a screen of the mma seed at N8192 on one GPU, then the same with
#   --gpus 2 (as scripts/device_dask.sh, budget 12), after a --budget 1 run that fills the build cache.
# Everything lands in $OUT/s5/s5.tgz with a summary; copy to results/<date>_h200_session5/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s5; R=$OUT/s5; mkdir -p $W $R
COMMON="--time-budget 1.5"
FINAL="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on persistent=on"
STACKED="$FINAL rescale_lazy=on softmax=fused"
WG="compute=wgmma layout=sw128 staging=cp_async exp=ex2 q_in=smem br=64 warps=4 bc=64 kv_stages=2"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-1000} ${PHASE2:-420}
  cat > $W/q0.sh <<EOF
. $W/env.sh
one $P1 0 naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $COMMON --db $W/naive_n8192.db
one $P1 0 stacked_n8192 python3 -m agent run $(seed $STACKED) --seqlen 8192 --budget 6 --exclude-lever wgmma --no-profile $COMMON --db $W/stacked_n8192.db
touch $W/q0.done
EOF
  cat > $W/q1.sh <<EOF
. $W/env.sh
mkdir -p $W/probe
one $P1 1 wgmma_probe bash scripts/device_wgmma_probe.sh $W/probe
one $P1 1 hopper_tier python3 scripts/device_ladder.py $W/tier --hopper
one $P1 1 wgmma_n8192 python3 -m agent run $(seed $WG) --seqlen 8192 --budget 10 $COMMON --db $W/wgmma_n8192.db
one $P1 1 stacked_c8192 python3 -m agent run $(seed $STACKED) --seqlen 8192 --causal --budget 6 --exclude-lever wgmma --no-profile $COMMON --db $W/stacked_c8192.db
touch $W/q1.done
EOF
  SCREEN="$(seed compute=mma layout=pad staging=cp_async exp=ex2) --seqlen 8192 --screen --no-profile $COMMON"
  queue_main $W $P2 "$SCREEN" 12
  queue_start $W ${FIRST:-560}
  exit 0
fi
# wait: until the queue is done (or this call's limit nears), then pack what there is
queue_wait $W $R s5
