#!/usr/bin/env bash
# The last round's items split along the keys (`_lr`: last_round=key_split) on the D=64 suite's best with the decoded
# slot (`_el_sd_sl`), the N512 final (`_el_sd`) and the persistent two-consumer D=128 kernel with the dynamic schedule
# (`ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd`).
# 1. The tier: each `_lr` bitwise its base at the tier's shapes (the launch splits none there); then every item split
#    (FA_LAST_ROUND_SPLIT=-1:1, halves; -1:5, 2^5 pieces or as many as the key blocks allow), each against the bound.
# 2. The best of base and `_lr` against cuDNN and flash, checked at the shape (`--plan best`), at N8192 D64.
# 3. Paired margins with the A/A null of `_lr` at N8192 D64; at N32768 D128 and N8192 D128 the persistence alone
#    (`ws_op_lazy_w_oq_pk_dm` -> `_dy_sd`) and the split (`_dy_sd` -> `_lr`).
# 4. ncu at N8192 D64: the SMs' active cycles of base and `_lr`.
# Predicted (the launch's model, 132 SMs): N8192 D64 56 items in halves, 11 -> 10.52 rounds: 1.03-1.045 over the
# base, the SMs active 94% -> 97% of the elapsed; N32768 D128 4 items in 32 pieces: 1.02-1.03; N8192 D128 68 items in 8
# pieces: 1.005-1.015; the persistent D=128 kernel against the one-CTA-an-item one 0.97-1.01.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_last_round/device_call.sh   (carry .whl; about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/lr && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json b*/best.json 2>/dev/null)) 2>/dev/null; }
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
KP=ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd
NEW="--only ${B}_el_sd_sl_lr --only ${B}_el_sd_lr --only ${KP}_lr"
{ time timeout 200 python3 $S /tmp/lr/tier --plan tier $NEW; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt; save
for F in 1 5; do
  { time FA_LAST_ROUND_SPLIT=-1:$F timeout 100 python3 $S /tmp/lr/tf$F --plan tier --alone $NEW; echo "exit $?"; } \
    > $OUT/tier_forced_$F.txt 2>&1
  tail -3 $OUT/tier_forced_$F.txt; save
done
{ time timeout 100 python3 $S /tmp/lr/b64 --plan best --budget 0.3 --confirm-budget 1.2 --only ${B}_el_sd_sl \
    --only ${B}_el_sd_sl_lr --only ${B}_el_sl --shape "B2 H16 N8192 D64 fp16"; echo "exit $?"; } > $OUT/best_64.txt 2>&1
tail -12 $OUT/best_64.txt; save
{ time timeout 100 python3 $S /tmp/lr/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa ${B}_el_sd_sl_lr \
    --move "${B}_el_sd_sl>${B}_el_sd_sl_lr" --move "${B}_el_sl>${B}_el_sd_sl_lr" --move "cudnn>${B}_el_sd_sl_lr" \
    --move "cudnn>${B}_el_sd_sl"; echo "exit $?"; } > $OUT/margins_64.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins_64.txt | grep -v warmup; save
for SH in "B1 H16 N32768 D128 fp16" "B2 H16 N8192 D128 fp16"; do
  T=$(echo $SH | cut -d' ' -f3)
  { time timeout 100 python3 $S /tmp/lr/m$T --plan margins --shape "$SH" --aa ${KP}_lr \
      --move "ws_op_lazy_w_oq_pk_dm>${KP}" --move "${KP}>${KP}_lr" --move "cudnn>${KP}_lr" \
      --move "cudnn>ws_op_lazy_w_oq_pk_dm"; echo "exit $?"; } > $OUT/margins_$T.txt 2>&1
  grep -E "^A/A|^B|exit" $OUT/margins_$T.txt | grep -v warmup; save
done
SH="B2 H16 N8192 D64 fp16"
{ time timeout 90 python3 scripts/device_anatomy.py /tmp/an --shape "$SH=${B}_el_sd_sl" --shape "$SH=${B}_el_sd_sl_lr"
  echo "exit $?"; } > $OUT/anatomy.txt 2>&1
cp /tmp/an/anatomy.json $OUT/ 2>/dev/null
grep -E "ns, tensor|fa_fwd|exit" $OUT/anatomy.txt | cut -c1-260
save
# then, as the time left allows: N4096 D128 bf16 (the model: 68 items in 8 pieces); N2048 D64 GQA, where the model
# splits nothing, with 88 items forced into quarters (FA_LAST_ROUND_SPLIT=88:2), to read a piece's fixed cost
if [ $SECONDS -lt 470 ]; then
  { time timeout 80 python3 $S /tmp/lr/m4096 --plan margins --shape "B4 H16 N4096 D128 bf16" --aa ${KP}_lr --move "${KP}>${KP}_lr" \
      --move "cudnn>${KP}_lr" --move "cudnn>ws_op_lazy_w_oq_pk_dm"; echo "exit $?"; } > $OUT/margins_N4096.txt 2>&1
  grep -E "^B|exit" $OUT/margins_N4096.txt | grep -v warmup; save
fi
if [ $SECONDS -lt 520 ]; then
  { time FA_LAST_ROUND_SPLIT=88:2 timeout 60 python3 $S /tmp/lr/mg --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --aa ${B}_el_sd_sl_lr \
      --move "${B}_el_sd_sl>${B}_el_sd_sl_lr"; echo "exit $?"; } > $OUT/margins_gqa_forced.txt 2>&1
  grep -E "^B|exit" $OUT/margins_gqa_forced.txt | grep -v warmup; save
fi
echo "total $SECONDS s"
