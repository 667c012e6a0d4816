#!/usr/bin/env bash
# One knob at a time around the agent's N512 D64 final (ws3_lazy_qp_hf_ot_ts_s3: three consumer warpgroups, the idle
# tail, heaviest first, three K/V stages; 0.991-0.992x cuDNN in ../2026-12-04_h200_tail_split): a second Q tile (qb2),
# the row max as a tree (tree), turned rounds (tr), the 64-key tile (bc64), the lazy rescale off (eager). The tier of the
# five (three bitwise the final's), then each paired against the final and the final against SDPA cuDNN at B16 H16 N512
# D64 fp16, in one process. About 3 minutes.
# Usage: SOURCE=<commit> bash results/2026-12-04_h200_n512_around/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/around; mkdir -p $W; A=ws3_lazy_qp_hf_ot_ts_s3
run() { echo "\$ $*"; local t=$SECONDS; timeout 230 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier $(for k in qb2 tree tr bc64 eager; do printf -- "--only %s_%s " $A $k; done) > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
run python3 scripts/device_suite.py $W/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $A --move cudnn\>$A \
  $(for k in qb2 tree tr bc64 eager; do printf -- "--move %s>%s_%s " $A $A $k; done) --move cudnn\>$A > $OUT/margins.txt 2>&1
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
tar czf $OUT/json.tgz -C $W . 2>/dev/null
echo "total $SECONDS s"
