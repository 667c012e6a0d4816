#!/usr/bin/env bash
# The next session's device work on nvidia-h200-x2 (written in session 6, not yet run), carrying .whl:
#   bash scripts/device_session7.sh start   (device tool, kind nvidia-h200-x2)
#   bash scripts/device_session7.sh wait    (at once after it, on the same warm machine; again if needed)
# Phase 1 (PHASE1 s):
#   GPU 0: (issue 10's stretch) `baseline` of session 6's 1.743x kernel (tma_t128_n8192.db, copied)
#          against SDPA flash and SDPA cuDNN, paired; then (issue 11) the fault battery's kill phase with its
#          reference run (PHASES="build ref kills"), planned on what is left of phase 1.
#   GPU 1 (issues 8-10): the Hopper tier (40 configurations: kv_release last_warp and producer, their first GPU run, each
#          paired bitwise with its cp.async build); agent v4 from the naive seed at N8192, budget 20, profiled:
#          does it reach the arm, TMA and the two-warpgroup tile on its own diagnosis?
# Phase 2 (PHASE2 s): GPU 0 (issue 13) a --budget 1 run that fills the screens' shared build cache, then the
#   screen of every single lever (singles first) from the mma seed at N8192 on one GPU. GPU 1: the naive
#   run resumed if phase 1 cut it (`run --resume`); (issue 10's margin table of the arm's knobs) the screen
#   of every single lever on session 6's 1.743x kernel (TMA t128x64w8, lazy rescale); agent v4 on that
#   kernel (budget 3, profiled: its barrier_bound reading should bring last_warp_refill first). If the tier
#   fails kv_release, stop there and debug.
# Phase 3 (PHASE3 s): the same screen with --gpus 2; side_by_side.md compares the two.
# Everything lands in $OUT/s7/s7.tgz with a summary; copy to results/<date>_h200_session7/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s7; R=$OUT/s7; mkdir -p $W $R
COMMON="--time-budget 1.5"
WG="compute=wgmma layout=sw128 staging=cp_async exp=ex2 q_in=smem br=64 warps=4 bc=64 kv_stages=2"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-680} ${PHASE2:-520}
  P3=$(( P2 + ${PHASE3:-300} ))
  cp scripts/device_session7.sh $W/device_session7.sh.as_run
  cp results/2026-11-30_h200_session6/tma_t128_n8192.db $W/baseline_tma_t128.db
  SCREEN="$(seed compute=mma layout=pad staging=cp_async exp=ex2) --seqlen 8192 --screen --no-profile $COMMON "
  ARM="$(seed $WG br=128 warps=8 staging=tma rescale_skip=on rescale_lazy=on)"  # session 6's 1.743x kernel
  cat > $W/q.sh <<EOF
. $W/env.sh
{ one $P1 0 baseline_tma_t128 python3 -m agent baseline --backend flash --backend cudnn --db $W/baseline_tma_t128.db
  mkdir -p $W/faults_out && FAULTS_W=$W/faults OUT=$W/faults_out PHASES="build ref kills" TOTAL=\$(( $P1 - \$(date +%s) - 20 )) one $P1 0 faults bash scripts/device_faults.sh
  CACHE=/tmp/facache_dask one $P2 0 dask_warm python3 -m agent run $SCREEN --budget 1 --db $W/dask_warm.db
  CACHE=/tmp/facache_dask one $P2 0 dask_one_gpu python3 -m agent run $SCREEN --budget ${SCREEN_BUDGET:-24} --db $W/dask_one_gpu.db; } > $W/q0.log 2>&1 &
{ one $P1 1 hopper_tier python3 scripts/device_ladder.py $W/tier --hopper
  one $P1 1 naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $COMMON --db $W/naive_n8192.db
  one $P2 1 naive_n8192_resumed python3 -m agent run --resume --db $W/naive_n8192.db
  one $P2 1 arm_screen python3 -m agent run $ARM --seqlen 8192 --screen --no-profile --budget 14 $COMMON --db $W/arm_screen.db
  one $P2 1 release_t128_n8192 python3 -m agent run $ARM --seqlen 8192 --budget 3 $COMMON --db $W/release_t128_n8192.db; } > $W/q1.log 2>&1 &
wait
CACHE=/tmp/facache_dask one $P3 0,1 dask_two_gpus python3 -m agent run $SCREEN --budget ${SCREEN_BUDGET:-24} --gpus 2 --db $W/dask_two_gpus.db
touch $W/q.done
EOF
  queue_start $W ${FIRST:-540}
  exit 0
fi
queue_wait $W $R s7
