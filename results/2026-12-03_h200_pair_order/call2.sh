#!/usr/bin/env bash
# call 2: the A/A null under pipelined pairs, as the keep gate reads it: the N2048 agent run's final kernel (call 8 of
# ../2026-12-03_h200_agent_suite) and SDPA cuDNN each against itself in six fresh processes (2 s pairs, 0.3 ms lead);
# then, for the next session's N512 D64 work, the suite's D=64 kernel against cuDNN at B16 and B64 (does the gap shrink
# with 4x the work: a fixed cost, or a per-item one?)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
K="compute=wgmma layout=sw128 staging=tma exp=ex2 br=128 bc=128 warps=8 kv_stages=2 q_in=smem rescale_skip=on causal_mask=predicate persistent=on softmax=fused rescale_lazy=on pipeline=on kv_release=producer pingpong=on mainloop=ws q_load=tma pv_wide=on o_store=tma ws_producer_regs=40 p_pack=with_exp"
t=$SECONDS
timeout 110 python3 results/2026-12-02_h200_comparator_order/comparator_null.py --problem B2-H16-N2048-D128-float16-noncausal \
  --repeats 6 --budget 2 --backend cudnn --lead-ms 0.3 --knobs "$K" --out $OUT/null.json > $OUT/null.txt 2>&1
echo "null: exit $? in $((SECONDS - t)) s"; grep "vs itself" $OUT/null.txt
P=ws3_lazy_qp_ot_pm
for B in 16 64; do
  t=$SECONDS
  timeout 50 python3 scripts/device_suite.py /tmp/n512_b$B --plan margins --shape "B$B H16 N512 D64 fp16" --aa $P \
    --move cudnn\>$P >> $OUT/n512_batch.txt 2>&1
  echo "B$B: exit $? in $((SECONDS - t)) s"
done
grep -E "^A/A|^B" $OUT/n512_batch.txt | grep -v warmup
