#!/usr/bin/env bash
# Session 9's device work on nvidia-h200-x2 (issue 9), carrying .whl (the nine wheels of ../shared/device/wheels:
# numpy is on the machine):
#   FIRST=400 bash scripts/device_session9.sh start; then at once WAITS=112 bash scripts/device_session9.sh wait
# The new knob pv_slab (P made and multiplied into O one 16-key slab at a time, the mask against one per-row limit)
# takes FlashAttention-2's 128 x 64 tile on 4 warps (B64) to 0 spills on sm_80/sm_90 (results/2026-11-30_cpu_build_
# checks/pv_slab.txt); bitwise equal to its off build.
# GPU 0, in this order:
#   the covering set with copies=unrolled and pv_slab=on wherever valid, each paired bitwise with its loop/off build;
#   the lever alone (every other lever excluded, --screen) from B64 and from S5 unrolled (S5U) at N8192 fp16 and
#   at causal N32768 bf16 (its margin table); B64 with pv_slab against SDPA flash and cuDNN in three fresh
#   processes (`baseline --knob`); random search from the naive seed at N8192 (budget 20, arm excluded, RNG seed
#   0: the reference a search has to beat); agent v6 from B64 with pv_slab (budget 6, profiled), then at causal
#   N8192 and at D=64 (budget 2 each), each ending on its SDPA flash comparison.
# GPU 1: agent v6 (the default) from the naive seed at N8192 fp16, budget 20, the wgmma arm excluded, profiled:
#   session 8's v6 run was cut at #17 by the call's limit, before its SDPA comparison.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s9; R=$OUT/s9; mkdir -p $W $R
COMMON="--time-budget 1.0"
S5U="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on softmax=fused epilogue=smem rescale_lazy=on copies=unrolled"
B64="$S5U bc=64 persistent=on"
knob() { for k in $*; do printf -- '--knob %s ' $k; done; }  # --knob for each NAME=VALUE (baseline)
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-950} 0
  cp scripts/device_session9.sh $W/device_session9.sh.as_run
  ONLY_SLAB=$(PYTHONPATH=/tmp/site:$PWD python3 -c "from agent.levers import CATALOG; print(' '.join('--exclude-lever ' + l.name for l in CATALOG if l.name != 'pv_slab'))")
  cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 ladder_slab python3 scripts/device_ladder.py $W/ladder_slab --copies unrolled --move pv_slab=on
  one $P1 0 slab_b64_n8192 python3 -m agent run $(seed $B64) --seqlen 8192 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_b64_n8192.db
  one $P1 0 slab_b64_c32768 python3 -m agent run $(seed $B64) --seqlen 32768 --causal --dtype bfloat16 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_b64_c32768.db
  one $P1 0 slab_s5u_n8192 python3 -m agent run $(seed $S5U) --seqlen 8192 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_s5u_n8192.db
  one $P1 0 slab_s5u_c32768 python3 -m agent run $(seed $S5U) --seqlen 32768 --causal --dtype bfloat16 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_s5u_c32768.db
  for i in 1 2 3; do one $P1 0 b64s_baseline_\$i python3 -m agent baseline $(knob $B64 pv_slab=on) --seqlen 8192 --backend flash --backend cudnn; done
  one $P1 0 random_naive_n8192 python3 -m agent run --strategy random --rng-seed 0 --seqlen 8192 --budget 20 $NO_ARM --no-profile $COMMON --db $W/random_naive_n8192.db
  one $P1 0 b64s_more python3 -m agent run $(seed $B64 pv_slab=on) --seqlen 8192 --budget 6 $NO_ARM $COMMON --db $W/b64s_more.db
  one $P1 0 b64s_c8192 python3 -m agent run $(seed $B64 pv_slab=on) --seqlen 8192 --causal --budget 2 $NO_ARM --no-profile $COMMON --db $W/b64s_c8192.db
  one $P1 0 b64s_d64 python3 -m agent run $(seed $B64 pv_slab=on) --seqlen 8192 --head-dim 64 --budget 2 $NO_ARM --no-profile $COMMON --db $W/b64s_d64.db; } > $W/q0.log 2>&1 &
one $P1 1 v6_naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $NO_ARM $COMMON --db $W/v6_naive_n8192.db > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
  queue_start $W ${FIRST:-400}
  exit 0
fi
queue_wait $W $R s9
