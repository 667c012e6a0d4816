#!/usr/bin/env bash
# Two calls for an H200 (each under 10 minutes), what the H100 answered on 2026-12-07 asked again on the card the suite
# is judged on (../2026-12-07_h100_tier_policy31, ../2026-12-07_h100_d64_stream), and policy 32's first run.
# Call 1 (`bash device_call.sh 1`):
#  a. The tier of the suite's kernels (as ../2026-12-07_cpu_h200_tier_policy31 call 1a, with `G_ls` alone too), then the
#     last round forced on every item (FA_LAST_ROUND_SPLIT=-1:1, -1:3). Predicted: 0 failures, the pairs bitwise.
#  b. Plan best at the four D=64 suite shapes with `G_ls` among the rows' kernels. Predicted: `G_ls` the best at
#     B2 H16 N8192 D64 at 1.16-1.19x cuDNN (the H200 suite's `G` 1.131; `G` -> `G_ls` 1.044 on the H100), the other
#     rows within 1% of the H200 suite's.
#  c. The pairing's clocks (../2026-12-07_cpu_h200_tier_policy31/pairing_clocks.py, `KS_wu_ls` at B2 H16 N8192 D128).
#     Predicted: as on the H100, the SM clock beside flash about 10% above its value beside cuDNN or itself.
# Call 2 (`bash device_call.sh 2`): policy 32, `run --budget 20 --seqlen 8192` (rng seed 4, a fresh database).
#     Predicted: `ws_persistent_warp_uniform` asked by ask 15 and kept (1.02-1.04 from 176 keys, or 1.01-1.03 from
#     128), then `ws_last_round_stream`; a final of 1.08-1.11x cuDNN in its own row (policy 30 on the H200: 1.078).
# Usage: SOURCE=<commit> bash results/2026-12-07_cpu_h200_policy32/device_call.sh 1|2   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=scripts/device_suite.py
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
if [ "$1" = 1 ]; then
  ONLY="--only $KS --only ws_op_lazy_qp_hf_w_ot_pm_wu --only $G --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
  ONLY="$ONLY --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls --only ${G}_ls"
  { time timeout 200 python3 $S /tmp/w/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
  for f in 1 3; do
    { echo "FA_LAST_ROUND_SPLIT=-1:$f"; time FA_LAST_ROUND_SPLIT=-1:$f timeout 60 python3 $S /tmp/w/tf$f --plan tier \
        --alone --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls --only ${G}_ls; echo "exit $?"; } >> $OUT/tier.txt 2>&1
  done
  grep -E "^tier|exit" $OUT/tier.txt
  D64="--only $G --only ${G}_ls --only ${B}_el_sl_st_wu_ls --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
  { time timeout $((520 - SECONDS)) python3 $S /tmp/w/best --plan best --budget 0.3 --confirm-budget 1.2 $D64 \
      --shape "B2 H16 N8192 D64 fp16" --shape "B16 H16 N512 D64 fp16" --shape "B2 H16 N4096 D64 bf16 causal" \
      --shape "B8 H16 N2048 D64 fp16 Hkv4"; echo "exit $?"; } > $OUT/best.log 2>&1
  tail -9 $OUT/best.log
  { time timeout $((585 - SECONDS)) python3 results/2026-12-07_cpu_h200_tier_policy31/pairing_clocks.py /tmp/w/pc
    echo "exit $?"; } > $OUT/pairing_clocks.txt 2>&1
  cat $OUT/pairing_clocks.txt; gzip -c /tmp/w/pc/pairing_clocks.json > $OUT/pairing_clocks.json.gz
  (cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json best/best.json 2>/dev/null)) 2>/dev/null
else
  LIMIT=585 bash results/2026-12-03_h200_agent_suite/race.sh d8k "--seqlen 8192" agent:4
  grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d8k_agent_4.txt | cut -c1-140
  grep -E "^SDPA|^summary" $OUT/d8k_agent_4.txt | cut -c1-200
fi
echo "total $SECONDS s"
