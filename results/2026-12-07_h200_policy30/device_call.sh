#!/usr/bin/env bash
# One call (about 10 minutes): exp_poly on the D=64 best at N8192, the stream's shares of 16 at N32768, then policy 30
# from the naive seed at B2 H16 N8192 D128 to the call's end (../2026-12-06_cpu_policy30/device_call.sh's two steps,
# and exp_poly).
# 1. B2 H16 N8192 D64 fp16, paired: the D=64 best `B_ls` (ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls) against it
#    with a quarter (`_eq`) and a half (`_eh`) of P's exponentials by the cubic on the FMA pipe; A/A of `B_ls`.
#    Predicted 0.95-1.02: MUFU's and the tensor pipe's work are about equal per key block at D=64 on this card, and
#    neither pipe is busy more than about 64% of the cycles (../2026-12-06_h100_key_tile_176: ncu), so MUFU may not be
#    what waits; the H200 record of 2026-12-02 lost 3-22% on an older kernel.
#    And `B_ls` against the agent's N8192 D64 final (`ws3_ot_dm`, one item a CTA: policy 27's run): the size of a
#    compound move from one item a CTA to the static persistent schedule with its levers, in one process. Predicted
#    1.015-1.035 (1.125x against 1.099x cuDNN in separate processes).
# 2. B1 H16 N32768 D128 fp16: `KS_wu_ls` with the last 4 items in shares of 16 blocks (FA_LAST_ROUND_SPLIT=4:4; the
#    launch's model takes shares of 8, so each item's last CTA merges 31 partials) against the split (`_lr`, 16 pieces)
#    and against `KS_wu`; A/A of it. Predicted: level with the split (0.995-1.005), 1.025-1.035 over `KS_wu`.
# 3. (AGENT=1) Policy 30, `run --budget 20 --seqlen 8192` (rng seed 4, a fresh database), to the call's end. Predicted: the
#    stream asked only if the run's kernel reaches the static persistent schedule; a final of 1.03-1.08x cuDNN.
# Usage: SOURCE=<commit> [AGENT=1] bash results/2026-12-07_h200_policy30/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls; KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu
{ time timeout 190 python3 scripts/device_suite.py /tmp/w/m8k --plan margins --shape "B2 H16 N8192 D64 fp16" \
    --aa $B --move "$B>${B}_eq" --move "$B>${B}_eh" --move "ws3_ot_dm>$B"; echo "exit $?"; } > $OUT/margins_d64.txt 2>&1
grep -E "^A/A|^B2|exit|real" $OUT/margins_d64.txt | grep -v warmup
{ time FA_LAST_ROUND_SPLIT=4:4 timeout 110 python3 scripts/device_suite.py /tmp/w/m32k --plan margins \
    --shape "B1 H16 N32768 D128 fp16" --aa ${KS}_ls --move "${KS}_lr>${KS}_ls" --move "$KS>${KS}_ls"; echo "exit $?"; } \
  > $OUT/margins_32k.txt 2>&1
grep -E "^A/A|^B1|exit|real" $OUT/margins_32k.txt | grep -v warmup
(cd /tmp/w && tar czf $OUT/json.tgz m8k/margins.json m32k/margins.json) 2>/dev/null
if [ -n "$AGENT" ]; then  # step 3 only where the call has the time (AGENT=1)
  LIMIT=$((585 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d8k "--seqlen 8192" agent:4
  grep -E "│ (lever|compound|comparator|rescreen) " $OUT/d8k_agent_4.txt | cut -c1-140
  grep -E "^SDPA|^summary" $OUT/d8k_agent_4.txt | cut -c1-200
fi
echo "total $SECONDS s"
