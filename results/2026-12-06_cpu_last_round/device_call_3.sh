#!/usr/bin/env bash
# device_call_2.sh reordered, with ncu at N8192 D128 in place of N8192 D64 and of the GQA margin: why the persistent
# D=128 kernel runs 0.96-0.97 of the one-item-a-CTA kernel (../2026-12-06_h100_last_round), which is what keeps the
# key split off the suite's D=128 rows.
# 1. The tier: `_el_sl_lr` bitwise `_el_sl` (no tier shape splits at BR 192), the persistent D=128 kernel with and
#    without the split against the bound; then every item of `_el_sl_lr` in halves (forced).
# 2. N8192 D64: the paired margin with the A/A null of `_el_sl_lr`, each against cuDNN.
# 3. ncu at B2 H16 N8192 D128: the one-item-a-CTA kernel, the persistent one with the static schedule, and with the
#    dynamic one and the decoded slot (elapsed and active cycles, tensor pipe, issue, stalls, bytes).
# 4. N32768 D128: the refitted split (4 items in 16 pieces) on the persistent kernel.
# Predicted: `_el_sl` -> `_el_sl_lr` 1.005-1.015 at N8192 D64; N32768 D128 1.015-1.025. ncu: the persistent kernels'
# SMs active as long as the one-item kernel's (>= 97% of the elapsed), their tensor pipe 2-4% lower of the active
# cycles, so the loss inside items rather than between them.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_last_round/device_call_3.sh   (carry .whl; about 5 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/lr && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
KP=ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd
{ time timeout 120 python3 $S /tmp/lr/tier --plan tier --only ${B}_el_sl_lr --only ${KP} --only ${KP}_lr; echo "exit $?"; } \
  > $OUT/tier.txt 2>&1
{ time FA_LAST_ROUND_SPLIT=-1:1 timeout 60 python3 $S /tmp/lr/tf1 --plan tier --alone --only ${B}_el_sl_lr; echo "exit $?"; } \
  >> $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
{ time timeout 90 python3 $S /tmp/lr/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa ${B}_el_sl_lr \
    --move "${B}_el_sl>${B}_el_sl_lr" --move "cudnn>${B}_el_sl_lr" --move "cudnn>${B}_el_sl"; echo "exit $?"; } \
  > $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
SH="B2 H16 N8192 D128 fp16"
{ time timeout 90 python3 scripts/device_anatomy.py /tmp/an --shape "$SH=ws_op_lazy_w_oq_pk_dm" \
    --shape "$SH=ws_op_lazy_qp_w_ot_pr_pk_dm" --shape "$SH=$KP"; echo "exit $?"; } > $OUT/anatomy.txt 2>&1
cp /tmp/an/anatomy.json $OUT/ 2>/dev/null
grep -E "ns, tensor|exit" $OUT/anatomy.txt | cut -c1-200
{ time timeout 70 python3 $S /tmp/lr/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" --aa ${KP}_lr \
    --move "${KP}>${KP}_lr" --move "cudnn>${KP}_lr"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
echo "total $SECONDS s"
