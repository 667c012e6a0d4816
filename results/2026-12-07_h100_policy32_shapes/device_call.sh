#!/usr/bin/env bash
# One call (under 10 minutes) for either card: the tier of the suite's kernels again (on an H200 it is the tier the
# suite is judged by, which has so far run on H100s only: ../2026-12-07_h100_tier_policy31, ../2026-12-07_h100_policy32),
# and policy 32 from the naive seed at the suite's D=128 shape that stays under 1.10x cuDNN, B4 H16 N4096 D128 bf16.
#  a. The tier (as ../2026-12-07_cpu_h200_policy32/device_call.sh 1a) and the last round forced on every item
#     (FA_LAST_ROUND_SPLIT=-1:1, -1:3). Predicted: 0 failures, the pairs bitwise.
#  b. `run --budget 20 --batch 4 --seqlen 4096 --dtype bfloat16` (rng seed 4, a fresh database). Predicted: the path of
#     policy 32 at N8192 (../2026-12-07_h100_policy32): the persistent warp-uniform schedule kept by ask 17, the last
#     round streamed; a final of 1.06-1.10x cuDNN in its own row (the suite's row with `KS_wu_ls`: 1.090 on the H200,
#     1.091 on an H100).
# Usage: SOURCE=<commit> bash results/2026-12-07_cpu_policy32_bf16/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu_tier.txt
S=scripts/device_suite.py
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
ONLY="--only $KS --only ws_op_lazy_qp_hf_w_ot_pm_wu --only $G --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
ONLY="$ONLY --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls --only ${G}_ls"
{ time timeout 200 python3 $S /tmp/w/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
for f in 1 3; do
  { echo "FA_LAST_ROUND_SPLIT=-1:$f"; time FA_LAST_ROUND_SPLIT=-1:$f timeout 60 python3 $S /tmp/w/tf$f --plan tier \
      --alone --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls --only ${G}_ls; echo "exit $?"; } >> $OUT/tier.txt 2>&1
done
grep -E "^tier|exit" $OUT/tier.txt
(cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json 2>/dev/null)) 2>/dev/null
LIMIT=$((585 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh n4k "--batch 4 --seqlen 4096 --dtype bfloat16" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/n4k_agent_4.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/n4k_agent_4.txt | cut -c1-200
echo "total $SECONDS s"
