#!/usr/bin/env bash
# Session 8's second device call on nvidia-h200-x2 (issue 9), carrying .whl:
#   FIRST=30 bash scripts/device_session8b.sh start; then at once bash scripts/device_session8b.sh wait
# GPU 0 (in this order: the covering tier at half, the two screens, the covering tier at quarter, the Hopper tier):
#   the tier with exp_poly (a share of P's exponentials by a cubic on the FMA pipe, not bitwise) moved to
#   half and to quarter wherever valid in the covering set and in the Hopper set; then exp_poly's two levers
#   measured against S5 unrolled (session 8's 1.011x kernel) at N8192 fp16 and at causal N32768 bf16 (`run
#   --screen` with every other lever excluded: the agent's band for them is below t_keep, so only a screen
#   measures them).
# GPU 1: the ">= 1.0x SDPA flash" kernels again in fresh processes (`baseline` three times on the BC-64 run's best,
#   twice on S5 unrolled, twice at D=64), then agent v5 from the BC-64 run's best (budget 5, arm excluded) and
#   from it at D=64 (budget 2). Each baseline works on a copy of the recorded database.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s8b; R=$OUT/s8b; mkdir -p $W $R
S8=results/2026-11-30_h200_session8
COMMON="--time-budget 1.5"
S5U="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on softmax=fused epilogue=smem rescale_lazy=on copies=unrolled"
B64="$S5U bc=64 persistent=on"  # the BC-64 run's best (stacked64_n8192)
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-540} 0
  cp scripts/device_session8b.sh $W/device_session8b.sh.as_run
  for n in stacked64_n8192 copies_n8192 mma_d64; do for i in 1 2 3; do cp $S8/$n.db $W/${n}_b$i.db; done; done
  ONLY_POLY=$(PYTHONPATH=/tmp/site:$PWD python3 -c "from agent.levers import CATALOG; print(' '.join('--exclude-lever ' + l.name for l in CATALOG if not l.name.startswith('exp_poly')))")
  cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 ladder_poly_half python3 scripts/device_ladder.py $W/ladder_poly_half --move exp_poly=half
  one $P1 0 poly_n8192 python3 -m agent run $(seed $S5U) --seqlen 8192 --screen --budget 2 $ONLY_POLY --no-profile $COMMON --db $W/poly_n8192.db
  one $P1 0 poly_c32768 python3 -m agent run $(seed $S5U) --seqlen 32768 --causal --dtype bfloat16 --screen --budget 2 $ONLY_POLY --no-profile $COMMON --db $W/poly_c32768.db
  one $P1 0 ladder_poly_quarter python3 scripts/device_ladder.py $W/ladder_poly_quarter --move exp_poly=quarter
  one $P1 0 hopper_poly_half python3 scripts/device_ladder.py $W/hopper_poly_half --hopper --move exp_poly=half; } > $W/q0.log 2>&1 &
{ for i in 1 2 3; do one $P1 1 b64_baseline_\$i python3 -m agent baseline --backend flash --backend cudnn --db $W/stacked64_n8192_b\$i.db; done
  for i in 1 2; do one $P1 1 s5u_baseline_\$i python3 -m agent baseline --backend flash --backend cudnn --db $W/copies_n8192_b\$i.db; done
  for i in 1 2; do one $P1 1 d64_baseline_\$i python3 -m agent baseline --backend flash --backend cudnn --db $W/mma_d64_b\$i.db; done
  one $P1 1 b64_more python3 -m agent run $(seed $B64) --seqlen 8192 --budget 5 $NO_ARM --no-profile $COMMON --db $W/b64_more.db
  one $P1 1 b64_d64 python3 -m agent run $(seed $B64) --seqlen 8192 --head-dim 64 --budget 2 $NO_ARM --no-profile $COMMON --db $W/b64_d64.db; } > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
  queue_start $W ${FIRST:-30}
  exit 0
fi
queue_wait $W $R s8b
