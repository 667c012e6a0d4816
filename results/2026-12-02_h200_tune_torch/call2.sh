#!/usr/bin/env bash
# call 2: the campaign of call 1 run again with --export-torch (every search finished: nothing searched, the package
# written and its library built); the package pip-installed into a fresh virtual environment (with the machine's
# torch: --system-site-packages) with transformers from the carried wheels (.whl/hf: transformers 5.24.0 with every
# model but llama and auto removed, to fit the call's 64 MiB, and the packages it imports; see the README); the real client's check there
# (scripts/device_model_check.py); then the comparator's own A/A null (scripts/device_comparator_null.py)
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
  time python3 -m agent tune $ARGS --db /tmp/tune/llama.db --export-torch /tmp/pkg; echo "exit $?"; } > $OUT/export.txt 2>&1
cp /tmp/pkg/fa5090_kernels/table.json $OUT/table.json
{ set -x; python3 -m venv --system-site-packages /tmp/venv && V=/tmp/venv/bin/python || V=
  if [ -n "$V" ]; then
    env -u PYTHONPATH $V -m pip install -q --no-index --no-build-isolation /tmp/pkg
    env -u PYTHONPATH $V -m pip install -q --no-index --no-deps $REPO/.whl/*.whl $REPO/.whl/hf/*.whl
    env -u PYTHONPATH $V -m pip list 2>/dev/null | grep -i -E "fa5090|transformers|torch|pydantic|tokenizers"
  fi; set +x; } >> $OUT/export.txt 2>&1
cd /tmp && ( time env -u PYTHONPATH ${V:-false} $REPO/scripts/device_model_check.py --config $REPO/$R/llama_gqa_config.json \
  --seqlen 2048 --seqlen 4096 --seqlen 8192 --out $OUT/model ) > $OUT/model_check.txt 2>&1; echo "exit $?" >> $OUT/model_check.txt
cd $REPO && ( time python3 scripts/device_comparator_null.py --problem B2-H16-N2048-D128-float16-noncausal \
  --problem B16-H16-N512-D64-float16-noncausal --problem B2-H16-N8192-D128-float16-noncausal --repeats 3 \
  --out $OUT/comparator_null.json ) > $OUT/comparator_null.txt 2>&1
tail -5 $OUT/export.txt; tail -25 $OUT/model_check.txt; tail -22 $OUT/comparator_null.txt
