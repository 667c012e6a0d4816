#!/usr/bin/env bash
# One call (about 3-4 minutes): the D=64 suite kernel with the last items' key blocks streamed (`G_ls`,
# scripts/device_suite.py: ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu_ls), the final kernel of policy 31's run at B2 H16 N8192 D64
# on an H100 (../2026-12-07_h100_tier_policy31: 1.184x cuDNN in its own row; last_round=key_stream kept there at 1.0144).
#  a. The tier of `G_ls` against the bound alone (fp16/bf16 x causal or not x odd N x MHA/GQA/MQA, grids of several
#     items a CTA). Predicted: 0 failures.
#  b. Plan best at the suite's four D=64 shapes, `G_ls` among the rows' kernels (`G`, `B_ls`, the decoded slot, the
#     causal D=64 best). Predicted: `G_ls` the best at B2 H16 N8192 D64 (1.01-1.015x over `G`'s row), not at the causal
#     or N512 rows (their last rounds are not short); the same kernels as the H200 suite's rows elsewhere.
# Usage: SOURCE=<commit> bash results/2026-12-07_cpu_d64_stream/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
{ time timeout 90 python3 $S /tmp/w/tier --plan tier --alone --only ${G}_ls; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt
ONLY="--only $G --only ${G}_ls --only ${B}_el_sl_st_wu_ls --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
{ time timeout $((570 - SECONDS)) python3 $S /tmp/w/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B2 H16 N8192 D64 fp16" --shape "B16 H16 N512 D64 fp16" --shape "B2 H16 N4096 D64 bf16 causal" \
    --shape "B8 H16 N2048 D64 fp16 Hkv4"; echo "exit $?"; } > $OUT/best.log 2>&1
(cd /tmp/w && tar czf $OUT/json.tgz tier/tier.json best/best.json 2>/dev/null)
tail -9 $OUT/best.log
echo "total $SECONDS s"
