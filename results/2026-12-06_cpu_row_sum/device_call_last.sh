#!/usr/bin/env bash
# The rows' sums of P on the tensor cores, third call: around ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw (0.975x cuDNN at
# B16 H16 N512 D64 fp16, ../2026-12-06_h100_row_sum_around): P packed mid-wait, two K/V stages, the static schedule in
# launch order, the K/V loads evict-last; 1. the tier of each (bitwise it); 2. at N512 D64 its A/A null, each move
# against it, it against cuDNN; at B8 H16/4 N2048 D64 and B2 H16 N8192 D64 fp16 it against the suite's kernel and
# cuDNN. About 2 minutes. Predicted: each move 0.98-1.02; at N2048 GQA and N8192 1.00-1.04 over the suite's kernel.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_row_sum/device_call_last.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
eval "$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d
print('B=' + d.RSB2); print('V=\"' + ' '.join(d.RS2_AROUND) + '\"')")"
{ time timeout 120 python3 $S /tmp/rs3/tier --plan tier $(for v in $V; do printf -- "--only %s_%s " $B $v; done)
  echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
{ time timeout 150 python3 $S /tmp/rs3/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $B \
    $(for v in $V; do printf -- "--move %s>%s_%s " $B $B $v; done) --move "cudnn>$B"; echo "exit $?"
} > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 120 python3 $S /tmp/rs3/m2 --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" \
    --shape "B2 H16 N8192 D64 fp16" --aa $B --move "ws3_lazy_qp_ot_pm_dm>$B" --move "cudnn>$B"; echo "exit $?"
} > $OUT/margins_other.txt 2>&1
grep -E "^A/A|^B[0-9]|exit" $OUT/margins_other.txt | grep -v warmup
tar czf $OUT/json.tgz -C /tmp/rs3 tier/tier.json m/margins.json m2/margins.json 2>/dev/null
echo "total $SECONDS s"
