// The defect battery's hooks: deliberately wrong variants that only the build's defect switch
// (FA_DEFECT, experiments/defects.py) reaches, never a knob. The correctness tier must reject every
// one of them. Every place the kernel reads FA_DEFECT is a function here, constant at compile time:
// with FA_DEFECT=0 each hook is the correct kernel's constant and the code is the same as without it
// (scripts/check_default_ptx_exact.sh).
#pragma once

#ifndef FA_DEFECT
#define FA_DEFECT 0
#endif

namespace fa {

enum {
  DEF_NONE = 0, DEF_ONE_SIDED_SWIZZLE, DEF_MISSING_COMMIT, DEF_CAUSAL_OFF_BY_ONE, DEF_WRONG_SCALE,
  DEF_DROPPED_RESCALE, DEF_MISSING_SYNC, DEF_PARTIAL_WRITE, DEF_NO_WRITE, DEF_WRITES_INPUT,
  DEF_SIDE_STREAM, DEF_NO_TAIL_MASK,
  // faults that end the worker rather than its output (the GPU fault battery, experiments.defects.FAULTS):
  // a kernel that never returns and one that stores to an unmapped address
  DEF_HANG, DEF_ILLEGAL_ADDRESS,
  // numerics that N(0,1) inputs cannot see by design, only the tier's hostile patterns
  // (experiments.defects.NUMERICS): a lazy rescale that lets P past fp16's range
  DEF_LAZY_OVERFLOW
};

namespace defect {
// tiles stored swizzled, read row-major: conflict-free and wrong (Tile::rd)
constexpr bool kRowMajorReads = FA_DEFECT == DEF_ONE_SIDED_SWIZZLE;
// V's cp.async group never committed, so the wait does not cover it
constexpr bool kCommitV = FA_DEFECT != DEF_MISSING_COMMIT;
// the causal mask lets each row see one key past the diagonal (0 or 1 added to the row)
constexpr int kCausalSlack = FA_DEFECT == DEF_CAUSAL_OFF_BY_ONE;
// no __syncthreads between staging K/V and reading them
constexpr bool kSyncStaged = FA_DEFECT != DEF_MISSING_SYNC;
// O not rescaled when the running max grows
constexpr bool kDropRescale = FA_DEFECT == DEF_DROPPED_RESCALE;
// keys past N not masked: zero-filled rows score 0 instead of -inf
constexpr bool kMaskTail = FA_DEFECT != DEF_NO_TAIL_MASK;
// launched on a private stream the caller never waits for (host)
constexpr bool kSideStream = FA_DEFECT == DEF_SIDE_STREAM;
// how far (log2 units) a lazy row's max may fall behind before it is raised: 8 keeps P = 2^(s - m) under
// 2^8; the defect's 20 lets P reach 2^20, past fp16's 65504 once a row's max climbs across key blocks
constexpr float kLazyLog2 = FA_DEFECT == DEF_LAZY_OVERFLOW ? 20.f : 8.f;

// the softmax scale, 6.25% too large in the wrong-scale defect
__host__ __device__ __forceinline__ constexpr float scale(float s) {
  return FA_DEFECT == DEF_WRONG_SCALE ? s * 1.0625f : s;
}
// whether output n-tile i of DT is left unstored (no write at all, or the last 8 columns)
__host__ __device__ __forceinline__ constexpr bool skips_store(int i, int DT) {
  return FA_DEFECT == DEF_NO_WRITE || (FA_DEFECT == DEF_PARTIAL_WRITE && i == DT - 1);
}
// this CTA staged Q to shared memory already and no other CTA reads these rows: the output stays
// right, only the caller's input changes
// (P: the dtype's Pack, for the 0.5 it writes)
template <class P, typename T>
__device__ __forceinline__ void writes_input(const T* Qg, int q0) {
  if (FA_DEFECT == DEF_WRITES_INPUT && threadIdx.x == 0 && q0 == 0) const_cast<T*>(Qg)[0] = P::cast(0.5f);
}
// at the kernel's entry: a hang, or a sticky illegal-address fault
__device__ __forceinline__ void entry_faults() {
  // never returns (the cycle counter turns negative after about 146 years at 2 GHz): only the worker's
  // deadline ends it. clock64() is a volatile read, so the loop cannot be optimised away.
  if (FA_DEFECT == DEF_HANG)
    while (clock64() >= 0) {
    }
  // a store to address 64, which no allocation maps: a sticky illegal-address fault in the context
  if (FA_DEFECT == DEF_ILLEGAL_ADDRESS && threadIdx.x == 0) *reinterpret_cast<volatile int*>(uintptr_t{64}) = 1;
}
}  // namespace defect

}  // namespace fa
