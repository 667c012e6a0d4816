#!/usr/bin/env bash
# The N512 D64 best with both moves that gained on it in ../2026-12-06_h100_launch_gaps (the dependent launch 1.0135,
# the K/V loads evict-last 1.0103): its tier (bitwise the best), then at B16 H16 N512 D64 fp16 the dependent-launch
# kernel's A/A null, evict-last over it, and the three against cuDNN. Predicted: 1.005-1.012 over the dependent launch,
# 0.995-1.01x cuDNN.   Usage: SOURCE=<commit> bash results/2026-12-06_cpu_launch_gaps/device_call_both.sh (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(d.RSB2)")
{ time timeout 90 python3 $S /tmp/both/tier --plan tier --only ${B}_el_dl; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt
{ time timeout 120 python3 $S /tmp/both/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa ${B}_dl \
    --move "${B}_dl>${B}_el_dl" --move "cudnn>${B}_el_dl" --move "cudnn>${B}_dl" --move "cudnn>$B"; echo "exit $?"
} > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/both tier/tier.json m/margins.json 2>/dev/null
echo "total $SECONDS s"
