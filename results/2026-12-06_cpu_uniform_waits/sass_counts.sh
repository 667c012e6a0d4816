#!/usr/bin/env bash
# SASS of the N8192 D128 kernels (sm_90a, fp16, D=128, non-causal), counted: convergence barriers (BSSY/BSYNC), warp
# syncs, votes, named-barrier syncs, yields, and where the shared-memory window's base is read (SR_CgaCtaId: into a
# uniform register by S2UR, or a per-thread one by S2R). cuobjdump from the nvidia-cuda-nvcc wheel's bin directory
# (CUOBJDUMP, or on PATH).
# Usage: bash results/2026-12-06_cpu_uniform_waits/sass_counts.sh > results/2026-12-06_cpu_uniform_waits/sass_counts.txt
cd "$(dirname "$0")/../.."
CUO=${CUOBJDUMP:-$(command -v cuobjdump || python3 -c "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13/bin/cuobjdump'))")}
for NAME in ws_op_lazy_w_oq_pk_dm ws_op_lazy_w_oq_pk_dm_uw ws_op_lazy_qp_w_ot_pr_pk_dm ws_op_lazy_qp_w_ot_pr_pk_dm_uw; do
  DEFS=$(PYTHONPATH=$PWD:$PWD/scripts python3 -c "
import sys
from device_suite import KERNELS
from kernel_src.knobs import Knobs
print(' '.join(f'-D{a}={v}' for a, v in Knobs.parse(KERNELS[sys.argv[1]]).defines().items()))" "$NAME")
  nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a $DEFS -DFA_DTYPES=1 -DFA_DIMS=2 -DFA_CAUSALS=1 \
    -Ikernel_src -cubin -o /tmp/sass_uw.cubin kernel_src/fa_fwd.cu 2>/dev/null
  S=$("$CUO" -sass /tmp/sass_uw.cubin)
  n() { echo "$S" | grep -c "$1"; }
  echo "$NAME: $(echo "$S" | grep -c '/\*[0-9a-f]*\*/') instructions; BSSY $(n BSSY) BSYNC $(n BSYNC) WARPSYNC $(n WARPSYNC)" \
       "VOTE $(n VOTE) BAR.SYNC $(n BAR.SYNC) YIELD $(n YIELD); SR_CgaCtaId by S2UR $(n 'S2UR.*SR_CgaCtaId') by S2R $(n 'S2R .*SR_CgaCtaId')"
done
