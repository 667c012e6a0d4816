#!/usr/bin/env bash
# Two H200s of one host (kind nvidia-h200-x2): `run --budget 20` from the naive seed at the README's problem (B2 H16
# N2048 D128 fp16) on a fresh database with --gpus 2, then the same run on one of the two GPUs, each interrupted by
# SIGINT when the call's time runs short (the same command with --resume finishes it in the next call: RESUME=1), then
# the two finals paired in one process (../2026-12-02_h200_fast_run/pair_finals.py) if time is left.
# Usage: SOURCE=<commit> bash results/2026-12-03_cpu_two_gpus_plan/call_run.sh   (RESUME=1 for a second call)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
one() {  # name, then the options of `run`
  local name=$1; shift; local left=$((570 - SECONDS)); local d=/tmp/$name
  if [ $left -lt 60 ]; then echo "$name: not started, $left s left"; return; fi
  mkdir -p $d; local r=""; [ -n "$RESUME" ] && [ -f $d/fa5090.db ] && r=--resume
  { date -u +%FT%TZ; echo "python3 -m agent run --db $d/fa5090.db --budget 20 $r $*"
    time (cd $d && timeout -s INT $((left - 20)) python3 -m agent run --db $d/fa5090.db --budget 20 $r "$@")
    echo "exit $?"; date -u +%FT%TZ; } >> $OUT/$name.txt 2>&1
  tar czf $OUT/${name}_db.tgz -C $d fa5090.db fa5090_artifacts 2>/dev/null
  echo "$name: $(grep -E '^summary|^stopped|^time' $OUT/$name.txt | cut -c1-200 | tr '\n' ' ') $(grep real $OUT/$name.txt | tail -1)"
}
one two_gpus --gpus 2
CUDA_VISIBLE_DEVICES=0 one one_gpu
if [ $((570 - SECONDS)) -gt 90 ] && grep -q "^summary" $OUT/two_gpus.txt && grep -q "^summary" $OUT/one_gpu.txt; then
  timeout $((560 - SECONDS)) python3 results/2026-12-02_h200_fast_run/pair_finals.py /tmp/one_gpu/fa5090.db \
    /tmp/two_gpus/fa5090.db --repeats 3 --out $OUT/pair.json > $OUT/pair.txt 2>&1; tail -4 $OUT/pair.txt
fi
echo "total $SECONDS s"
