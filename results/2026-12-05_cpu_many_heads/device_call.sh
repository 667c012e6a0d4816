#!/usr/bin/env bash
# The device call of this record (about 2 minutes; written on the CPU, not yet run): five kernels (launch order on the
# general mainloop, with key splits, persistent; the warp-specialised suite kernel at D128 and a three-warpgroup one at
# D64) through the tier's check at 66,560 heads (B1040 H64 N64, MHA and GQA, causal and not) and at B1 H2 N333, built
# from this tree and from 5c61264 (before the launch split a grid past gridDim.y's 65,535).
# Usage, on the CPU machine first (the device copies untracked files, not .git); the same tar as the streams record's:
#   git archive -o before_src.tar 5c61264 kernel_src experiments
# then SOURCE=<commit> bash results/2026-12-05_cpu_many_heads/device_call.sh   (carry .whl), and rm before_src.tar.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
mkdir -p /tmp/before && tar xf before_src.tar -C /tmp/before || echo "no before_src.tar: this tree alone"
B=$([ -d /tmp/before/kernel_src ] && echo "--before /tmp/before")
{ time timeout 400 python3 results/2026-12-05_cpu_many_heads/device_many_heads.py $OUT/many_heads $B; echo "exit $?"; } \
  > $OUT/many_heads.txt 2>&1
cat $OUT/many_heads.txt
