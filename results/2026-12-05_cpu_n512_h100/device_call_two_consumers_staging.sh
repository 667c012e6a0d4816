#!/usr/bin/env bash
# The H100's N512 D64, fourth call: the two-consumer kernel (ws_op_lazy_qp_ot_pr_pk, cuDNN's launch shape there and its
# work, issued at 37.8% against cuDNN's 46.0%) with cuDNN's staging (134,144 B of shared memory against our 98,400:
# a third K/V stage, `_s3`, 131,200 B; or a second Q tile, `_qb2`), hoisted descriptors (`_dm`), the row max as a tree
# (`_tree`), the ping-pong off (`_npp`), and combinations; and the item stream (the next item's first QK^T with this
# item's last PV) on its form without P packed, with two and three K/V stages (`ws_op_lazy_qp_ot_pr_is`, `_is_s3`).
# 1. the tier of every such pair at D=64 (bitwise the base); 2. plan `best` over them and the screen's best
# three-warpgroup kernel at B16 H16 N512 D64 fp16; 3. the base's A/A
# null in three fresh processes, each move against the base, and the base against cuDNN. About 5 minutes.
# Predicted: _s3 1.00-1.04 over the base (a K/V stage more lets the producer run an item ahead across item ends);
# _qb2 1.00-1.03; _dm 1.00-1.02; _is 0.95-1.02, _is_s3 1.00-1.06; none alone reaches cuDNN (the base read 0.864x).
# Usage: SOURCE=<commit> bash results/2026-12-05_cpu_n512_h100/device_call_two_consumers_staging.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws_op_lazy_qp_ot_pr_pk
V="tree npp s3 qb2 s3_qb2 dm dm_s3 s3_dm_tree"
I=ws_op_lazy_qp_ot_pr
ONLY="$(for v in $V; do printf -- "--only %s_%s " $B $v; done) --only ${I}_is --only ${I}_is_s3"
{ time timeout 200 python3 scripts/device_suite.py /tmp/c2/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
gzip -c /tmp/c2/tier/tier.json > $OUT/tier.json.gz 2>/dev/null
{ time timeout 150 python3 scripts/device_suite.py /tmp/c2/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --only $B --only $I --only ws3_lazy_qp_ot_ts_s3_dy --shape "B16 H16 N512 D64 fp16"; echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c /tmp/c2/best/best.json > $OUT/best.json.gz 2>/dev/null
tail -3 $OUT/best.log | head -1
MOVES=$(for v in $V; do printf -- "--move %s>%s_%s " $B $B $v; done)
{ time timeout 200 python3 scripts/device_suite.py /tmp/c2/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $B \
    $MOVES --move "$I>${I}_is" --move "$I>${I}_is_s3" --move "$B>$I" --move "cudnn>$B"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
gzip -c /tmp/c2/m/margins.json > $OUT/margins.json.gz 2>/dev/null
echo "total $SECONDS s"
