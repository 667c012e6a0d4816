#!/usr/bin/env bash
# Session 9's second device call on nvidia-h200-x2 (issue 9), one call carrying .whl (the nine shared wheels):
#   bash scripts/device_session9b.sh
# From the first call (s9): pv_slab is KEPT 1.0351 on B64 at causal N32768 bf16 (where B64 spills) and SLOWER
# 0.9808 at N8192 fp16 (where it does not). On the CPU (results/2026-11-30_cpu_build_checks/pv_slab.txt,
# b64_lean_spills.txt): pv_slab with causal_mask=predicate and one K/V stage (B64L) is the 128 x 64 tile on 4 warps
# with 0 spills on sm_80, sm_90 and sm_120 in all 8 instantiations; with two stages (B64P) 0 on sm_80/sm_90.
# GPU 0: pv_slab alone (--screen, every other lever excluded) on B64 with the predicate mask at N8192 fp16 and at
#   causal N32768 bf16; B64P, B64L and B64 with the predicate mask against SDPA flash and cuDNN, two fresh
#   processes each (`baseline --knob`, B2 H16 N8192 D128 fp16).
# GPU 1: session 9's v6 run from the naive seed (s9/v6_naive_n8192, 1.010x in its own pair) against SDPA flash in
#   three more fresh processes (`baseline` on copies of its database); agent v6 from B64 (budget 6, profiled);
#   from B64P at causal N8192 and at D=64 (budget 2 each).
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s9b; R=$OUT/s9b; mkdir -p $W $R
S9=results/2026-11-30_h200_session9
COMMON="--time-budget 1.0"
S5U="compute=mma layout=pad staging=cp_async exp=ex2 br=128 warps=4 bc=32 kv_stages=2 q_in=smem rescale_skip=on softmax=fused epilogue=smem rescale_lazy=on copies=unrolled"
B64="$S5U bc=64 persistent=on"
B64PR="$B64 causal_mask=predicate"
B64P="$B64PR pv_slab=on"
B64L="$B64P kv_stages=1"
knob() { for k in $*; do printf -- '--knob %s ' $k; done; }
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
queue_begin $W ${PHASE1:-500} 0
cp scripts/device_session9b.sh $W/device_session9b.sh.as_run
for i in 1 2 3; do cp $S9/v6_naive_n8192.db $W/v6_naive_n8192_b$i.db; done
ONLY_SLAB=$(PYTHONPATH=/tmp/site:$PWD python3 -c "from agent.levers import CATALOG; print(' '.join('--exclude-lever ' + l.name for l in CATALOG if l.name != 'pv_slab'))")
cat > $W/q.sh <<EOF2
. $W/env.sh
{ one $P1 0 slab_pred_n8192 python3 -m agent run $(seed $B64PR) --seqlen 8192 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_pred_n8192.db
  one $P1 0 slab_pred_c32768 python3 -m agent run $(seed $B64PR) --seqlen 32768 --causal --dtype bfloat16 --screen --budget 1 $ONLY_SLAB --no-profile $COMMON --db $W/slab_pred_c32768.db
  for i in 1 2; do
    one $P1 0 b64p_baseline_\$i python3 -m agent baseline $(knob $B64P) --seqlen 8192 --backend flash --backend cudnn
    one $P1 0 b64l_baseline_\$i python3 -m agent baseline $(knob $B64L) --seqlen 8192 --backend flash --backend cudnn
    one $P1 0 b64pr_baseline_\$i python3 -m agent baseline $(knob $B64PR) --seqlen 8192 --backend flash --backend cudnn
  done; } > $W/q0.log 2>&1 &
{ for i in 1 2 3; do one $P1 1 v6_baseline_\$i python3 -m agent baseline --backend flash --backend cudnn --db $W/v6_naive_n8192_b\$i.db; done
  one $P1 1 b64_more python3 -m agent run $(seed $B64) --seqlen 8192 --budget 6 $NO_ARM $COMMON --db $W/b64_more.db
  one $P1 1 b64p_c8192 python3 -m agent run $(seed $B64P) --seqlen 8192 --causal --budget 2 $NO_ARM --no-profile $COMMON --db $W/b64p_c8192.db
  one $P1 1 b64p_d64 python3 -m agent run $(seed $B64P) --seqlen 8192 --head-dim 64 --budget 2 $NO_ARM --no-profile $COMMON --db $W/b64p_d64.db; } > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
bash $W/q.sh > $W/q.log 2>&1
WAITS=1 queue_wait $W $R s9b
