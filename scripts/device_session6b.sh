#!/usr/bin/env bash
# Session 6, third call on the same warm machine (after `device_session6.sh wait`): wait for the queue,
# pack it, then the wgmma tile the causal TMA run kept (t128x64w8, two consumer warpgroups), non-causal
# N8192 from two seeds side by side, one per GPU: TMA (GPU 0) and cp.async (GPU 1), --budget 2
# --no-profile; each run ends with its final kernel paired against SDPA flash (its comparator row).
set -uo pipefail
. scripts/device_queue.sh
W=/tmp/w/s6; R=$OUT/s6; mkdir -p $R
WAITS=${WAITS:-50} queue_wait $W $R s6 > /dev/null
. $W/env.sh
cp scripts/device_session6b.sh $W/device_session6b.sh.as_run
WG="compute=wgmma layout=sw128 exp=ex2 q_in=smem br=128 warps=8 bc=64 kv_stages=2"
DL=$(( $(date +%s) + ${RUN_S:-240} ))
one $DL 0 tma_t128_n8192 python3 -m agent run $(seed $WG staging=tma) --seqlen 8192 --budget 2 --no-profile --time-budget 1.5 --db $W/tma_t128_n8192.db &
one $DL 1 cpa_t128_n8192 python3 -m agent run $(seed $WG staging=cp_async) --seqlen 8192 --budget 2 --no-profile --time-budget 1.5 --db $W/cpa_t128_n8192.db &
wait
WAITS=1 queue_wait $W $R s6
