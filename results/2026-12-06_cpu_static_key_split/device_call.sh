#!/usr/bin/env bash
# The last round's key split on the persistent static schedule (`_wu_lr`: last_round=key_split on a static persistent
# kernel with warp_uniform=on): `KS_wu_lr` (the suite's persistent static D=128 kernel) and `B_st_wu_lr` (the D=64
# suite's best on the static schedule) (about 9 minutes; each later step guarded by the time left).
# 1. The tier, both against the bound alone: as the launch picks (B2 H4 N2111 at BR 128: 4 of 136 items in 4 pieces;
#    the D=64 kernel splits none at the tier's shapes), then every item in halves (FA_LAST_ROUND_SPLIT=-1:1), and
#    `KS_wu_lr` in eighths (-1:3).
# 2. B1 H16 N32768 D128 fp16 (4,096 items on 132 CTAs: the last 4 in 16 pieces): A/A of `KS_wu_lr`; `KS_wu` ->
#    `KS_wu_lr`; cuDNN -> each.
# 3. B2 H16 N8192 D64 fp16 (1,376 items: the last 56 in halves): A/A of `B_st_wu_lr`; `B_st_wu` -> `B_st_wu_lr`; the
#    D=64 best `B` (dynamic) -> `B_st_wu_lr`; cuDNN -> `B` and -> `B_st_wu_lr`.
# Predicted: `KS_wu` -> `KS_wu_lr` 1.015-1.025 at N32768 (the model: 32 -> 31.1 rounds, 2.8%; the dynamic kernel's
# split gained 1.0206-1.0212 there), so cuDNN -> `KS_wu_lr` 1.105-1.12 (`KS_wu`: 1.091 in the suite's call);
# `B_st_wu` -> `B_st_wu_lr` 1.02-1.045 (11 -> 10.5 rounds less the pieces' cost), `B` -> `B_st_wu_lr` 0.98-1.01
# (`B` -> `B_st_wu` was 0.954).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_static_key_split/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
KS=ws_op_lazy_qp_w_ot_pr_pk_dm; L=${KS}_wu_lr; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl; BL=${B}_st_wu_lr
{ time timeout 200 python3 $S /tmp/w/tier --plan tier --alone --only $L --only $BL; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
if [ $SECONDS -lt 220 ]; then
  { echo "FA_LAST_ROUND_SPLIT=-1:1"; time FA_LAST_ROUND_SPLIT=-1:1 timeout 60 python3 $S /tmp/w/tf1 --plan tier --alone \
      --only $L --only $BL; echo "exit $?"; } >> $OUT/tier.txt 2>&1
  grep -E "^tier|exit" $OUT/tier.txt | tail -2; save
fi
if [ $SECONDS -lt 250 ]; then
  { echo "FA_LAST_ROUND_SPLIT=-1:3"; time FA_LAST_ROUND_SPLIT=-1:3 timeout 40 python3 $S /tmp/w/tf3 --plan tier --alone \
      --only $L; echo "exit $?"; } >> $OUT/tier.txt 2>&1
  grep -E "^tier|exit" $OUT/tier.txt | tail -2; save
fi
if [ $SECONDS -lt 330 ]; then
  { time timeout 120 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" --aa $L \
      --move "${KS}_wu>$L" --move "cudnn>${KS}_wu" --move "cudnn>$L"; echo "exit $?"; } > $OUT/margins.txt 2>&1
  grep -E "^A/A|^B1|exit" $OUT/margins.txt | grep -v warmup; save
fi
if [ $SECONDS -lt 450 ]; then
  { time timeout $((570 - SECONDS)) python3 $S /tmp/w/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa $BL \
      --move "${B}_st_wu>$BL" --move "$B>$BL" --move "cudnn>$B" --move "cudnn>$BL"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^A/A|^B2 H16 N8192 D64|exit" $OUT/margins.txt | grep -v warmup | tail -8; save
fi
echo "total $SECONDS s"
