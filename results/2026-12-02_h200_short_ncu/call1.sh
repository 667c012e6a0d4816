#!/usr/bin/env bash
# call 1: ncu of the two best N512 D64 kernels and of SDPA cuDNN at B16 H16 N512 D64 fp16 (short_ncu.py)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=results/2026-12-02_h200_short_ncu
{ echo "python3 $S/short_ncu.py \$OUT"; time timeout 230 python3 $S/short_ncu.py $OUT; echo "exit $?"; } > $OUT/short_ncu.txt 2>&1
tail -12 $OUT/short_ncu.txt
