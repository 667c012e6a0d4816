#!/usr/bin/env bash
# The whole suite (eleven shapes) against SDPA cuDNN and flash in one call, with each row's best kernel of the records
# among the candidates, and the cubic's share of P's exponentials (exp_poly, paired in ../2026-12-07_h200_policy30) on
# the D=64 bests (about 6 minutes).
# Plan best at the eleven shapes: every candidate checked at the shape against both references and screened against
#    cuDNN, the best confirmed in a fresh process against cuDNN and flash.
#    D=128: the persistent static `KS_wu` (ws_op_lazy_qp_w_ot_pr_pk_dm_wu), it streamed (`_ls`) and split (`_lr`), the
#    causal heaviest-first static `ws_op_lazy_qp_hf_w_ot_pm_wu`. D=64: `B_ls` and its `_eq`/`_eh`, the GQA best
#    `ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu` and its `_eq`, the N512 best (`..._el_sd`), the causal best `ws3_lazy_hf_oq_pm`.
# Predicted: the rows of the records within 1% (N2048 D128 1.053, causal N1024 GQA 1.049, N2048 D64 GQA 1.135, N8192
# D128 1.109, N32768 1.127, causal N8192 1.138, N4096 bf16 1.091, causal N16384 GQA 1.114, N8192 D64 1.125, N512 D64
# 1.000, causal N4096 D64 1.077); the exp_poly kernels as their pairing says.
# Usage: SOURCE=<commit> bash results/2026-12-07_h200_suite/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/suite; mkdir -p $W
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; BL=${B}_el_sl_st_wu_ls; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
C="$KS ${KS}_ls ${KS}_lr ws_op_lazy_qp_hf_w_ot_pm_wu $BL ${BL}_eq ${BL}_eh $G ${G}_eq ${B}_el_sd ws3_lazy_hf_oq_pm"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
SHAPES=(--shape "B2 H16 N2048 D128 fp16" --shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16"
        --shape "B2 H16 N8192 D128 fp16 causal" --shape "B2 H16 N8192 D64 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8"
        --shape "B16 H16 N512 D64 fp16" --shape "B4 H16 N4096 D128 bf16" --shape "B2 H16 N4096 D64 bf16 causal"
        --shape "B1 H32 N16384 D128 bf16 causal Hkv4" --shape "B8 H16 N2048 D64 fp16 Hkv4")
{ time timeout $((585 - SECONDS)) python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 \
    $ONLY "${SHAPES[@]}"; echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c $W/best/best.json > $OUT/best.json.gz
tail -16 $OUT/best.log
echo "total $SECONDS s"
