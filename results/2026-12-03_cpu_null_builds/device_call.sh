#!/usr/bin/env bash
# The H200 call that measures where a keep's between-process spread comes from (null_builds.py), at the N2048 D128
# agent final (a 0.9 ms kernel) and the fast D=64 kernel (53 us), 8 fresh processes each.   (about 4 minutes)
#   SOURCE=<commit> bash results/2026-12-03_cpu_null_builds/device_call.sh
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
H=results/2026-12-03_cpu_null_builds
timeout 170 python3 $H/null_builds.py /tmp/nb_d128 --shape "B2 H16 N2048 D128 fp16" --a ws_op_lazy_qp_w_ot_pr_pk \
  --b ws_op_lazy_qp_w_ot_pr_pk_q2 --repeats 8 > $OUT/d128.txt 2>&1; echo "d128: exit $?"
timeout 170 python3 $H/null_builds.py /tmp/nb_d64 --shape "B16 H16 N512 D64 fp16" --a ws3_lazy_qp_ot_pm \
  --b ws3_lazy_qp_ot_pm_q2 --repeats 8 > $OUT/d64.txt 2>&1; echo "d64: exit $?"
cp /tmp/nb_d128/null_builds.json $OUT/d128.json; cp /tmp/nb_d64/null_builds.json $OUT/d64.json
grep -E "^A/|^#" $OUT/d128.txt $OUT/d64.txt
