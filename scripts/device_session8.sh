#!/usr/bin/env bash
# Session 8's device work on nvidia-h200-x2 (issue 9: mma.sync past FlashAttention-2), carrying .whl:
#   bash scripts/device_session8.sh start   (device tool, kind nvidia-h200-x2)
#   bash scripts/device_session8.sh wait    (at once after it, on the same warm machine; again if needed)
# The new knob copies=unrolled (lever unrolled_copies) takes ~300 of ~1,030 SASS instructions out of the key
# loop of session 5's best mma.sync kernel S5 (0.902x SDPA flash) and cuts t128x64w4's spill 116 -> 16 B.
# Phase 1 (PHASE1 s):
#   GPU 0: the covering set with copies=unrolled, each paired bitwise with its loop build; the lever alone
#          against S5 at N8192 fp16 (every other lever excluded, budget 1: its margin, and the final kernel
#          against SDPA flash); S5 unrolled on BC 64 (FlashAttention-2's 128 x 64 on 4 warps) against SDPA
#          flash and cuDNN (`baseline --knob`); agent v5 from S5 unrolled, budget 6, arm excluded, profiled.
#   GPU 1: agent v5 from the naive seed at N8192, budget 20, the wgmma arm excluded (issue 9's last proof).
# Phase 2 (PHASE2 s):
#   GPU 0: the lever alone against S5 at causal N32768 bf16; agent from S5 unrolled on BC 64 (budget 3); at
#          D=64 N8192 from S5 unrolled (budget 3).
#   GPU 1: the naive run resumed if phase 1 cut it; `baseline` of the phase-1 stacked run again (a second fresh
#          process); causal N8192 from S5 unrolled (budget 3).
# Everything lands in $OUT/s8/s8.tgz with a summary (one archive: the device tool returns a bounded number of
# files); copy to results/<date>_h200_session8/.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s8; R=$OUT/s8; mkdir -p $W $R
COMMON="--time-budget 1.5"
S5="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on softmax=fused epilogue=smem rescale_lazy=on"
knob() { for k in $*; do printf -- '--knob %s ' $k; done; }  # --knob for each NAME=VALUE (baseline)
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-600} ${PHASE2:-540}
  cp scripts/device_session8.sh $W/device_session8.sh.as_run
  ONLY_COPIES=$(PYTHONPATH=/tmp/site:$PWD python3 -c "from agent.levers import CATALOG; print(' '.join('--exclude-lever ' + l.name for l in CATALOG if l.name != 'unrolled_copies'))")
  cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 ladder_copies python3 scripts/device_ladder.py $W/ladder_copies --copies unrolled
  one $P1 0 copies_n8192 python3 -m agent run $(seed $S5) --seqlen 8192 --budget 1 $ONLY_COPIES --no-profile $COMMON --db $W/copies_n8192.db
  one $P1 0 t128x64_baseline python3 -m agent baseline $(knob $S5 copies=unrolled bc=64) --seqlen 8192 --backend flash --backend cudnn
  one $P1 0 stacked_n8192 python3 -m agent run $(seed $S5 copies=unrolled) --seqlen 8192 --budget 6 $NO_ARM $COMMON --db $W/stacked_n8192.db
  one $P2 0 copies_c32768 python3 -m agent run $(seed $S5) --seqlen 32768 --causal --dtype bfloat16 --budget 1 $ONLY_COPIES --no-profile $COMMON --db $W/copies_c32768.db
  one $P2 0 stacked64_n8192 python3 -m agent run $(seed $S5 copies=unrolled bc=64) --seqlen 8192 --budget 3 $NO_ARM --no-profile $COMMON --db $W/stacked64_n8192.db
  one $P2 0 mma_d64 python3 -m agent run $(seed $S5 copies=unrolled) --seqlen 8192 --head-dim 64 --budget 3 $NO_ARM --no-profile $COMMON --db $W/mma_d64.db; } > $W/q0.log 2>&1 &
{ one $P1 1 naive_mma_n8192 python3 -m agent run --seqlen 8192 --budget 20 $NO_ARM $COMMON --db $W/naive_mma_n8192.db
  one $P2 1 naive_mma_n8192_resumed python3 -m agent run --resume --db $W/naive_mma_n8192.db
  one $P2 1 stacked_n8192_baseline2 python3 -m agent baseline --backend flash --backend cudnn --db $W/stacked_n8192.db
  one $P2 1 mma_c8192 python3 -m agent run $(seed $S5 copies=unrolled) --seqlen 8192 --causal --budget 3 $NO_ARM --no-profile $COMMON --db $W/mma_c8192.db; } > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
  queue_start $W ${FIRST:-540}
  exit 0
fi
queue_wait $W $R s8
