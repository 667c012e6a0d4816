#!/usr/bin/env bash
# The H100's N512 D64, third call (written on the CPU after the second): two moves of the two-consumer kernel
# (ws_op_lazy_qp_ot_pr_pk, cuDNN's launch shape there, 0.864x cuDNN) that leave its arithmetic as it is: the row max as
# a tree (`_tree`: the SASS runs the first row's max as one 32-long FMNMX chain) and the ping-pong off (`_npp`: 11.5%
# of its samples wait at the ping-pong's named barriers). The tier of both pairs at D=64, the base's A/A null in three
# fresh processes, then each move and cuDNN against the base. About 2 minutes.
# Predicted: _tree 0.99-1.03 (on the H200's three-consumer final it lost, 0.935: ../2026-12-04_h200_n512_around);
# _npp 0.95-1.03 (without turns the two warpgroups' MMAs and exponentials may collide).
# Usage: SOURCE=<commit> bash results/2026-12-05_cpu_n512_h100/device_call_two_consumers_moves.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws_op_lazy_qp_ot_pr_pk
{ time timeout 60 python3 scripts/device_suite.py /tmp/mv/tier --plan tier --only ${B}_tree --only ${B}_npp
  echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
{ time timeout 100 python3 scripts/device_suite.py /tmp/mv/m --plan margins --shape "B16 H16 N512 D64 fp16" --aa $B \
    --move "$B>${B}_tree" --move "$B>${B}_npp" --move "cudnn>$B"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
gzip -c /tmp/mv/m/margins.json > $OUT/margins.json.gz 2>/dev/null
echo "total $SECONDS s"
