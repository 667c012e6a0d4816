#!/usr/bin/env bash
# Session 9's third device call on nvidia-h200-x2 (issue 9), one call carrying .whl:  bash scripts/device_session9c.sh
# s9b's three `baseline` processes on session 9's v6 run compared the naive seed at N2048 instead (the database copies
# were made after queue_begin had moved into the queue's private source copy, so there was no database to read):
# here the copies are made first. GPU 1: those three processes. GPU 0: B64L (the 128 x 64 tile on 4 warps with 0
# spills on sm_80/sm_90/sm_120: pv_slab, the predicate mask, one K/V stage) at causal N8192 and at D=64, budget 1
# each, ending on its SDPA flash comparison.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s9c; R=$OUT/s9c; mkdir -p $W $R
for i in 1 2 3; do cp results/2026-11-30_h200_session9/v6_naive_n8192.db $W/v6_naive_n8192_b$i.db || exit 1; done
COMMON="--time-budget 1.0"
S5U="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on softmax=fused epilogue=smem rescale_lazy=on copies=unrolled"
B64L="$S5U bc=64 persistent=on causal_mask=predicate pv_slab=on kv_stages=1"
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
queue_begin $W ${PHASE1:-240} 0
cp scripts/device_session9c.sh $W/device_session9c.sh.as_run
cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 b64l_c8192 python3 -m agent run $(seed $B64L) --seqlen 8192 --causal --budget 1 $NO_ARM --no-profile $COMMON --db $W/b64l_c8192.db
  one $P1 0 b64l_d64 python3 -m agent run $(seed $B64L) --seqlen 8192 --head-dim 64 --budget 1 $NO_ARM --no-profile $COMMON --db $W/b64l_d64.db; } > $W/q0.log 2>&1 &
{ for i in 1 2 3; do one $P1 1 v6_baseline_\$i python3 -m agent baseline --backend flash --backend cudnn --db $W/v6_naive_n8192_b\$i.db; done; } > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
bash $W/q.sh > $W/q.log 2>&1
WAITS=1 queue_wait $W $R s9c
