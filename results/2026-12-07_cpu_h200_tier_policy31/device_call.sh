#!/usr/bin/env bash
# Two calls for an H200 (about 9.5 minutes each): the tier of the suite's kernels on the H200, and policy 31 from the
# naive seed at the two N8192 suite shapes where policy 30's runs ended one item a CTA.
# Call 1 (`bash device_call.sh 1`):
#  a. The tier (fp16/bf16 x causal or not x N in {1, 97, 319, 333, 1000, 2111} x MHA/GQA/MQA, and grids of several items
#     a CTA) of the eleven suite rows' kernels (../2026-12-07_h200_suite): the warp-uniform kernels each bitwise its
#     base (`KS_wu`, `ws_op_lazy_qp_hf_w_ot_pm_wu`, `G`), the decoded slot (`_el_sd`), the causal D=64 best, and the
#     streamed and split last rounds (`KS_wu_ls`, `KS_wu_lr`, `B_ls`) against the bound alone; then the last two ways
#     forced on every item (FA_LAST_ROUND_SPLIT=-1:1 halves, -1:3 eighths). Predicted: 0 failures, the pairs bitwise
#     (as on the H100, ../2026-12-06_h100_static_last_round, ../2026-12-06_h100_warp_uniform).
#  b. Policy 31, `run --budget 20 --seqlen 8192 --head-dim 64` (rng seed 4, a fresh database) to the call's end.
#     Predicted: `ws_q_by_tma_lazy_p_mid_wait` (now with warp-uniform branches) kept at ask 13, 1.005-1.025; a final of
#     1.10-1.13x cuDNN in its own row (policy 30: 1.099).
# Call 2 (`bash device_call.sh 2`): first the pairing's clocks (pairing_clocks.py here: `KS_wu_ls` at B2 H16 N8192
#     D128 beside itself, cuDNN and flash, 3 s each, NVML's SM clock, power and power-cap reason read every 20 ms).
#     Predicted: beside cuDNN the SM clock 6-10% under its value beside flash, the power cap the reason; then policy 31, `run --budget 20 --seqlen 8192` (rng seed 4, a fresh database). Predicted:
#     `ws_persistent_warp_uniform` asked by ask 17 and kept (1.01-1.04), then `ws_last_round_stream` (1.01-1.025); a
#     final of 1.09-1.11x cuDNN (policy 30: 1.078).
# Usage: SOURCE=<commit> bash results/2026-12-07_cpu_h200_tier_policy31/device_call.sh 1|2   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
if [ "$1" = 1 ]; then
  ONLY="--only $KS --only ws_op_lazy_qp_hf_w_ot_pm_wu --only $G --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
  ONLY="$ONLY --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls"
  { time timeout 200 python3 $S /tmp/w/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
  grep -E "^tier|exit" $OUT/tier.txt
  for f in 1 3; do
    { echo "FA_LAST_ROUND_SPLIT=-1:$f"; time FA_LAST_ROUND_SPLIT=-1:$f timeout 60 python3 $S /tmp/w/tf$f --plan tier \
        --alone --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls; echo "exit $?"; } >> $OUT/tier.txt 2>&1
    grep -E "^tier|exit" $OUT/tier.txt | tail -3
  done
  (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json 2>/dev/null)) 2>/dev/null
  LIMIT=$((585 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d64 "--seqlen 8192 --head-dim 64" agent:4
  RUN=d64_agent_4
else
  { time timeout 120 python3 $(dirname $0)/pairing_clocks.py /tmp/w/pc; echo "exit $?"; } > $OUT/pairing_clocks.txt 2>&1
  cat $OUT/pairing_clocks.txt; gzip -c /tmp/w/pc/pairing_clocks.json > $OUT/pairing_clocks.json.gz
  LIMIT=$((585 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d8k "--seqlen 8192" agent:4
  RUN=d8k_agent_4
fi
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/$RUN.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/$RUN.txt | cut -c1-200
echo "total $SECONDS s"
