#!/usr/bin/env bash
# Warp-uniform branches and predicated one-lane work (knob warp_uniform=on, `_wu`) on a GPU. The SASS of the persistent
# static D=128 kernel with the knob reads as the one-item-a-CTA kernel's (8 BSSY against 37, no YIELD, the shared-memory
# base in a uniform register: sass_counts.txt); does the persistent kernel then run items as fast as one item a CTA does?
# (about 9 minutes; each later step guarded by the time left)
# 1. The tier: each `_wu` kernel bitwise its base (D=128: the persistent static and one-item kernels; D=64: the suite's
#    best, dynamic, its static schedule `_st`, and the suite's static persistent kernels at N2048 GQA and N8192).
# 2. B2 H16 N8192 D128: A/A of the persistent `_wu`; persistent -> `_wu`; one item -> `_wu`; one item -> persistent
#    `_wu`; one item -> persistent (the gap, again); cuDNN -> one item and -> persistent `_wu`.
# 3. B2 H16 N8192 D64: A/A of the static `_wu`; the suite's best (dynamic) -> `_wu`, -> static `_wu`; static -> static
#    `_wu`; the suite's earlier static kernel -> its `_wu`; cuDNN -> static `_wu`.
# 4. B8 H16/4 N2048 D64 GQA: the suite's kernel (static persistent) -> `_wu`. 5. B2 H16 N2048 D128: the suite's kernel
#    (persistent static) -> `_wu`; one item -> persistent `_wu`.
# 6. B1 H16 N32768 D128: one item -> persistent `_wu`; the dynamic persistent kernel with the key split -> persistent `_wu`.
# 7. B4 H16 N4096 D128 bf16: one item -> persistent `_wu`.
# Predicted: persistent `_wu` 1.01-1.025 over persistent (its 2.2% of extra active cycles, ncu at N8192); one item `_wu`
# 0.998-1.005 (WARPSYNC 15 -> 2 only); one item -> persistent `_wu` 0.99-1.01; D=64 dynamic `_wu` 0.995-1.005 (its SASS
# barely changed); static `_wu` over static 1.01-1.03, over the dynamic best 0.99-1.02; the static D=64 suite kernels
# 1.01-1.03.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_warp_uniform/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
KS=ws_op_lazy_qp_w_ot_pr_pk_dm; K1=ws_op_lazy_w_oq_pk_dm; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl
G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm; D8=ws3_lazy_qp_ot_pm_dm
{ time timeout 150 python3 $S /tmp/w/tier --plan tier --only ${KS}_wu --only ${K1}_wu --only ${B}_wu --only ${B}_st_wu \
    --only ${G}_wu --only ${D8}_wu; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
{ time timeout 130 python3 $S /tmp/w/m8k --plan margins --shape "B2 H16 N8192 D128 fp16" --aa ${KS}_wu \
    --move "$KS>${KS}_wu" --move "$K1>${K1}_wu" --move "$K1>${KS}_wu" --move "$K1>$KS" --move "cudnn>$K1" \
    --move "cudnn>${KS}_wu"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
if [ $SECONDS -lt 310 ]; then
  { time timeout 110 python3 $S /tmp/w/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa ${B}_st_wu \
      --move "$B>${B}_wu" --move "$B>${B}_st_wu" --move "${B}_st>${B}_st_wu" --move "$D8>${D8}_wu" \
      --move "cudnn>${B}_st_wu"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^A/A|^B2 H16 N8192 D64|exit" $OUT/margins.txt | grep -v warmup | tail -7; save
fi
if [ $SECONDS -lt 390 ]; then
  { time timeout 50 python3 $S /tmp/w/mg --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" --move "$G>${G}_wu"
    echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B8|exit" $OUT/margins.txt | grep -v warmup | tail -2; save
fi
if [ $SECONDS -lt 430 ]; then
  { time timeout 50 python3 $S /tmp/w/m2k --plan margins --shape "B2 H16 N2048 D128 fp16" --move "$KS>${KS}_wu" \
      --move "$K1>${KS}_wu"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B2 H16 N2048|exit" $OUT/margins.txt | grep -v warmup | tail -3; save
fi
if [ $SECONDS -lt 470 ]; then
  { time timeout 60 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" \
      --move "$K1>${KS}_wu" --move "${KS}_dy_sd_lr>${KS}_wu"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B1|exit" $OUT/margins.txt | grep -v warmup | tail -3; save
fi
if [ $SECONDS -lt 530 ]; then
  { time timeout 50 python3 $S /tmp/w/m4k --plan margins --shape "B4 H16 N4096 D128 bf16" --move "$K1>${KS}_wu"
    echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B4|exit" $OUT/margins.txt | grep -v warmup | tail -2; save
fi
echo "total $SECONDS s"
