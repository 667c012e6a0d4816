#!/usr/bin/env bash
# Session 6's device work on nvidia-h200-x2 (carrying .whl), as scripts/device_session5.sh (which ran):
#   bash scripts/device_session6.sh start   (device tool, kind nvidia-h200-x2)
#   bash scripts/device_session6.sh wait    (at once after it, on the same warm machine; again if needed)
# Phase 1 (PHASE1 s), one queue per GPU, each step killed at the phase deadline:
#   GPU 0 (issue 11, then 10): the fault battery (scripts/device_faults.sh, ~540 s; its $OUT is
#          $W/faults_out, since the start call's $OUT is gone when the queue runs; packed into s6.tgz); then
#          agent v3 (the arm's tuning levers, tma, qk_pipeline) from the wgmma seed at N8192, profiled.
#   GPU 1 (issue 10, then 13): the Hopper tier with TMA and the arm's pipeline (33 configurations of
#          hopper_set, each paired bitwise with its cp.async or pipeline-off build); a --budget 1 screen run
#          that fills the screens' shared build cache; the screen of every lever from the mma seed at N8192 on
#          this one GPU; then the TMA seed at causal N8192 until the phase ends.
# Phase 2 (PHASE2 s, issue 13), both GPUs: the same screen with --gpus 2 (its cache already full), then
#   random search fanned out over both GPUs until the phase ends.
# Everything lands in $OUT/s6/s6.tgz with a summary; copy to results/<date>_h200_session6/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s6; R=$OUT/s6; mkdir -p $W $R
COMMON="--time-budget 1.5"
WG="compute=wgmma layout=sw128 staging=cp_async exp=ex2 q_in=smem br=64 warps=4 bc=64 kv_stages=2"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-900} ${PHASE2:-450}
  cp scripts/device_session6.sh $W/device_session6.sh.as_run
  SCREEN="$(seed compute=mma layout=pad staging=cp_async exp=ex2) --seqlen 8192 --screen --no-profile $COMMON"
  cat > $W/q0.sh <<EOF
. $W/env.sh
mkdir -p $W/faults_out && FAULTS_W=$W/faults OUT=$W/faults_out one $P1 0 faults bash scripts/device_faults.sh
one $P1 0 wgmma_n8192 python3 -m agent run $(seed $WG) --seqlen 8192 --budget ${WG_BUDGET:-14} $COMMON --db $W/wgmma_n8192.db
touch $W/q0.done
EOF
  cat > $W/q1.sh <<EOF
. $W/env.sh
one $P1 1 hopper_tier python3 scripts/device_ladder.py $W/tier --hopper
CACHE=/tmp/facache_dask one $P1 1 dask_warm python3 -m agent run $SCREEN --budget 1 --db $W/dask_warm.db
CACHE=/tmp/facache_dask one $P1 1 dask_one_gpu python3 -m agent run $SCREEN --budget ${SCREEN_BUDGET:-30} --db $W/dask_one_gpu.db
one $P1 1 tma_c8192 python3 -m agent run $(seed $WG staging=tma) --seqlen 8192 --causal --budget 8 $COMMON --db $W/tma_c8192.db
touch $W/q1.done
EOF
  cat > $W/q.sh <<EOF
. $W/env.sh
bash $W/q0.sh > $W/q0.log 2>&1 &
bash $W/q1.sh > $W/q1.log 2>&1 &
wait
CACHE=/tmp/facache_dask one $P2 0,1 dask_two_gpus python3 -m agent run $SCREEN --budget ${SCREEN_BUDGET:-30} --gpus 2 --db $W/dask_two_gpus.db
CACHE=/tmp/facache_dask one $P2 0,1 random_two_gpus python3 -m agent run $(seed compute=mma layout=pad staging=cp_async exp=ex2) --seqlen 8192 --strategy random --no-profile --budget 6 $COMMON --gpus 2 --db $W/random_two_gpus.db
touch $W/q.done
EOF
  queue_start $W ${FIRST:-540}
  exit 0
fi
# wait: until the queue is done (or this call's limit nears), then pack what there is
queue_wait $W $R s6
