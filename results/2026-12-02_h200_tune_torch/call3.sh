#!/usr/bin/env bash
# call 3: call 2 again with the fresh environment fixed (torch lives outside the interpreter's system site there,
# so --system-site-packages alone showed none: its folder goes in by a .pth file); run beside
# results/2026-12-02_h200_comparator_order/call1.sh in one device call
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
REPO=$PWD R=results/2026-12-02_h200_tune_torch
SEED="compute=wgmma layout=sw128 staging=tma exp=ex2 br=128 bc=128 warps=8 kv_stages=2 q_in=smem rescale_skip=on
      causal_mask=predicate cta_order=heaviest_first softmax=fused rescale_lazy=on pipeline=on kv_release=producer
      pingpong=on mainloop=ws pv_wide=on o_store=tma_in_q"
ARGS="--config $PWD/$R/llama_gqa_config.json --seqlen 2048 --seqlen 4096 --seqlen 8192 --batch 1 --budget 8"
for k in $SEED; do ARGS="$ARGS --seed-knob $k"; done
mkdir -p /tmp/tune && tar xJf $R/call1/tune_db.tar.xz -C /tmp/tune && cd /tmp/tune
{ echo "python3 -m agent tune $ARGS --db /tmp/tune/llama.db --export-torch /tmp/pkg"
  time python3 -m agent tune $ARGS --db /tmp/tune/llama.db --export-torch /tmp/pkg; echo "exit $?"; } > $OUT/tt_export.txt 2>&1
cp /tmp/pkg/fa5090_kernels/table.json $OUT/tt_table.json
{ set -x; TSITE=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))")
  python3 -m venv --system-site-packages /tmp/venv && V=/tmp/venv/bin/python || V=
  # torch is not in the interpreter's system site on that machine (call 2: the venv saw none): its folder by a .pth
  [ -n "$V" ] && echo "$TSITE" > $($V -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/machine_torch.pth
  if [ -n "$V" ]; then
    env -u PYTHONPATH $V -m pip install -q --no-index --no-build-isolation /tmp/pkg
    env -u PYTHONPATH $V -m pip install -q --no-index --no-deps $REPO/.whl/*.whl $REPO/.whl/hf/*.whl
    env -u PYTHONPATH $V -m pip list 2>/dev/null | grep -i -E "fa5090|transformers|torch|pydantic|tokenizers"
  fi; set +x; } >> $OUT/tt_export.txt 2>&1
cd /tmp && ( time env -u PYTHONPATH ${V:-false} $REPO/scripts/device_model_check.py --config $REPO/$R/llama_gqa_config.json \
  --seqlen 2048 --seqlen 4096 --seqlen 8192 --out $OUT/tt_model ) > $OUT/tt_model_check.txt 2>&1; echo "exit $?" >> $OUT/tt_model_check.txt
tail -3 $OUT/tt_export.txt; tail -25 $OUT/tt_model_check.txt
