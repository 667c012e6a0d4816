#!/usr/bin/env bash
# call2's seeded run again with the sequential rule's floor (experiments.timing.SETTLE_MIN_S = 0.5 s of measured
# blocks before a pair may settle): does ws_idle_tail_tile_major read its fresh-process margin (1.017-1.019, call3)?
# Usage: SOURCE=<commit> bash results/2026-12-03_h200_round_order/settle_call.sh   (about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
d=/tmp/seeded; mkdir -p $d
SEED="compute=wgmma layout=sw128 staging=tma exp=ex2 br=192 bc=128 warps=12 kv_stages=2 q_in=smem rescale_skip=on
  causal_mask=predicate persistent=on softmax=fused rescale_lazy=on pipeline=on kv_release=producer mainloop=ws
  q_load=tma o_store=tma p_pack=mid_wait"
{ date -u +%FT%TZ; echo "python3 -m agent run --db $d/fa5090.db --budget 4 (B16 H16 N512 D64, seeded as call2)"
  (cd $d && time timeout -s INT 200 python3 -m agent run --db $d/fa5090.db --budget 4 --batch 16 --heads 16 \
    --seqlen 512 --head-dim 64 $(for k in $SEED; do printf -- "--seed-knob %s " $k; done)); echo "exit $?"
  date -u +%FT%TZ; } > $OUT/seeded.txt 2>&1
tar czf $OUT/seeded_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
grep -E "^#|KEPT|SLOWER|NULL|cuDNN|^time|^predictions" $OUT/seeded.txt | cut -c1-220; echo "total $SECONDS s"
