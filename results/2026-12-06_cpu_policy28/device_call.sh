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
# (the decoded slot with the short tiles late: device_call_suite.sh; this call's first version ran it here without
# the PYTHONPATH that race.sh sets in its own shell, and it stopped at the import)
echo "total $SECONDS s"
