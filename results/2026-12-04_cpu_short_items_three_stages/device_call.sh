#!/usr/bin/env bash
# The next device call at B16 H16 N512 D64 fp16 (written on the CPU, not yet run; about 6 minutes):
# 1. policy 21 from the naive seed, `run --budget 20` on a fresh database (race.sh's n512 run, seed 3): the prediction
#    in README.md is the three-warpgroup short-items move at #12, kept at 1.04-1.12, and a final of 0.95-0.99x cuDNN;
# 2. ncu's warp-state samples per SASS instruction (device_anatomy.py --sass) of the suite's three-warpgroup kernel
#    and of the two-warpgroup kernel whose items cost 14% more than cuDNN's (../2026-12-04_h200_n512_two_warpgroups),
#    each beside cuDNN: where their `wait` and `mio_throttle` stalls sit, by opcode (`--families`, into families.txt)
#    and, on the CPU after, by execution count (`device_anatomy.py --segments <the _sass.csv>`: an item's ends
#    against its key-block loop).
# Usage: SOURCE=<commit> bash results/2026-12-04_cpu_short_items_three_stages/device_call.sh   (carry .whl)
LIMIT=330 bash results/2026-12-03_h200_agent_suite/race.sh n512 "--batch 16 --seqlen 512 --head-dim 64" agent:3
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ time timeout 200 python3 scripts/device_anatomy.py /tmp/n512_sass --sass \
    --shape "B16 H16 N512 D64 fp16=ws3_lazy_qp_hf_ot_pm_ts_s3" --shape "B16 H16 N512 D64 fp16=ws_op_lazy_qp_ot_pr_pm"
  echo "exit $?"; } > $OUT/sass.txt 2>&1
tail -30 $OUT/sass.txt
for f in /tmp/n512_sass/*_sass.csv; do python3 scripts/device_anatomy.py --families "$f"; done > $OUT/families.txt 2>&1
cat $OUT/families.txt
tar czf $OUT/sass.tgz -C /tmp/n512_sass . 2>/dev/null
echo "total $SECONDS s"
