#!/usr/bin/env bash
# The last round on the persistent static schedule, two ways, on a static persistent kernel with warp_uniform=on:
# `_lr` (last_round=key_split: the last items in 2^k pieces each) and `_ls` (last_round=key_stream: the last items' key
# blocks dealt to every CTA in equal shares, stream-K's tail); on `KS_wu` (the suite's persistent static D=128 kernel)
# and `B_st_wu` (the D=64 suite's best on the static schedule) (about 9.5 minutes; later steps guarded by the time left).
# 1. The tier, the four against the bound alone, as the launch picks (B2 H4 N2111 at BR 128: 4 of 136 items; the D=64
#    kernels take none at the tier's shapes), then forced (FA_LAST_ROUND_SPLIT=-1:1: `_lr` every item in halves, `_ls`
#    shares of half an item's blocks; -1:3: eighths).
# 2. B2 H16 N8192 D128 fp16 (2,048 items on 132 CTAs; `_ls`: the last 68 in shares of 33 blocks; `_lr`: none): A/A of
#    `KS_wu_ls`; `KS_wu` -> `KS_wu_ls`; cuDNN -> `KS_wu_ls`.
# 3. B1 H16 N32768 D128 fp16 (4,096 items; the last 4: `_lr` 16 pieces each, `_ls` shares of 8 blocks): `KS_wu` -> each;
#    cuDNN -> `KS_wu_ls`.
# 4. B2 H16 N8192 D64 fp16 (1,376 items: the last 56, `_lr` in halves, `_ls` in shares of 28): `B_st_wu` -> each; the
#    D=64 best `B` (dynamic) -> each.
# 5. B4 H16 N4096 D128 bf16 (2,048 items of 32 blocks; `_ls`: shares of 17): `KS_wu` -> `KS_wu_ls`.
# Predicted: N8192 D128 `KS_wu` -> `KS_wu_ls` 1.01-1.025 (15.5 rounds: the idle half round less two pieces' cost);
# N32768 `_lr` 1.015-1.025, `_ls` 1.02-1.03; N8192 D64 `B_st_wu` -> `_lr` 1.02-1.045, -> `_ls` 1.025-1.05, `B` -> either
# 0.98-1.01 (`B` -> `B_st_wu` was 0.954); N4096 bf16 1.005-1.015.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_static_key_split/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl; BW=${B}_st_wu
ONLY="--only ${KS}_lr --only ${KS}_ls --only ${BW}_lr --only ${BW}_ls"
{ time timeout 220 python3 $S /tmp/w/tier --plan tier --alone $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
for f in 1 3; do
  if [ $SECONDS -lt $((200 + 20 * f)) ]; then
    { echo "FA_LAST_ROUND_SPLIT=-1:$f"; time FA_LAST_ROUND_SPLIT=-1:$f timeout 50 python3 $S /tmp/w/tf$f --plan tier \
        --alone $ONLY; echo "exit $?"; } >> $OUT/tier.txt 2>&1
    grep -E "^tier|exit" $OUT/tier.txt | tail -2; save
  fi
done
if [ $SECONDS -lt 320 ]; then
  { time timeout 90 python3 $S /tmp/w/m8k --plan margins --shape "B2 H16 N8192 D128 fp16" --aa ${KS}_ls \
      --move "$KS>${KS}_ls" --move "cudnn>${KS}_ls"; echo "exit $?"; } > $OUT/margins.txt 2>&1
  grep -E "^A/A|^B2 H16 N8192 D128|exit" $OUT/margins.txt | grep -v warmup; save
fi
if [ $SECONDS -lt 420 ]; then
  { time timeout 70 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" \
      --move "$KS>${KS}_lr" --move "$KS>${KS}_ls" --move "cudnn>${KS}_ls"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B1|exit" $OUT/margins.txt | grep -v warmup | tail -4; save
fi
if [ $SECONDS -lt 490 ]; then
  { time timeout $((585 - SECONDS)) python3 $S /tmp/w/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" \
      --move "$BW>${BW}_ls" --move "$BW>${BW}_lr" --move "$B>${BW}_ls" --move "$B>${BW}_lr"; echo "exit $?"; } \
    >> $OUT/margins.txt 2>&1
  grep -E "^B2 H16 N8192 D64|exit" $OUT/margins.txt | grep -v warmup | tail -5; save
fi
if [ $SECONDS -lt 540 ]; then
  { time timeout $((590 - SECONDS)) python3 $S /tmp/w/m4k --plan margins --shape "B4 H16 N4096 D128 bf16" \
      --move "$KS>${KS}_ls"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B4|exit" $OUT/margins.txt | grep -v warmup | tail -2; save
fi
echo "total $SECONDS s"
