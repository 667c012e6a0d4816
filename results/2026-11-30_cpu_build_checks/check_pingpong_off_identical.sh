#!/usr/bin/env bash
# With pingpong off (and, before BASE_PRODUCER, everything but kv_release=producer), the kernel compiles to
# the same PTX as the source at BASE: scripts/check_knobs_off_identical.sh's normalisation (virtual-register
# numbers and mangled names stripped) on sm_80, sm_90, sm_90a and sm_120. No GPU needed.
#   bash results/2026-11-30_cpu_build_checks/check_pingpong_off_identical.sh BASE BASE_PRODUCER
# BASE: before the empty-mbarrier producer and pingpong (every configuration but kv_release=producer's
# must match it); BASE_PRODUCER: the empty-mbarrier producer, before pingpong (kv_release=producer's must
# match it). The producer rows against BASE are printed too: they differ by design (the wait changed).
set -euo pipefail
BASE=$1; BASE_P=$2; W=$(mktemp -d); trap 'rm -rf $W' EXIT
snap() { mkdir -p $2; for f in $(git ls-tree --name-only $1 kernel_src/ | grep -E '\.cuh?$'); do git show $1:$f > $2/${f#kernel_src/}; done; }  # every kernel source of commit $1 into $2
for b in $BASE $BASE_P; do snap $b $W/$b; done
mkdir -p $W/new; cp kernel_src/*.cu kernel_src/*.cuh $W/new/
WG="-DFA_COMPUTE=2 -DFA_LAYOUT=3 -DFA_EXP=1 -DFA_Q_IN=1"
TMA="$WG -DFA_STAGING=2"
T128="-DFA_BR=128 -DFA_WARPS=8"
declare -A CFG=(
  [agent_final_sm_90]="-arch=sm_90 -DFA_COMPUTE=1 -DFA_LAYOUT=2 -DFA_STAGING=1 -DFA_EXP=1 -DFA_BR=128 -DFA_BC=32 -DFA_WARPS=4 -DFA_KV_STAGES=2 -DFA_Q_IN=1 -DFA_RESCALE_SKIP=1 -DFA_PERSISTENT=1"
  [swizzle_sm_80]="-arch=sm_80 -DFA_COMPUTE=1 -DFA_LAYOUT=1 -DFA_STAGING=1 -DFA_EXP=1"
  [split_kv3_sm_120]="-arch=sm_120 -DFA_COMPUTE=1 -DFA_LAYOUT=1 -DFA_STAGING=1 -DFA_EXP=1 -DFA_KV_STAGES=3 -DFA_CAUSAL_MASK=2 -DFA_SPLIT_KV=2"
  [seed_sm_80]="-arch=sm_80"
  [wgmma_cp_async_t64x64_ks2_sm_90a]="-arch=sm_90a $WG -DFA_STAGING=1 -DFA_KV_STAGES=2"
  [wgmma_tma_t64x64_ks2_sm_90a]="-arch=sm_90a $TMA -DFA_KV_STAGES=2"
  [wgmma_tma_t128x64w8_ks2_lazy_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_KV_STAGES=2 -DFA_RESCALE_SKIP=1 -DFA_RESCALE_LAZY=1"
  [wgmma_tma_t128x128w8_ks2_pipeline_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_BC=128 -DFA_KV_STAGES=2 -DFA_PIPELINE=1"
  [wgmma_tma_ks3_persistent_pipeline_sm_90a]="-arch=sm_90a $TMA -DFA_BC=32 -DFA_KV_STAGES=3 -DFA_PIPELINE=1 -DFA_PERSISTENT=1 -DFA_CAUSAL_MASK=2"
  [last_warp_t128x64w8_ks2_lazy_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_KV_STAGES=2 -DFA_RESCALE_SKIP=1 -DFA_RESCALE_LAZY=1 -DFA_KV_RELEASE=1"
  [last_warp_ks3_persistent_pipeline_sm_90a]="-arch=sm_90a $TMA -DFA_BC=32 -DFA_KV_STAGES=3 -DFA_PIPELINE=1 -DFA_PERSISTENT=1 -DFA_CAUSAL_MASK=2 -DFA_KV_RELEASE=1"
  [producer_t128x64w8_ks2_lazy_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_KV_STAGES=2 -DFA_RESCALE_SKIP=1 -DFA_RESCALE_LAZY=1 -DFA_KV_RELEASE=2"
  [producer_t128x128w8_ks2_pipeline_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_BC=128 -DFA_KV_STAGES=2 -DFA_PIPELINE=1 -DFA_KV_RELEASE=2"
  [producer_t64x32_ks3_persistent_split_sm_90a]="-arch=sm_90a $TMA -DFA_BC=32 -DFA_KV_STAGES=3 -DFA_PERSISTENT=1 -DFA_CAUSAL_MASK=2 -DFA_KV_RELEASE=2"
  [producer_t128x64w8_ks2_split2_causal_split_sm_90a]="-arch=sm_90a $TMA $T128 -DFA_KV_STAGES=2 -DFA_SPLIT_KV=2 -DFA_CAUSAL_MASK=2 -DFA_KV_RELEASE=2")
norm() { grep -v '^//' $1 | sed -E 's/_ZN2fa[A-Za-z0-9_]*//g; s/%(f|r|rd|p|fd|h|hh)[0-9]+/%\1/g'; }
ptx() { nvcc -O3 -std=c++17 -ptx ${CFG[$1]} $W/$2/fa_fwd.cu -o $W/$2.$1.ptx 2>/dev/null; }
for name in $(printf '%s\n' "${!CFG[@]}" | sort); do
  ptx $name new
  if [[ $name == producer_* ]]; then bases="$BASE_P $BASE"; else bases=$BASE; fi
  for b in $bases; do
    ptx $name $b
    n=$( (diff <(norm $W/$b.$name.ptx) <(norm $W/new.$name.ptx) || true) | wc -l)
    echo "$name against $b (${CFG[$name]}): $(norm $W/$b.$name.ptx | wc -l) PTX lines, $n lines differ"
  done
done
