#!/usr/bin/env bash
# The voted waits (`_uw`) on a GPU, briefly: the tier (each bitwise its base) and the paired margins at B2 H16 N8192
# D128 (the persistent static kernel and the one-item-a-CTA kernel) and N8192 D64 (the suite's best, whose waits were
# suspended). Predicted from the SASS: 0.98-1.00 on the persistent kernel (more convergence barriers and votes),
# 0.995-1.002 on the one-item kernel (the same barriers, votes added).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_uniform_waits/device_call.sh   (carry .whl; about 2 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
KS=ws_op_lazy_qp_w_ot_pr_pk_dm; K1=ws_op_lazy_w_oq_pk_dm; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl
{ time timeout 70 python3 $S /tmp/w/tier --plan tier --only ${KS}_uw --only ${K1}_uw --only ${B}_uw; echo "exit $?"; } \
  > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt
{ time timeout 60 python3 $S /tmp/w/m8k --plan margins --shape "B2 H16 N8192 D128 fp16" --move "$KS>${KS}_uw" \
    --move "$K1>${K1}_uw"; echo "exit $?"; } > $OUT/margins.txt 2>&1
{ time timeout 40 python3 $S /tmp/w/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --move "$B>${B}_uw"; echo "exit $?"; } \
  >> $OUT/margins.txt 2>&1
grep -E "^B|exit" $OUT/margins.txt | grep -v warmup
(cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null
echo "total $SECONDS s"
