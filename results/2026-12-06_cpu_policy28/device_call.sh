#!/usr/bin/env bash
# Policy 28 (lever ws_decoded_slot) from the naive seed at B16 H16 N512 D64 fp16 (rng seed 4, a fresh database), and the
# decoded slot with the short tiles late beside the decoded slot alone at N512.
# The CPU reading (README): policy 25's N512 run asks the lever at ask 20, after the hoisted descriptors at 19.
# Predicted: asks 1-19 as policy 25's run (0.984x cuDNN there), the decoded slot at 20 kept at 1.01-1.025, a final of
# 0.995-1.01x cuDNN in its own row. The short tiles late with the decoded slot 1.000-1.015 over the decoded slot alone
# (the end from 7-8% of the span to 5%, the gaps now half as costly).
# Usage: SOURCE=<commit> bash results/2026-12-06_cpu_policy28/device_call.sh   (carry .whl; about 6-7 minutes)
LIMIT=400 bash results/2026-12-03_h200_agent_suite/race.sh n512 "--batch 16 --seqlen 512 --head-dim 64" agent:4
grep -E "│ (lever|compound|comparator|rescreen) " $OUT/n512_agent_4.txt | cut -c1-140
grep -E "^SDPA|^summary" $OUT/n512_agent_4.txt | cut -c1-200
S=scripts/device_suite.py
B=ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw
{ time timeout 100 python3 $S /tmp/p28/tier --plan tier --only ${B}_el_sd_sl --only ${B}_el_dl_sd_sl; echo "exit $?"; } > $OUT/tier.txt 2>&1
tail -2 $OUT/tier.txt
N512="B16 H16 N512 D64 fp16"
{ time timeout 120 python3 $S /tmp/p28/m --plan margins --shape "$N512" --aa ${B}_el_sd --move "${B}_el_sd>${B}_el_sd_sl" \
    --move "${B}_el_dl_sd>${B}_el_dl_sd_sl" --move "cudnn>${B}_el_sd" --move "cudnn>${B}_el_sd_sl" \
    --move "cudnn>${B}_el_dl_sd_sl"; echo "exit $?"; } > $OUT/margins.txt 2>&1
grep -E "^A/A|^B16|exit" $OUT/margins.txt | grep -v warmup
{ time timeout 60 python3 scripts/device_anatomy.py /tmp/p28/it --items --shape "$N512=${B}_el_sd_sl"; echo "exit $?"; } \
  > $OUT/trace.txt 2>&1
cp /tmp/p28/it/trace.json.gz $OUT/ 2>/dev/null; grep -E "us a call|launch" $OUT/trace.txt | cut -c1-330
tar czf $OUT/json.tgz -C /tmp/p28 tier/tier.json m/margins.json 2>/dev/null
echo "total $SECONDS s"
