#!/usr/bin/env bash
# call 5 (a later session's): (1) the profiled program's torch-free inputs against torch's on seven kernels
# (profile_inputs.py, its own build cache; the call ran it from results/2026-12-02_h200_profile_inputs/, moved here after); (2) the README's `run --budget 20`
# on a fresh database and a cold build cache with the pair's 0.3 ms lead (now default) and the torch-free profile
# inputs (FA5090_PROFILE_INPUTS=driver); (3) its final paired against call 2's final (pair_finals.py, two processes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
echo "$SOURCE" > $OUT/source.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
R=$PWD/results/2026-12-02_h200_fast_run P=results/2026-12-02_h200_fast_run
{ echo "FA5090_CACHE=/tmp/pcache python3 $P/profile_inputs.py --out \$OUT --repeats 2"
  time FA5090_CACHE=/tmp/pcache timeout 150 python3 $P/profile_inputs.py --out $OUT --repeats 2; echo "exit $?"; } > $OUT/profile_inputs.txt 2>&1
export FA5090_PROFILE_INPUTS=driver
mkdir -p /tmp/d128 /tmp/c2 && tar xJf $R/call2/d128_db.tar.xz -C /tmp/c2
{ date -u +%FT%TZ; echo "FA5090_PROFILE_INPUTS=driver python3 -m agent run --db /tmp/d128/fa5090.db --budget 20"
  cd /tmp/d128 && time timeout -s INT ${SECS:-320} python3 -m agent run --db /tmp/d128/fa5090.db --budget 20
  echo "exit $?"; date -u +%FT%TZ; } > $OUT/d128.txt 2>&1
cd $R/../.. && tar czf $OUT/d128_db.tgz -C /tmp/d128 fa5090.db fa5090_artifacts 2>/dev/null
( time timeout 100 python3 $R/pair_finals.py /tmp/c2/fa5090.db /tmp/d128/fa5090.db --repeats 2 --out $OUT/pair.json ) > $OUT/pair.txt 2>&1
tail -8 $OUT/profile_inputs.txt; tail -8 $OUT/d128.txt; tail -4 $OUT/pair.txt
