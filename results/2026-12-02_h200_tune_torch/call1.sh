#!/usr/bin/env bash
# call 1: `tune` of a Llama-3-8B-style attention (32 query heads over 8 K/V heads, D 128, bf16, causal; the
# config beside this script, 2 layers) at three N buckets, each search started from the warp-specialised kernel
# the suite found for causal D128 (heaviest first, O through the Q tile), 8 experiments a search; cut by SIGINT
# before the call's limit, resumed by call 2 (the same command)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
R=results/2026-12-02_h200_tune_torch
SEED="compute=wgmma layout=sw128 staging=tma exp=ex2 br=128 bc=128 warps=8 kv_stages=2 q_in=smem rescale_skip=on
      causal_mask=predicate cta_order=heaviest_first softmax=fused rescale_lazy=on pipeline=on kv_release=producer
      pingpong=on mainloop=ws pv_wide=on o_store=tma_in_q"
ARGS="--config $PWD/$R/llama_gqa_config.json --seqlen 2048 --seqlen 4096 --seqlen 8192 --batch 1 --budget 8"
for k in $SEED; do ARGS="$ARGS --seed-knob $k"; done
mkdir -p /tmp/tune && cd /tmp/tune
date -u +%FT%TZ > $OUT/tune.txt
echo "python3 -m agent tune $ARGS --db /tmp/tune/llama.db" >> $OUT/tune.txt
( time timeout -s INT ${SECS:-450} python3 -m agent tune $ARGS --db /tmp/tune/llama.db ) >> $OUT/tune.txt 2>&1
echo "exit $?" >> $OUT/tune.txt; date -u +%FT%TZ >> $OUT/tune.txt
tar czf $OUT/tune_db.tgz -C /tmp/tune llama.db llama_artifacts 2>/dev/null
tail -30 $OUT/tune.txt
