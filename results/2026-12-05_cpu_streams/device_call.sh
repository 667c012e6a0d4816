#!/usr/bin/env bash
# The device call of this record (about 3 minutes; written on the CPU, not yet run): the persistent mma kernel, a
# split-KV kernel, the dynamic warp-specialised kernel and its static build, each on 4 streams at once for 20
# rounds, non-causal and causal at B8 H16 N2048 D64 fp16, built from this tree and from the source before each stream
# had its own work list and workspace (device_streams.py says what is predicted).
# Usage, on the CPU machine first (the device copies untracked files, not .git):
#   git archive -o before_src.tar 5c61264 kernel_src experiments
# then SOURCE=<commit> bash results/2026-12-05_cpu_streams/device_call.sh   (carry .whl), and rm before_src.tar.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
mkdir -p /tmp/before && tar xf before_src.tar -C /tmp/before || echo "no before_src.tar: this tree alone"
B=$([ -d /tmp/before/kernel_src ] && echo "--before /tmp/before")
{ time timeout 400 python3 results/2026-12-05_cpu_streams/device_streams.py $OUT/streams $B; echo "exit $?"; } \
  > $OUT/streams.txt 2>&1
cat $OUT/streams.txt
