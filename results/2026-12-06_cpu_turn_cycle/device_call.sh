#!/usr/bin/env bash
# The three consumer warpgroups in a fixed cycle of turns (knob turn_cycle, `_tc`), then the key split's unrun call
# (../2026-12-06_cpu_last_round/device_call_3.sh), in one call (about 8 minutes; each step guarded by the time left).
# 1. The tier: each `_tc` kernel bitwise its base (N8192 D64's two bases, N2048 D64 GQA's, causal D64's); the key
#    split's `_el_sl_lr` bitwise `_el_sl`, the persistent D=128 kernel with and without the split against the bound.
# 2. B2 H16 N8192 D64: `_tc` over its bases (A/A null of `..._el_tc0_tc`), over the suite's best `_el_sl`, against
#    cuDNN; `_el_sl` -> `_el_sl_lr` (A/A null of `_el_sl_lr`).
# 3. B8 H16/4 N2048 D64 GQA: `_tc` over its base and over the suite's best there (tail rows skipped).
# 4. ncu: N8192 D64 `..._el_tc0` and `_tc` (does the tensor pipe's share of the active cycles rise); N8192 D128 the
#    one-item-a-CTA kernel beside the persistent ones (why they run 0.96-0.97 of it).
# 5. `_el_sl_lr` with every item in halves (forced) against the bound; causal N4096 D64 bf16 `_tc`; N32768 D128 split.
# Predicted: `_tc` 1.00-1.04 over its base at N8192 D64 and at N2048 GQA, the tensor pipe's share up by as much;
# `_el_sl` -> `_el_sl_lr` 1.005-1.015; N32768 D128 1.015-1.025.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_turn_cycle/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
save() { (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json m*/margins.json 2>/dev/null)) 2>/dev/null; }
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
T0=${B}_el_tc0
KP=ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd
G=ws3_lazy_qp_hf_ot_pm_s3_dm
ONLY=""; for n in ws3_lazy_qp_ot_pm_dm_tc ${T0}_tc ${G}_tc ws3_lazy_hf_oq_pm_tc ${B}_el_sl_lr $KP ${KP}_lr; do ONLY="$ONLY --only $n"; done
{ time timeout 170 python3 $S /tmp/w/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt; save
{ time timeout 150 python3 $S /tmp/w/m64 --plan margins --shape "B2 H16 N8192 D64 fp16" --aa ${T0}_tc --aa ${B}_el_sl_lr \
    --move "${T0}>${T0}_tc" --move "ws3_lazy_qp_ot_pm_dm>ws3_lazy_qp_ot_pm_dm_tc" --move "${B}_el_sl>${T0}_tc" \
    --move "cudnn>${T0}_tc" --move "${B}_el_sl>${B}_el_sl_lr" --move "cudnn>${B}_el_sl"; echo "exit $?"; } \
  > $OUT/margins.txt 2>&1
grep -E "^A/A|^B|exit" $OUT/margins.txt | grep -v warmup; save
if [ $SECONDS -lt 400 ]; then
  { time timeout 80 python3 $S /tmp/w/mg --plan margins --shape "B8 H16 N2048 D64 fp16 Hkv4" \
      --move "${G}>${G}_tc" --move "ws3_lazy_qp_hf_ot_pm_ts_s3_dm>${G}_tc" --move "cudnn>${G}_tc"; echo "exit $?"; } \
    >> $OUT/margins.txt 2>&1
  grep -E "^B8|exit" $OUT/margins.txt | grep -v warmup; save
fi
if [ $SECONDS -lt 450 ]; then
  S64="B2 H16 N8192 D64 fp16"; S128="B2 H16 N8192 D128 fp16"
  { time timeout 80 python3 scripts/device_anatomy.py /tmp/an --shape "$S64=$T0" --shape "$S64=${T0}_tc" \
      --shape "$S128=ws_op_lazy_w_oq_pk_dm" --shape "$S128=ws_op_lazy_qp_w_ot_pr_pk_dm" --shape "$S128=$KP"
    echo "exit $?"; } > $OUT/anatomy.txt 2>&1
  cp /tmp/an/anatomy.json $OUT/ 2>/dev/null
  grep -E "ns, tensor|exit" $OUT/anatomy.txt | cut -c1-200
fi
if [ $SECONDS -lt 480 ]; then
  { time FA_LAST_ROUND_SPLIT=-1:1 timeout 50 python3 $S /tmp/w/tf1 --plan tier --alone --only ${B}_el_sl_lr; echo "exit $?"; } \
    >> $OUT/tier.txt 2>&1
  grep -E "^tier|exit" $OUT/tier.txt | tail -2; save
fi
if [ $SECONDS -lt 520 ]; then
  { time timeout 50 python3 $S /tmp/w/mc --plan margins --shape "B2 H16 N4096 D64 bf16 causal" \
      --move "ws3_lazy_hf_oq_pm>ws3_lazy_hf_oq_pm_tc"; echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B2 H16 N4096|exit" $OUT/margins.txt | grep -v warmup | tail -3; save
fi
if [ $SECONDS -lt 530 ]; then
  { time timeout 55 python3 $S /tmp/w/m32k --plan margins --shape "B1 H16 N32768 D128 fp16" --move "${KP}>${KP}_lr"
    echo "exit $?"; } >> $OUT/margins.txt 2>&1
  grep -E "^B1|exit" $OUT/margins.txt | grep -v warmup | tail -3; save
fi
echo "total $SECONDS s"
