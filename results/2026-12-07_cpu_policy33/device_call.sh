#!/usr/bin/env bash
# One call (under 10 minutes) for either card: policy 33 from the naive seed at causal B2 H16 N4096 D64 bf16 (rng seed 4,
# a fresh database), where policy 32 ranked hopper_tile last for its rows and ended at 1.055x cuDNN
# (../2026-12-07_h100_policy32_shapes), then the tier of the suite's kernels (on an H200 the first of them there).
#  a. Predicted (README.md here): hopper_tile asked at ask 5 and kept at 1.3-2.0; three consumer warpgroups by ask 10;
#     the D=64 compound asked within the budget; a final of 1.07-1.10x cuDNN in its own row.
#  b. The tier as ../2026-12-07_h100_policy32_shapes/device_call.sh a. Predicted: 0 failures, the pairs bitwise.
#  c. The GQA gap: policy 32's final at B8 H16/4 N2048 D64 (`G` in launch order, tail rows computed) read 1.107x cuDNN
#     in its run's own row where plan best read `G` at 1.137. Plan margins pairs them in one process (G -> the final,
#     cuDNN -> each). Predicted: G -> the final within 0.997-1.003 (ask 14 of that run read the move 0.9997) and both
#     1.12-1.14x cuDNN here, so the gap is the run's comparator context, not the kernel.
# Usage: SOURCE=<commit> bash results/2026-12-07_cpu_policy33/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
LIMIT=420 bash results/2026-12-03_h200_agent_suite/race.sh c4k "--seqlen 4096 --head-dim 64 --dtype bfloat16 --causal" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/c4k_agent_4.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/c4k_agent_4.txt | cut -c1-200
S=scripts/device_suite.py
KS=ws_op_lazy_qp_w_ot_pr_pk_dm_wu; B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw; G=ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu
ONLY="--only $KS --only ws_op_lazy_qp_hf_w_ot_pm_wu --only $G --only ${B}_el_sd --only ws3_lazy_hf_oq_pm"
ONLY="$ONLY --only ${KS}_ls --only ${KS}_lr --only ${B}_el_sl_st_wu_ls --only ${G}_ls"
{ time timeout $((500 - SECONDS)) python3 $S /tmp/w/tier --plan tier $ONLY; echo "exit $?"; } > $OUT/tier.txt 2>&1
grep -E "^tier|exit" $OUT/tier.txt
(cd /tmp/w && tar czf $OUT/json.tgz $(ls t*/tier.json 2>/dev/null)) 2>/dev/null
F=ws3_lazy_qp_ot_pm_s3_dm_wu
{ time timeout $((590 - SECONDS)) python3 $S /tmp/w/gap --plan margins --confirm-budget 1.2 --shape "B8 H16 N2048 D64 fp16 Hkv4" \
    --move "$G>$F" --move "cudnn>$G" --move "cudnn>$F" --move "$F>$G" --aa $G; echo "exit $?"; } > $OUT/gqa_gap.txt 2>&1
cat $OUT/gqa_gap.txt; gzip -c /tmp/w/gap/margins.json > $OUT/gqa_gap.json.gz
echo "total $SECONDS s"
