#!/usr/bin/env bash
# call 4 (a later session's, recorded here beside calls 1-3): the README's `run --budget 20` on a fresh database and a
# cold build cache again, now with two spare children, random's and the agent's background builds and the settle
# rules as committed; then its final paired against call 2's final (scripts/device_pair.py, three fresh processes)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
R=$PWD/results/2026-12-02_h200_fast_run
mkdir -p /tmp/d128 /tmp/old && tar xJf $R/call2/d128_db.tar.xz -C /tmp/old
date -u +%FT%TZ > $OUT/d128.txt
( cd /tmp/d128 && time timeout -s INT ${SECS:-330} python3 -m agent run --db /tmp/d128/fa5090.db --budget 20 ) >> $OUT/d128.txt 2>&1
echo "exit $?" >> $OUT/d128.txt; date -u +%FT%TZ >> $OUT/d128.txt
tar czf $OUT/d128_db.tgz -C /tmp/d128 fa5090.db fa5090_artifacts 2>/dev/null
( time python3 scripts/device_pair.py /tmp/old/fa5090.db /tmp/d128/fa5090.db --repeats 3 --out $OUT/pair.json ) > $OUT/pair.txt 2>&1
tail -6 $OUT/d128.txt; tail -4 $OUT/pair.txt
