#!/usr/bin/env bash
# The next session's device work on nvidia-h200-x2 (written in session 5, not yet run), as
# scripts/device_session5.sh (which ran):
#   bash scripts/device_session6.sh start   (device tool, kind nvidia-h200-x2, carrying .whl)
#   bash scripts/device_session6.sh wait    (at once after it, on the same warm machine; again if needed)
# Phase 1, one queue per GPU, each step killed at the phase deadline:
#   GPU 1 (issue 10): the Hopper tier with TMA and the arm's pipeline (33 configurations of hopper_set, each
#          paired bitwise with its cp.async or pipeline-off build); the agent (v3: the arm's tuning levers, tma,
#          qk_pipeline) from the wgmma seed
#          at N8192, budget 16, profiled; the same from the TMA seed at causal N8192, budget 8.
#   GPU 0 (issues 11, 8-10): the fault battery (scripts/device_faults.sh, ~540 s; its $OUT is $W/faults_out,
#          since this call's $OUT is gone when the queue runs; it is packed into s6.tgz);
#          then `run --budget 20` from the naive seed at N8192 with agent v3 (does it reach the arm?).
# Phase 2 (issue 13), both GPUs: the whole catalog screened from the mma seed at N8192 on one GPU,
#   then with --gpus 2 (budget 40 each), after a --budget 1 run that fills their shared build cache.
# Everything lands in $OUT/s6/s6.tgz with a summary; copy to results/<date>_h200_session6/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s6; R=$OUT/s6; mkdir -p $W $R
COMMON="--time-budget 1.5"
WG="compute=wgmma layout=sw128 staging=cp_async exp=ex2 q_in=smem br=64 warps=4 bc=64 kv_stages=2"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-960} ${PHASE2:-600}
  cat > $W/q0.sh <<EOF
. $W/env.sh
[ -f scripts/device_faults.sh ] && mkdir -p $W/faults_out && OUT=$W/faults_out one $P1 0 faults bash scripts/device_faults.sh
one $P1 0 naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $COMMON --db $W/naive_n8192.db
touch $W/q0.done
EOF
  cat > $W/q1.sh <<EOF
. $W/env.sh
one $P1 1 hopper_tier python3 scripts/device_ladder.py $W/tier --hopper
one $P1 1 wgmma_n8192 python3 -m agent run $(seed $WG) --seqlen 8192 --budget 16 $COMMON --db $W/wgmma_n8192.db
one $P1 1 tma_c8192 python3 -m agent run $(seed $WG staging=tma) --seqlen 8192 --causal --budget 8 $COMMON --db $W/tma_c8192.db
touch $W/q1.done
EOF
  SCREEN="$(seed compute=mma layout=pad staging=cp_async exp=ex2) --seqlen 8192 --screen --no-profile $COMMON"
  queue_main $W $P2 "$SCREEN" 40
  queue_start $W ${FIRST:-560}
  exit 0
fi
# wait: until the queue is done (or this call's limit nears), then pack what there is
queue_wait $W $R s6
