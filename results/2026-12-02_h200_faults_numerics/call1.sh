#!/usr/bin/env bash
# call 1: (1) numerics_battery.py: the lazy-overflow defect cut from three correct kernels, each beside its control,
# then every planted defect through the keep path; (2) broken_env.sh: a search whose machine breaks under it (every
# new worker fails to load torch), then mended and resumed
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site:$PWD
{ echo "source $SOURCE"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $OUT/gpu.txt
S=results/2026-12-02_h200_faults_numerics
{ echo "python3 $S/numerics_battery.py \$OUT"; time timeout 230 python3 $S/numerics_battery.py $OUT; echo "exit $?"; } > $OUT/battery.txt 2>&1
mkdir -p /tmp/be && { time bash $S/broken_env.sh /tmp/be; } > /tmp/be/broken_env.txt 2>&1
tar czf $OUT/broken_env.tgz -C /tmp/be .
tail -25 $OUT/battery.txt; cat /tmp/be/broke_at.txt; tail -15 /tmp/be/run_broken.txt; tail -12 /tmp/be/run_resumed.txt
