#!/usr/bin/env bash
# The H100's N512 D64 (written on the CPU after ../2026-12-05_h100_suite22, where the suite's six D=64 candidates there
# read at most 0.925x cuDNN and the agent's run 0.934x), in one call of about 7 minutes:
# 1. plan `best` at B16 H16 N512 D64 fp16 over the agent's final family (heaviest first on a non-causal grid, which
#    the screen now takes where --only names it), its one-knob neighbours, the dynamic schedule, hoisted descriptors,
#    the polynomial exp2 share and the two-consumer kernels (about 90 s);
# 2. device_anatomy: cuDNN beside ours at that shape, read off ncu (bytes, occupancy, pipes, stalls; about 60 s);
# 3. `run --budget 20` from the naive seed on a fresh database at B2 H16 N8192 D64 fp16 (race.sh, agent, seed 4): the
#    D=64 shape of the agent's proof on this card (about 250 s).
# Usage: SOURCE=<commit> bash results/2026-12-05_cpu_n512_h100/device_call.sh   (carry .whl)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
A=ws3_lazy_qp_hf_ot_ts_s3
C="$A ${A}_dm ${A}_dy ${A}_qb2 ${A}_bc64 ${A}_kh ws3_lazy_qp_hf_ot_tsp_s3 ws3_lazy_qp_hf_ot_pm_ts_s3_dm
   ws3_lazy_qp_hf_ot_pm_ts_s3_dy ws3_lazy_qp_ot_ts_s3_dy ws3_lazy_qp_ot_pm ws3_lazy_qp_ot_pm_dm ws3_lazy_qp_ot_pm_dmw
   ws3_lazy_qp_ot_pq ws_op_lazy_qp_ot_pr_pk ws2c_o_ot_pk"
ONLY=$(for n in $C; do printf -- "--only %s " $n; done)
{ time timeout 150 python3 scripts/device_suite.py /tmp/n512/best --plan best --budget 0.3 --confirm-budget 1.2 $ONLY \
    --shape "B16 H16 N512 D64 fp16"; echo "exit $?"; } > $OUT/n512_best.log 2>&1
gzip -c /tmp/n512/best/best.json > $OUT/n512_best.json.gz
tail -3 $OUT/n512_best.log | head -1
{ time timeout 120 python3 scripts/device_anatomy.py /tmp/n512/anat --shape "B16 H16 N512 D64 fp16=ws3_lazy_qp_ot_pm_dm" \
    --shape "B16 H16 N512 D64 fp16=${A}_dm"; echo "exit $?"; } > $OUT/n512_anatomy.txt 2>&1
tar czf $OUT/n512_anatomy.tgz -C /tmp/n512/anat . 2>/dev/null
tail -12 $OUT/n512_anatomy.txt
LIMIT=$((575 - SECONDS)) bash results/2026-12-03_h200_agent_suite/race.sh d64 "--seqlen 8192 --head-dim 64" agent:4
grep -E "^stopped|summary" $OUT/d64_agent_4.txt | cut -c1-400
echo "total $SECONDS s"
