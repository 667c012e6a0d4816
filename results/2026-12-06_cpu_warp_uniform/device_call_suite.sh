#!/usr/bin/env bash
# The suite against SDPA cuDNN and flash with the warp-uniform kernels (`_wu`) among the candidates, at the eight shapes
# where a `_wu` kernel may be the best (../2026-12-06_h100_warp_uniform: the persistent static D=128 kernel `_wu` 1.018
# over one item a CTA at N8192, 1.032 at N4096 bf16, 1.008 at N32768, 1.052 at N2048; the N2048 D64 GQA kernel `_wu`
# 1.0275): the suite's earlier bests there, the persistent `_wu` with and without the turns' handoff, and the causal
# persistent static heaviest-first kernel `_wu`. N512 D64, N8192 D64 and causal N4096 D64 are left out: no `_wu` kernel
# measured there beats their rows' kernels (the dynamic D=64 `_wu` lost 5%). About 5 minutes.
# Predicted (H100): N8192 D128 1.08-1.09x cuDNN (was 1.068), N4096 bf16 1.07-1.09 (1.047), N32768 1.09-1.10 (1.085),
# N2048 D128 1.05-1.07 (1.020), N2048 D64 GQA 1.12-1.14 (1.106); the causal rows unchanged or up to 2% higher.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_warp_uniform/device_call_suite.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
W=/tmp/suite; mkdir -p $W
R=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; KS=ws_op_lazy_qp_w_ot_pr_pk_dm; K1=ws_op_lazy_w_oq_pk_dm
C="$K1 ${KS}_wu ${KS}_ho_wu ws_op_bc176_lazy_hf_w_oq_pm ws_op_lazy_qp_hf_w_ot_pm_dy ws_op_lazy_qp_hf_w_ot_pm_wu
   ws3_lazy_qp_hf_ot_pm_ts_s3_dm ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
SHAPES=(--shape "B2 H16 N2048 D128 fp16" --shape "B8 H32 N1024 D128 bf16 causal Hkv8" --shape "B8 H16 N2048 D64 fp16 Hkv4"
        --shape "B2 H16 N8192 D128 fp16" --shape "B1 H16 N32768 D128 fp16" --shape "B2 H16 N8192 D128 fp16 causal"
        --shape "B4 H16 N4096 D128 bf16" --shape "B1 H32 N16384 D128 bf16 causal Hkv4")
{ time timeout 500 python3 scripts/device_suite.py $W/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY "${SHAPES[@]}"
  echo "exit $?"; } > $OUT/best.log 2>&1
gzip -c $W/best/best.json > $OUT/best.json.gz
tail -16 $OUT/best.log
echo "total $SECONDS s"
