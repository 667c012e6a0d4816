#!/usr/bin/env bash
# call 1: ncu of the two best N512 D64 kernels and of SDPA cuDNN (short_ncu.py); then each losing shape's kernel
# and cuDNN itself against cuDNN under the usual and a deep lead (lead_check.py)
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=results/2026-12-02_h200_short_ncu
{ echo "python3 $S/lead_check.py \$OUT"; time timeout 300 python3 $S/lead_check.py $OUT; echo "exit $?"; } > $OUT/lead_check.txt 2>&1
{ echo "python3 $S/short_ncu.py \$OUT/ncu"; time timeout 200 python3 $S/short_ncu.py $OUT/ncu; echo "exit $?"; } > $OUT/short_ncu.txt 2>&1
gzip -f $OUT/lead_check.json; tar czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
tail -45 $OUT/lead_check.txt; tail -8 $OUT/short_ncu.txt
