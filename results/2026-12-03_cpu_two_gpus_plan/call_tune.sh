#!/usr/bin/env bash
# Two H200s of one host (kind nvidia-h200-x2): `tune` of the three problems of shapes.txt (budget 8 a search,
# --no-profile, each search from the naive seed) with --gpus 2, and, in the first call, one of the two Dask workers
# killed on purpose (SIGKILL, kill_worker.py) 150 s in, while it measures; interrupted by SIGINT when the call's time
# runs short (the same command resumes the campaign: run it again with RESUME=1, no kill). Then, with ONE=1, the same
# campaign on one GPU for the wall-time reference. campaign_check.py reads each database: nothing lost or doubled.
# Usage: SOURCE=<commit> bash results/2026-12-03_cpu_two_gpus_plan/call_tune.sh   (RESUME=1; ONE=1 for one GPU)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
P=$PWD/results/2026-12-03_cpu_two_gpus_plan
name=tune_two_gpus; gpus="--gpus 2"; [ -n "$ONE" ] && { name=tune_one_gpu; gpus=""; export CUDA_VISIBLE_DEVICES=0; }
d=/tmp/$name; mkdir -p $d; cd $d
if [ -z "$RESUME" ] && [ -z "$ONE" ]; then
  python3 $P/kill_worker.py --pattern "agent tune" --after 150 --timeout 300 > $OUT/kill.txt 2>&1 &
fi
{ date -u +%FT%TZ; echo "python3 -m agent tune --shapes $P/shapes.txt --budget 8 --no-profile --db $d/campaign.db $gpus"
  time timeout -s INT 540 python3 -m agent tune --shapes $P/shapes.txt --budget 8 --no-profile --db $d/campaign.db $gpus
  echo "exit $?"; date -u +%FT%TZ; } >> $OUT/$name.txt 2>&1
wait
cd - > /dev/null
python3 $P/campaign_check.py $d/campaign.db > $OUT/${name}_check.txt 2>&1; echo "check exit $?" >> $OUT/${name}_check.txt
tar czf $OUT/${name}_db.tgz -C $d campaign.db campaign_artifacts 2>/dev/null
cat $OUT/kill.txt 2>/dev/null; tail -5 $OUT/$name.txt; cat $OUT/${name}_check.txt
echo "total $SECONDS s"
