#!/usr/bin/env bash
# A lead, not a change: the static persistent loop written as a count of this CTA's items (u = 0 .. mine - 1, item
# c + u grid) instead of an index stepping by the grid (i = c; i < total; i += grid), as the streamed last round's loop
# is. The streamed D=64 kernel's consumers waited on no per-thread mbarrier address where its base `B_st_wu` waits on
# 15 (sass_counts.txt); is it the loop's form? The tree's kernel_src copied to a temporary directory, the loop patched
# there, and the static `_wu` kernels compiled both ways (sm_90a fp16 non-causal; counts as sass_counts.sh's).
# Usage: bash results/2026-12-06_cpu_static_key_split/count_loop.sh > results/2026-12-06_cpu_static_key_split/count_loop.txt
cd "$(dirname "$0")/../.."
eval "$(sed -n '/^export PATH/,/^}/p' results/2026-12-06_cpu_warp_uniform/sass_counts.sh)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cp -r kernel_src "$T/"
python3 - "$T/kernel_src/fa_fwd.cu" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = """        for (int i = blockIdx.x; i < total; i += gridDim.x)
          run_item<K, T, D, CAUSAL, ROLE>(item_of(i),"""
new = """        const int G_ = (int)gridDim.x, c_ = (int)blockIdx.x, mine_ = c_ < total ? (total - 1 - c_) / G_ + 1 : 0;
        for (int u = 0; u < mine_; ++u)
          run_item<K, T, D, CAUSAL, ROLE>(item_of(c_ + u * G_),"""
assert s.count(old) == 1
open(p, "w").write(s.replace(old, new))
PY
for NAME_DIM in ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu:1 ws3_lazy_qp_ot_pm_dm_wu:1 ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu:1 \
                ws_op_lazy_qp_w_ot_pr_pk_dm_wu:2; do
  NAME=${NAME_DIM%%:*}; DIMS=${NAME_DIM##*:}
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  for SRC in kernel_src:index "$T/kernel_src":count; do
    V=$(nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=$DIMS -DFA_CAUSALS=1 \
      -I${SRC%%:*} -cubin -o "$T/k.cubin" ${SRC%%:*}/fa_fwd.cu -Xptxas -v 2>&1 | grep -E "Used|spill" | tail -2 | tr -s ' ' | tr '\n' ';')
    echo "$NAME D$((DIMS * 64)) loop by ${SRC##*:}:$V"
    count "$T/k.cubin"
  done
done
