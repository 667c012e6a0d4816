#!/usr/bin/env bash
# the comparator's order effect: SDPA cuDNN, SDPA flash and our warp-specialised kernel each against itself, with the
# pair's first block started on an idle GPU (lead 0, the timer as it is) and behind a 0.3 ms GPU spin (lead 0.3), two
# fresh processes at each of two problems; run after results/2026-12-02_h200_tune_torch/call3.sh in one device call
# (its wheels and PYTHONPATH); the first try of this script (with tune_torch call 3) passed a label where the script
# takes NAME=VALUE assignments and stopped before timing anything
export PYTHONPATH=/tmp/site:$PWD
WS="compute=wgmma layout=sw128 staging=tma exp=ex2 br=128 bc=128 warps=8 kv_stages=2 q_in=smem rescale_skip=on
    causal_mask=predicate softmax=fused rescale_lazy=on pipeline=on kv_release=producer pingpong=on mainloop=ws
    pv_wide=on o_store=tma_in_q"
( time python3 scripts/device_comparator_null.py --problem B2-H16-N2048-D128-float16-noncausal \
  --problem B2-H16-N8192-D128-float16-noncausal --repeats 2 --lead-ms 0 --lead-ms 0.3 --knobs "$(echo $WS)" \
  --out $OUT/cn_order.json ) > $OUT/cn_order.txt 2>&1
tail -26 $OUT/cn_order.txt
