#!/usr/bin/env bash
# Session 8's third device call on nvidia-h200-x2 (issue 9's last proof, agent v6), carrying .whl:
#   FIRST=30 bash scripts/device_session8c.sh start; then at once bash scripts/device_session8c.sh wait
# GPU 0: agent v6 (the default) from the naive seed at N8192 fp16, budget 20, the wgmma arm excluded, profiled: v5's
#   run of session 8 (s8/naive_mma_n8192) stopped at 0.969x SDPA flash on the swizzled layout, having put 83% of
#   qk_pipeline+padding's loss on padding; v6 judges padding alone by its own band (tests/test_session8.py).
# GPU 1: random search on the same problem and space (budget 20, arm excluded, RNG seed 0): the reference a
#   search has to beat, on the space with copies and exp_poly.
# One phase of PHASE1 s (the device session's last minutes); --time-budget 1.0 s a paired measurement.
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s8c; R=$OUT/s8c; mkdir -p $W $R
COMMON="--time-budget 1.0"
NO_ARM="--exclude-lever wgmma --exclude-lever hopper_tile --exclude-lever tma --exclude-lever tma_ring"
if [ "$1" = start ]; then
  queue_begin $W ${PHASE1:-530} 0
  cp scripts/device_session8c.sh $W/device_session8c.sh.as_run
  cat > $W/q.sh <<EOF2
. $W/env.sh
one $P1 0 v6_naive_n8192 python3 -m agent run --seqlen 8192 --budget 20 $NO_ARM $COMMON --db $W/v6_naive_n8192.db > $W/q0.log 2>&1 &
one $P1 1 random_naive_n8192 python3 -m agent run --strategy random --rng-seed 0 --seqlen 8192 --budget 20 $NO_ARM --no-profile $COMMON --db $W/random_naive_n8192.db > $W/q1.log 2>&1 &
wait
touch $W/q.done
EOF2
  queue_start $W ${FIRST:-30}
  exit 0
fi
queue_wait $W $R s8c
