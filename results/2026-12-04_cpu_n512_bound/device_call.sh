#!/usr/bin/env bash
# The device call that tests the bound's way out at B16 H16 N512 D64 fp16 (written on the CPU, not yet run): 128-row
# items on two consumer warpgroups (1024 items, none short) against the three-warpgroup final (768 items of two costs,
# 0.980x cuDNN at best on any schedule). The tier of the four two-warpgroup kernels (scripts/device_suite.py S2: the
# move ws_mainloop_short_items builds from the naive run's best, then with lazy rescale and P packed two ways), each
# a bitwise pair with a kernel of the same arithmetic (one CTA an item, Q by cp.async, O stored directly); their
# margins at N512 D64 against SDPA cuDNN and against the final, the final's A/A null in three fresh processes; then
# ncu of the best-placed two-warpgroup kernel and the final beside cuDNN (busiest SM / 8 items is the item cost the
# bound asks to stay under 10.1 k cycles). Prediction: the two-warpgroup kernels read 0.95-1.02x cuDNN, the busiest
# SM within 1.04 of the average (the three-warpgroup kernels recorded 1.07-1.13).
# Usage: SOURCE=<commit> bash results/2026-12-04_cpu_n512_bound/device_call.sh   (about 8 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/n512; mkdir -p $W
F=ws3_lazy_qp_hf_ot_pm_ts_s3; A=ws_op_qp_ot_pr; L=ws_op_lazy_qp_ot_pr; M=ws_op_lazy_qp_ot_pr_pm; K=ws_op_lazy_qp_ot_pr_pk
run() { echo "\$ $*"; local t=$SECONDS; timeout 240 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
ONLY=$(for n in $A $L $M $K; do printf -- "--only %s " $n; done)
run python3 scripts/device_suite.py $W/tier --plan tier $ONLY > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
run python3 scripts/device_suite.py $W/m_n512 --plan margins --shape "B16 H16 N512 D64 fp16" --aa $F \
  --move cudnn\>$F --move cudnn\>$A --move cudnn\>$L --move cudnn\>$M --move cudnn\>$K --move $F\>$M --move $A\>$L \
  > $OUT/margins.txt 2>&1
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
[ $SECONDS -lt 420 ] && run python3 scripts/device_anatomy.py $W/an --shape "B16 H16 N512 D64 fp16=$M" \
  --shape "B16 H16 N512 D64 fp16=$F" > $OUT/anatomy.txt 2>&1 || echo "anatomy: not run, $SECONDS s elapsed"
tail -12 $OUT/anatomy.txt 2>/dev/null
tar czf $OUT/json.tgz -C $W .
echo "total $SECONDS s"
