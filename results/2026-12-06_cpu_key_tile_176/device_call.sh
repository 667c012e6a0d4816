#!/usr/bin/env bash
# The 176-key tile at D=64 on three consumer warpgroups without the QK^T overlap (`_k176`), and the overlap alone off
# (`_po`), on the D=64 suite's best (`_el_sl`), the N512 final (`_el_sd`), the ladder's top and the causal D=64 kernel;
# P through shared memory (`_ps`: p_in=smem) alone and with the 176-key tile and the overlap (`_k176s`, two stages);
# the 192-key tile the same two ways (`_k192`, `_k192s`) on `_el_sl`; at D=128 the suite's two-consumer kernel with
# 192 keys (`_k192a`) and 176 (`_k176m`).
# 1. The tier of the sixteen (`_ps` bitwise its own; the rest against the bound: 176 and 192 keys sum in another order).
# 2. Paired margins with the A/A null of `_el_sl` at N8192 D64 and N2048 D64 GQA, the causal kernel at causal N4096
# D64 bf16, the D=128 kernel at N8192 D128.
# Predicted: `_k176` 1.02-1.05 at N8192 (a fifth of a 128-key block is per-block cost), 1.00-1.03 at N2048 GQA,
# 0.97-1.01 causal (the diagonal blocks grow); `_po` 0.95-0.99; at D=128 `_k192a` 0.99-1.03, `_k176m` 0.99-1.02;
# `_ps` 0.97-1.00 (a stmatrix and a barrier a block, nothing gained at BC 128); `_k176s` 1.02-1.06 at N8192, `_k192s`
# 1.02-1.07 there.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_key_tile_176/device_call.sh   (carry .whl; about 9 minutes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/kt && tar czf $OUT/json.tgz $(ls tier/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
NEW="--only ${B}_el_sl_k176 --only ${B}_el_sl_po --only ${B}_el_sd_k176 --only ${B}_el_sd_po"
NEW="$NEW --only ${B}_el_sl_ps --only ${B}_el_sd_ps --only ${B}_el_sl_k176s --only ${B}_el_sd_k176s"
NEW="$NEW --only ${B}_el_sl_k192 --only ${B}_el_sl_k192s --only ws_op_lazy_w_oq_pk_dm_k192a --only ws_op_lazy_w_oq_pk_dm_k176m"
NEW="$NEW --only ws3_lazy_qp_ot_pm_dm_k176 --only ws3_lazy_qp_ot_pm_dm_po --only ws3_lazy_hf_oq_k176 --only ws3_lazy_hf_oq_po"
{ time timeout 170 python3 $S /tmp/kt/tier --plan tier $NEW; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -3 $OUT/tier.txt; save
# in order of what the goals need most, so that a call cut short keeps the first
for SH in "B2 H16 N8192 D64 fp16"; do
  T=$(echo $SH | cut -d' ' -f3)
  { time timeout 120 python3 $S /tmp/kt/m$T --plan margins --shape "$SH" --aa ${B}_el_sl --move "${B}_el_sl>${B}_el_sl_k176" \
      --move "${B}_el_sl>${B}_el_sl_po" --move "${B}_el_sl>${B}_el_sl_ps" --move "${B}_el_sl>${B}_el_sl_k176s" \
      --move "${B}_el_sl_k176>${B}_el_sl_k176s" --move "${B}_el_sl>${B}_el_sl_k192" --move "${B}_el_sl>${B}_el_sl_k192s" \
      --move "ws3_lazy_qp_ot_pm_dm>ws3_lazy_qp_ot_pm_dm_k176" \
      --move "cudnn>${B}_el_sl" --move "cudnn>${B}_el_sl_k176" --move "cudnn>${B}_el_sl_k176s" \
      --move "cudnn>${B}_el_sl_k192s"; echo "exit $?"; } > $OUT/margins_$T.txt 2>&1
  grep -E "^A/A|^B|exit" $OUT/margins_$T.txt | grep -v warmup; save
done
{ time timeout 90 python3 $S /tmp/kt/m128 --plan margins --shape "B2 H16 N8192 D128 fp16" --aa ws_op_lazy_w_oq_pk_dm \
    --move "ws_op_lazy_w_oq_pk_dm>ws_op_lazy_w_oq_pk_dm_k192a" --move "ws_op_lazy_w_oq_pk_dm>ws_op_lazy_w_oq_pk_dm_k176m" \
    --move "cudnn>ws_op_lazy_w_oq_pk_dm_k192a"; echo "exit $?"; } > $OUT/margins_D128.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins_D128.txt | grep -v warmup; save
for SH in "B8 H16 N2048 D64 fp16 Hkv4"; do
  T=$(echo $SH | cut -d' ' -f3)
  { time timeout 120 python3 $S /tmp/kt/m$T --plan margins --shape "$SH" --aa ${B}_el_sl --move "${B}_el_sl>${B}_el_sl_k176" \
      --move "${B}_el_sl>${B}_el_sl_po" --move "${B}_el_sl>${B}_el_sl_ps" --move "${B}_el_sl>${B}_el_sl_k176s" \
      --move "${B}_el_sl_k176>${B}_el_sl_k176s" --move "${B}_el_sl>${B}_el_sl_k192" --move "${B}_el_sl>${B}_el_sl_k192s" \
      --move "ws3_lazy_qp_ot_pm_dm>ws3_lazy_qp_ot_pm_dm_k176" \
      --move "cudnn>${B}_el_sl" --move "cudnn>${B}_el_sl_k176" --move "cudnn>${B}_el_sl_k176s" \
      --move "cudnn>${B}_el_sl_k192s"; echo "exit $?"; } > $OUT/margins_$T.txt 2>&1
  grep -E "^A/A|^B|exit" $OUT/margins_$T.txt | grep -v warmup; save
done
{ time timeout 70 python3 $S /tmp/kt/mc --plan margins --shape "B2 H16 N4096 D64 bf16 causal" \
    --move "ws3_lazy_hf_oq>ws3_lazy_hf_oq_k176" --move "ws3_lazy_hf_oq>ws3_lazy_hf_oq_po" \
    --move "cudnn>ws3_lazy_hf_oq_k176"; echo "exit $?"; } > $OUT/margins_causal.txt 2>&1
grep -E "^B|exit" $OUT/margins_causal.txt | grep -v warmup
save
echo "total $SECONDS s"
