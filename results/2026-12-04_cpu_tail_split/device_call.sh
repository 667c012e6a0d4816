#!/usr/bin/env bash
# The device call that measures tail_rows=split (written on the CPU; about 8 minutes):
# 1. the tier of the three split kernels of scripts/device_suite.py (TSP; each alone against the tier's bound: the split
#    changes the order of the tail rows' sums) over 136 + 68 configurations, N319 among them (the second tile's last
#    consumer warpgroup alone past N at BR 128 and 192) and B16 H16 N319 (two split items a CTA);
# 2. margins at B16 H16 N512 D64 fp16 (the suite's one shape below cuDNN): the agent's final (tail_rows=skip) against its
#    split build, the suite's kernel (P packed mid-wait) against its split build, each against SDPA cuDNN; the agent
#    final's A/A null in three fresh processes;
# 3. margins at B8 H16/4 N2048 D64 (a tail item of 16 key blocks: the helper takes 1);
# 4. ncu of the split kernel beside cuDNN at N512 (busiest SM against the average and the elapsed cycles).
# Usage: SOURCE=<commit> bash results/2026-12-04_cpu_tail_split/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
W=/tmp/tsp; mkdir -p $W
A=ws3_lazy_qp_hf_ot_ts_s3; AS=ws3_lazy_qp_hf_ot_tsp_s3; S=ws3_lazy_qp_hf_ot_pm_ts_s3; SS=ws3_lazy_qp_hf_ot_pm_tsp_s3
run() { echo "\$ $*"; local t=$SECONDS; timeout 230 "$@"; echo "exit $? in $((SECONDS - t)) s"; }
run python3 scripts/device_suite.py $W/tier --plan tier --only $AS --only $SS --only ws_o_lazy_qp_ot_pr_tsp > $OUT/tier.txt 2>&1
tail -6 $OUT/tier.txt
m() { local tag=$1; shift; run python3 scripts/device_suite.py $W/m_$tag --plan margins "$@" >> $OUT/margins.txt 2>&1; }
m n512 --shape "B16 H16 N512 D64 fp16" --aa $A --move $A\>$AS --move $S\>$SS --move cudnn\>$A --move cudnn\>$AS \
  --move cudnn\>$SS --move $AS\>$A
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup
[ $SECONDS -lt 400 ] && m gqa --shape "B8 H16 N2048 D64 fp16 Hkv4" --move $A\>$AS --move cudnn\>$AS --move cudnn\>$A
{ time timeout 120 python3 scripts/device_anatomy.py $W/an --shape "B16 H16 N512 D64 fp16=$AS"; echo "exit $?"; } > $OUT/anatomy.txt 2>&1
tail -12 $OUT/anatomy.txt
grep -E "^B|^A/A|exit" $OUT/margins.txt | grep -v warmup | tail -8
tar czf $OUT/json.tgz -C $W . 2>/dev/null
echo "total $SECONDS s"
