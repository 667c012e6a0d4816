#!/usr/bin/env bash
# The rows' sums of P on the tensor cores (row_sum=mma, `_rs`), in one call of about 6 minutes:
# 1. the tier of every `_rs` kernel against the tier's bound (D=64 and 128, fp16 and bf16, causal and not, odd N, GQA);
# 2. each suite kernel against its `_rs` form, paired, at its suite shapes, with the A/A null of each shape's base
#    (three fresh processes each), and the `_rs` forms against cuDNN.
# Predicted: at D=64, where the MUFU pipe is as busy as the tensor cores and a thread's FADD were 64 of ~570
# instructions a key block, 1.02-1.06; at D=128, where the tensor cores bound the kernel, 0.99-1.02.
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_row_sum/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
R=$(python3 -c "import sys; sys.path.insert(0, 'scripts'); import device_suite as d; print(' '.join(d.RS))")
{ time timeout 200 python3 $S /tmp/rs/tier --plan tier $(for n in $R; do printf -- "--only %s_rs " $n; done)
  echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -4 $OUT/tier.txt
gzip -c /tmp/rs/tier/tier.json > $OUT/tier.json.gz 2>/dev/null
mv_() { for n in "$@"; do printf -- "--move %s>%s_rs " $n $n; done; }
T2=ws_op_lazy_qp_ot_pr_pk; D64=ws3_lazy_qp_ot_pm_dm; N8=ws_op_lazy_w_oq_pk_dm; C=ws_op_bc176_lazy_hf_w_oq_pm
margins() {  # NAME TIMEOUT SHAPE ARGS...
  local name=$1 t=$2 sh=$3; shift 3
  { time timeout $t python3 $S /tmp/rs/$name --plan margins --shape "$sh" "$@"; echo "exit $?"; } > $OUT/$name.txt 2>&1
  grep -E "^A/A|^B[0-9]|exit" $OUT/$name.txt | grep -v warmup
  gzip -c /tmp/rs/$name/margins.json > $OUT/$name.json.gz 2>/dev/null
}
margins n512 150 "B16 H16 N512 D64 fp16" --aa $D64 $(mv_ $D64 ws3_lazy_qp_ot_ts_s3_dy $T2 ${T2}_npp) \
  --move "cudnn>${D64}_rs" --move "cudnn>ws3_lazy_qp_ot_ts_s3_dy_rs"
margins n8k_d64 90 "B2 H16 N8192 D64 fp16" --aa $D64 $(mv_ $D64) --move "cudnn>${D64}_rs"
margins causal_d64 90 "B2 H16 N4096 D64 bf16 causal" --aa ws3_lazy_hf_oq_pm $(mv_ ws3_lazy_hf_oq_pm) --move "cudnn>ws3_lazy_hf_oq_pm_rs"
margins n8k_d128 120 "B2 H16 N8192 D128 fp16" --aa $N8 $(mv_ $N8) --move "cudnn>${N8}_rs"
margins causal_d128 90 "B2 H16 N8192 D128 fp16 causal" --aa $C $(mv_ $C) --move "cudnn>${C}_rs"
margins short_d128 90 "B2 H16 N2048 D128 fp16" --aa ws_op_lazy_qp_w_ot_pr_pk_dm $(mv_ ws_op_lazy_qp_w_ot_pr_pk_dm)
echo "total $SECONDS s"
