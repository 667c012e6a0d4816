#!/usr/bin/env bash
# Issue 10's first step on an sm_90a GPU: build kernel_src/wgmma_probe.cu and run each variant in its
# own process (a wrong descriptor can fault and end the CUDA context), then the throughput loop.
#   bash results/2026-11-30_h200_fa2_levers/device_wgmma_probe.sh WORKDIR      (one JSON line per variant)
set -u
W=${1:-/tmp}
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a kernel_src/wgmma_probe.cu -o $W/wgmma_probe -Xptxas -v 2>&1 | grep -E "error|Used"
for v in 0 1 2 3 4 5 6 7 8 9 99; do
  timeout 30 $W/wgmma_probe $v || echo "{\"variant\": $v, \"exit\": $?}"
done
