#!/usr/bin/env bash
# The device call that asks whether the agent (policy 17) uses the balance levers at B16 H16 N512 D64 fp16:
# 1. `run --budget 4` seeded with the suite's three-warpgroup persistent kernel (ws3_lazy_qp_ot_pm, 0.944x cuDNN):
#    predicted to propose ws_idle_tail_tile_major first and keep it at 1.01-1.03;
# 2. `run --budget 20` from the naive seed on a fresh database, interrupted by SIGINT at the call's end
#    (`run --resume` finishes it).
# Usage: SOURCE=<commit> bash results/2026-12-03_h200_round_order/agent_call.sh   (about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
P="--batch 16 --heads 16 --seqlen 512 --head-dim 64"
SEED="compute=wgmma layout=sw128 staging=tma exp=ex2 br=192 bc=128 warps=12 kv_stages=2 q_in=smem rescale_skip=on
  causal_mask=predicate persistent=on softmax=fused rescale_lazy=on pipeline=on kv_release=producer mainloop=ws
  q_load=tma o_store=tma p_pack=mid_wait"
one() {  # NAME LIMIT_S run options...
  local name=$1 lim=$2; shift 2; local d=/tmp/$name; mkdir -p $d
  { date -u +%FT%TZ; echo "python3 -m agent run --db $d/fa5090.db $*"
    (cd $d && time timeout -s INT $lim python3 -m agent run --db $d/fa5090.db "$@")
    echo "exit $?"; date -u +%FT%TZ; } > $OUT/$name.txt 2>&1
  tar czf $OUT/${name}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
  grep -E "comparator|KEPT|SLOWER|NULL|plateau|budget|final" $OUT/$name.txt | cut -c1-220 | tail -24
}
one seeded 200 --budget 4 $P $(for k in $SEED; do printf -- "--seed-knob %s " $k; done)
one naive $((575 - SECONDS)) --budget 20 $P
echo "total $SECONDS s"
