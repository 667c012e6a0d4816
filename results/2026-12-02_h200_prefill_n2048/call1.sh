#!/usr/bin/env bash
# call 1: the tune record's database exported again with today's source (`tune ... --export-torch`, nothing left to
# search), installed into a fresh venv, then prefill_rounds.py: the N 2048 prefill paired in rounds against SDPA cuDNN
# and the default backend, beside the nulls of each (cuDNN vs cuDNN, default vs default, ours vs ours), and the op alone
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
REPO=$PWD S=results/2026-12-02_h200_prefill_n2048 R=results/2026-12-02_h200_tune_torch
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
  fi; set +x; } > $OUT/export.txt 2>&1
cd /tmp && { echo "python3 $S/prefill_rounds.py --config $R/llama_gqa_config.json --rounds 8 --budget 4 --out \$OUT"
  time timeout 330 env -u PYTHONPATH ${V:-false} $REPO/$S/prefill_rounds.py --config $REPO/$R/llama_gqa_config.json \
  --rounds 8 --budget 4 --out $OUT; echo "exit $?"; } > $OUT/prefill_rounds.txt 2>&1
tail -4 $OUT/export.txt; tail -22 $OUT/prefill_rounds.txt
