#!/usr/bin/env bash
# The rows' sums of P on the tensor cores, second call: fp16 alone now (bf16's LSE moved by 1.6e-3 over the tier's
# 1e-3 in the first call, ../2026-12-06_h100_row_sum), so 1. the tier of every `_rs` kernel again, and of the moves
# around the N512 D64 screen's best with it (ws3_lazy_qp_ot_ts_s3_dy_rs: hoisted descriptors, suspended waits, both,
# the row max as a tree, a second Q tile, the rescale factors behind a vote; each bitwise it); 2. at B16 H16 N512 D64
# fp16 its A/A null in three fresh processes, each move against it, it against its base and against cuDNN. ~3 min.
# Predicted: the base -> _rs 1.02-1.05 again; the moves 0.99-1.02 each; none reaches cuDNN (it read 0.958x).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_row_sum/device_call_around.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
eval "$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d
print('R=\"' + ' '.join(n + '_rs' for n in d.RS) + '\"'); print('B=' + d.RSB); print('V=\"' + ' '.join(d.RS_AROUND) + '\"')")"
{ time timeout 200 python3 $S /tmp/rs/tier --plan tier $(for n in $R; do printf -- "--only %s " $n; done) \
    $(for v in $V; do printf -- "--only %s_%s " $B $v; done); echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
A=ws3_lazy_qp_ot_ts_s3_dy
{ time timeout 200 python3 $S /tmp/rs/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $B \
    $(for v in $V; do printf -- "--move %s>%s_%s " $B $B $v; done) --move "$A>$B" --move "cudnn>$B"; echo "exit $?"
} > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/rs tier/tier.json m/margins.json 2>/dev/null
echo "total $SECONDS s"
