#!/usr/bin/env bash
# call 2: a source-level ncu of the two-consumer kernel and of ws3_lazy_qp_ot at N512 D64 (source_ncu.py)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ncu --version | tail -1; } > $OUT/gpu.txt
S=results/2026-12-02_h200_short_ncu
{ echo "python3 $S/source_ncu.py /tmp/src"; time timeout 330 python3 $S/source_ncu.py /tmp/src; echo "exit $?"; } > $OUT/source_ncu.txt 2>&1
tar czf $OUT/src.tgz -C /tmp src
cat $OUT/source_ncu.txt | tail -12; ls -la /tmp/src; head -c 1500 /tmp/src/ws_op_lazy_qp_w_ot_source.csv
