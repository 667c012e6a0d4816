#!/usr/bin/env bash
# call 2: first ncu at N512 D64 of the two-consumer kernel of cuDNN's structure beside ours with its direct store and
# cuDNN (../2026-12-02_h200_short_ncu/short_ncu.py); then call 1 again: the README's `run --budget 20` on a fresh
# database and a cold build cache, now recording each figures
# step's wait for builds (figures_s); its final paired against the fast-run record's final (pair_finals.py, two processes)
# (where its time went is read from the database afterwards, on the CPU)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
F=$PWD/results/2026-12-02_h200_fast_run REPO=$PWD
S=$PWD/results/2026-12-02_h200_short_ncu
{ time timeout 150 python3 $S/short_ncu.py /tmp/ncu ws_op_lazy_qp_w_ot ws_op_lazy_qp_w; echo "exit $?"; } > $OUT/short_ncu.txt 2>&1
tar czf $OUT/ncu.tgz -C /tmp ncu
mkdir -p /tmp/d128 /tmp/c5 && tar xJf $F/call5/d128_resumed_db.tar.xz -C /tmp/c5
{ date -u +%FT%TZ; echo "python3 -m agent run --db /tmp/d128/fa5090.db --budget 20"
  cd /tmp/d128 && time timeout -s INT 420 python3 -m agent run --db /tmp/d128/fa5090.db --budget 20
  echo "exit $?"; date -u +%FT%TZ; } > $OUT/d128.txt 2>&1
cd $REPO && tar czf $OUT/d128_db.tgz -C /tmp/d128 fa5090.db fa5090_artifacts 2>/dev/null
( time timeout 110 python3 $F/pair_finals.py /tmp/c5/fa5090.db /tmp/d128/fa5090.db --repeats 2 --out $OUT/pair.json ) > $OUT/pair.txt 2>&1
tail -14 $OUT/d128.txt; tail -4 $OUT/pair.txt
