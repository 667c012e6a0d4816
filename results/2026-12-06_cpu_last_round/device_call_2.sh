#!/usr/bin/env bash
# After ../2026-12-06_h100_last_round (the split gained 1.0109 at N8192 D64 on the decoded-slot kernel, which itself ran
# 0.99 of the suite's best `_el_sl`; 8 pieces lost at N8192 and N4096 D128): the split without the decoded slot
# (`_el_sl_lr`: each consumer maps the list index to its piece), and the launch's model refitted (a piece's merge reads
# its other pieces' partials back; a split only where it saves a quarter of a round: at N32768 D128 4 items in 16
# pieces, none at N8192 or N4096 D128).
# 1. The tier: `_el_sl_lr` bitwise `_el_sl` (no tier shape splits at BR 192), the D=128 kernel with and without the
#    split against the bound; then every item of `_el_sl_lr` in halves (forced).
# 2. N8192 D64: the paired margin with the A/A null of `_el_sl_lr`, each against cuDNN.
# 3. N32768 D128: the split in 16 pieces on the persistent kernel; N2048 D64 GQA, where nothing is split: `_el_sl_lr`
#    against `_el_sl` (its spill alone).
# 4. ncu at N8192 D64: `_el_sl` and `_el_sl_lr`.
# Predicted: `_el_sl` -> `_el_sl_lr` 1.005-1.015 at N8192 D64 (as on the decoded slot: 1.0109), 0.995-1.002 at N2048 GQA;
# the D=128 split at N32768 1.015-1.025 (32 pieces: 1.0212).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_last_round/device_call_2.sh   (carry .whl; about 5 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/lr && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json b*/best.json 2>/dev/null)) 2>/dev/null; }
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
{ time timeout 50 python3 $S /tmp/lr/mg --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa ${B}_el_sl_lr \
    --move "${B}_el_sl>${B}_el_sl_lr"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
{ time timeout 60 python3 $S /tmp/lr/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" --aa ${KP}_lr \
    --move "${KP}>${KP}_lr" --move "cudnn>${KP}_lr"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
if [ $SECONDS -lt 330 ]; then
  SH="B2 H16 N8192 D64 fp16"
  { time timeout 60 python3 scripts/device_anatomy.py /tmp/an --shape "$SH=${B}_el_sl" --shape "$SH=${B}_el_sl_lr"
    echo "exit $?"; } > $OUT/anatomy.txt 2>&1
  cp /tmp/an/anatomy.json $OUT/ 2>/dev/null
  grep -E "ns, tensor|exit" $OUT/anatomy.txt | cut -c1-200
fi
save
echo "total $SECONDS s"
