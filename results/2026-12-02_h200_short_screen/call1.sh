#!/usr/bin/env bash
# call 1: plan best at the suite's three shapes below 1.0x cuDNN, the D=64 one screening every candidate (--wide)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
{ time timeout 520 python3 scripts/device_suite.py $OUT/best --plan best --wide --budget 0.3 --confirm-budget 0.8 \
    --shape "B16 H16 N512 D64 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --shape "B2 H16 N2048 D128 fp16"
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -f $OUT/best/best.json
tail -30 $OUT/best.log
