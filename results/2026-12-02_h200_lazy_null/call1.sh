#!/usr/bin/env bash
# call 1: the README's `run --budget 20` on a fresh database and a cold build cache, with the lazy null (now the
# default); its final paired against the fast-run record's final (call 5 resumed: pair_finals.py, two processes);
# (where its time went is read from the database afterwards, on the CPU)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
F=$PWD/results/2026-12-02_h200_fast_run REPO=$PWD
mkdir -p /tmp/d128 /tmp/c5 && tar xJf $F/call5/d128_resumed_db.tar.xz -C /tmp/c5
{ date -u +%FT%TZ; echo "python3 -m agent run --db /tmp/d128/fa5090.db --budget 20"
  cd /tmp/d128 && time timeout -s INT 420 python3 -m agent run --db /tmp/d128/fa5090.db --budget 20
  echo "exit $?"; date -u +%FT%TZ; } > $OUT/d128.txt 2>&1
cd $REPO && tar czf $OUT/d128_db.tgz -C /tmp/d128 fa5090.db fa5090_artifacts 2>/dev/null
( time timeout 110 python3 $F/pair_finals.py /tmp/c5/fa5090.db /tmp/d128/fa5090.db --repeats 2 --out $OUT/pair.json ) > $OUT/pair.txt 2>&1
tail -14 $OUT/d128.txt; tail -4 $OUT/pair.txt
