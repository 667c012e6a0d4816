#!/usr/bin/env bash
# call 1: the strided entry on the H200. (1) strided_check.py: six kernels through the tier, their outputs on a
# model's layouts bitwise against the contiguous call, refusals, and paired timing against the source before the
# change (base_kernel_src/, the kernel_src/*.cu* of commit d7acc79, carried untracked for this call only); (2) the
# tune_torch record's database exported again with today's source (`tune ... --export-torch`, nothing left to
# search), installed into a fresh venv, and its model check (transformers Llama, logits, prefill paired with the
# 0.3 ms lead now default)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
REPO=$PWD S=results/2026-12-02_h200_strided_layout R=results/2026-12-02_h200_tune_torch
{ echo "python3 $S/strided_check.py --base-src $S/base_kernel_src --out \$OUT"
  time timeout 300 python3 $S/strided_check.py --base-src $S/base_kernel_src --out $OUT; echo "exit $?"; } > $OUT/strided.txt 2>&1
SEED="compute=wgmma layout=sw128 staging=tma exp=ex2 br=128 bc=128 warps=8 kv_stages=2 q_in=smem rescale_skip=on
      causal_mask=predicate cta_order=heaviest_first softmax=fused rescale_lazy=on pipeline=on kv_release=producer
      pingpong=on mainloop=ws pv_wide=on o_store=tma_in_q"
ARGS="--config $PWD/$R/llama_gqa_config.json --seqlen 2048 --seqlen 4096 --seqlen 8192 --batch 1 --budget 8"
for k in $SEED; do ARGS="$ARGS --seed-knob $k"; done
mkdir -p /tmp/tune && tar xJf $R/call1/tune_db.tar.xz -C /tmp/tune && cd /tmp/tune
{ echo "python3 -m agent tune $ARGS --db /tmp/tune/llama.db --export-torch /tmp/pkg"
  time timeout 200 python3 -m agent tune $ARGS --db /tmp/tune/llama.db --export-torch /tmp/pkg; echo "exit $?"
  set -x; TSITE=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))")
  python3 -m venv --system-site-packages /tmp/venv && V=/tmp/venv/bin/python || V=
  [ -n "$V" ] && echo "$TSITE" > $($V -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/machine_torch.pth
  if [ -n "$V" ]; then
    env -u PYTHONPATH $V -m pip install -q --no-index --no-build-isolation /tmp/pkg
    env -u PYTHONPATH $V -m pip install -q --no-index --no-deps $REPO/.whl/*.whl $REPO/.whl/hf/*.whl
  fi; set +x; } > $OUT/tt_export.txt 2>&1
cd /tmp && ( time timeout 240 env -u PYTHONPATH ${V:-false} $REPO/$R/model_check.py --config $REPO/$R/llama_gqa_config.json \
  --seqlen 2048 --seqlen 4096 --seqlen 8192 --out $OUT/tt_model ) > $OUT/tt_model_check.txt 2>&1; echo "exit $?" >> $OUT/tt_model_check.txt
tail -12 $OUT/strided.txt; tail -4 $OUT/tt_export.txt; tail -22 $OUT/tt_model_check.txt
