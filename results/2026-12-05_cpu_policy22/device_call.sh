#!/usr/bin/env bash
# The device calls of policy 22 (written on the CPU): `run --budget 20` from the naive seed on a fresh database,
# 1. at B16 H16 N512 D64 fp16 (race.sh's n512 run, seed 4): predicted in README.md, the first 14 asks as policy 21's
#    run, ws_hoisted_descriptors kept at 1.005-1.015 at ask 15, a final of 0.99-1.01x cuDNN; about 230 s;
# 2. with GQA=1, at causal B8 H32/8 N1024 D128 bf16 (seed 4): ws_dynamic_items asked at about ask 10, kept at
#    1.00-1.03; about 290 s.
# An interrupted run finishes with `race.sh NAME "" resume:NAME_agent_4` on the same warm machine; with RESUME=1 on a
# fresh one, from the database recorded in results/2026-12-05_h200_n512_policy22 (the N512 run, cut at experiment 15).
# NCU=1 adds ncu's SASS pages of the N512 final and its dynamic build (about 60 s).
# Usage: [LIMIT=<s>] [GQA=1 | RESUME=1] [NCU=1] SOURCE=<commit> bash results/2026-12-05_cpu_policy22/device_call.sh   (carry .whl)
R=results/2026-12-03_h200_agent_suite/race.sh
if [ -n "$RESUME" ]; then
  mkdir -p /tmp/n512_agent_4 && tar xJf results/2026-12-05_h200_n512_policy22/n512_agent_4_db.tar.xz -C /tmp/n512_agent_4
  bash $R n512 "" resume:n512_agent_4
elif [ -z "$GQA" ]; then
  bash $R n512 "--batch 16 --seqlen 512 --head-dim 64" agent:4
else
  bash $R gqa "--batch 8 --heads 32 --kv-heads 8 --seqlen 1024 --causal --dtype bfloat16" agent:4
fi
for f in $OUT/*_agent_4*.txt; do tail -25 $f; done
if [ -n "$NCU" ]; then  # where the dynamic schedule's cycles go without a mask (../2026-12-05_h200_schedule: every SM
  # 4.4% longer): ncu's samples per SASS instruction of the N512 final and its dynamic build, by opcode family; the
  # pages come back for `device_anatomy.py --segments` on the CPU
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
  A=ws3_lazy_qp_hf_ot_ts_s3
  { time timeout 150 python3 scripts/device_anatomy.py /tmp/dy_sass --sass --shape "B16 H16 N512 D64 fp16=$A" \
      --shape "B16 H16 N512 D64 fp16=${A}_dy"; echo "exit $?"; } > $OUT/dy_sass.txt 2>&1
  for f in /tmp/dy_sass/*_sass.csv; do python3 scripts/device_anatomy.py --families "$f"; done > $OUT/dy_families.txt 2>&1
  tar czf $OUT/dy_sass.tgz -C /tmp/dy_sass --exclude='*.ncu-rep' . 2>/dev/null
  tail -20 $OUT/dy_families.txt
fi
echo "total $SECONDS s"
