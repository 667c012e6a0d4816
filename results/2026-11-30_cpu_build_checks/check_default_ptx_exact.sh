#!/usr/bin/env bash
# With FA_DEFECT at its default (DEF_NONE), the kernel compiles to byte-identical PTX as BASE's source
# (no normalisation: nothing was added to the template parameters), for the fault battery's seed
# (scripts/device_faults.py: mma/row_major/cp_async/expf/t64x64w4) and the defect battery's BASE
# (mma/swizzle/cp_async/ex2) at fp16 D128, causal and not, on sm_90. No GPU needed.
#   bash results/2026-11-30_cpu_build_checks/check_default_ptx_exact.sh [BASE]   (default HEAD: the working tree against the last commit)
set -euo pipefail
BASE=${1:-HEAD}; W=$(mktemp -d); trap 'rm -rf $W' EXIT
snap() { mkdir -p $2; for f in $(git ls-tree --name-only $1 kernel_src/ | grep -E '\.cuh?$'); do git show $1:$f > $2/${f#kernel_src/}; done; }  # every kernel source of commit $1 into $2
snap $BASE $W/old; mkdir -p $W/new; cp kernel_src/*.cu kernel_src/*.cuh $W/new/
declare -A CFG=(
  [fault_seed_sm_90]="-arch=sm_90 -DFA_COMPUTE=1 -DFA_STAGING=1 -DFA_DTYPES=1 -DFA_DIMS=2 -DFA_CAUSALS=3"
  [defects_base_sm_90]="-arch=sm_90 -DFA_COMPUTE=1 -DFA_LAYOUT=1 -DFA_STAGING=1 -DFA_EXP=1 -DFA_DTYPES=1 -DFA_DIMS=2 -DFA_CAUSALS=3")
for name in "${!CFG[@]}"; do
  for v in old new; do nvcc -O3 -std=c++17 -ptx ${CFG[$name]} $W/$v/fa_fwd.cu -o $W/$v.ptx; done
  echo "$name: $(wc -l < $W/old.ptx) PTX lines, $(cmp -s $W/old.ptx $W/new.ptx && echo byte-identical || echo DIFFERENT)"
done
