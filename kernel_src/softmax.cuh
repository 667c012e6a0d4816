// The online softmax and its rescale rules: the exponential (expf, ex2.approx, a cubic on the FMA
// pipe for a share of P), scaling and masking a block's scores, the running max update (exact or
// lazy) and the max in the exponent's units. The tensor-core mainloops call these per key block.
#pragma once
#include <stdint.h>

#include "config.cuh"
#include "defects.cuh"

namespace fa {

// exp of a score already multiplied by the host scale. With EX2 the host folded log2(e) into
// the scale, so scores and the running max live in the log2 domain and the exponential is one
// MUFU.EX2; expf lowers to ~8 instructions of which one is MUFU (seed v4: +9% on the 5090,
// paid on the FMA/ALU pipes, not the SFU; H200 N=2048 fp16: 1.110x paired). ex2.approx(-inf) =
// +0: a masked key adds nothing.
template <int EXP>
__device__ __forceinline__ float fexp(float x) {
  if (EXP == EXP_EX2) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
  return expf(x);
}

// 2^x on the FMA pipe (FA_EXP_POLY), for a part whose MUFU pipe saturates: MUFU.EX2 issues at a
// quarter of the FMA rate, and the exponentials of P are one MUFU per score (FlashAttention-4 moves
// a share of them to a polynomial on Blackwell). Round x to the nearest integer j with the 1.5 x 2^23
// shifter (an FADD; j lands in t's low mantissa bits), f = x - j in [-0.5, 0.5], 2^f by a cubic
// (Horner, three FFMA; coefficients fitted here for minimax relative error, 7.5e-5 in fp32, under
// fp16's 4.9e-4 rounding of P), and 2^j added to the exponent field as an integer (a shift and an
// add). x below -125 (a masked score, -inf) reads 0, as ex2.approx.ftz gives. About 8 instructions
// on the FMA and ALU pipes for one MUFU: a trade for an MUFU-bound kernel, a loss for an issue-bound
// one (the H200's mma.sync kernels read issue-bound). Not bitwise: within the tier's bound. H200
// against the unrolled-copies kernel: quarter 0.955 / half 0.924 at N=8192 fp16, 0.966 / 0.903 at
// causal N=32768 bf16, all SLOWER (results/2026-11-30_h200_mma_reaches_flash/call2); the 5090 not measured.
__device__ __forceinline__ float ex2_poly(float x) {
  const float xc = fmaxf(x, -127.f);
  const float t = xc + 12582912.f;
  const float f = xc - (t - 12582912.f);
  float p = fmaf(fmaf(fmaf(0.05517050f, f, 0.24260852f), f, 0.69326097f), f, 0.99992824f);
  p = __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
  return x < -125.f ? 0.f : p;
}
// The exponential of the E-th of a thread's four scores of an n-tile (E = 0..3: rows g and g+8, two
// columns each): with FA_EXP_POLY=1 the fourth goes to the cubic, with 2 the second and the fourth.
template <class K, int E>
__device__ __forceinline__ float pexp(float x) {
  if constexpr ((K::EXP_POLY == 1 && E == 3) || (K::EXP_POLY == 2 && (E & 1))) return ex2_poly(x);
  return fexp<K::EXP>(x);
}

// Scale and mask one block's scores and return the row maxima (rows g, g+8 of the warp).
// MASK is a template argument, not a runtime flag: with FA_CAUSAL_MASK >= 1 the interior blocks
// (no key past N, none past the diagonal) are compiled without the predicate at all; seed v7
// exp10: +2.18% from deleting it from 1023 of 1024 causal blocks.
// With FA_SOFTMAX=1 the scale is not applied here (SCALE false): the scores and the row max stay in
// raw units and the exponential takes s * c - m * c as one FFMA (see mainloop_mma.cuh).
template <class K, bool CAUSAL, bool MASK, int NT, bool SCALE = K::SOFTMAX == SOFTMAX_SEPARATE>
__device__ __forceinline__ void scale_mask(float (&s)[NT][4], float (&mx)[2], int k0, int rowa, int rowb, int t,
                                           int N, float scale, bool edge) {
  // FA_PV_SLAB=1 (see mainloop_mma.cuh): the first masked column of each row, relative to this thread's first
  // column, computed once (a key col is masked when col >= lim: the tail, or past the diagonal), so
  // each element's test is a compile-time offset against it: fewer live values than a column and a row
  // index per element. Integer arithmetic on the same conditions: the same elements are masked.
  [[maybe_unused]] int lim[2];
  if constexpr (MASK && K::PV_SLAB) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int l = defect::kMaskTail ? N : 0x3fffffff;
      if (CAUSAL) l = min(l, (h ? rowb : rowa) + 1 + defect::kCausalSlack);
      lim[h] = edge ? l - k0 - 2 * t : 0x3fffffff;
    }
  }
#pragma unroll
  for (int j = 0; j < NT; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      [[maybe_unused]] const int col = k0 + j * 8 + 2 * t + (e & 1);  // (FA_PV_SLAB=0's test, in its order)
      [[maybe_unused]] const int row = e < 2 ? rowa : rowb;
      float v = s[j][e];
      if constexpr (SCALE) v *= defect::scale(scale);
      if constexpr (K::PV_SLAB) {
        if (MASK && j * 8 + (e & 1) >= lim[e >> 1]) v = -INFINITY;
      } else {
        if (MASK && edge && ((defect::kMaskTail && col >= N) ||
                     (CAUSAL && col > row + defect::kCausalSlack))) v = -INFINITY;
      }
      s[j][e] = v;
      mx[e >> 1] = fmaxf(mx[e >> 1], v);
    }
  }
}

// The running max update. Lazy (FA_RESCALE_LAZY=1, the FlashAttention-4 idea): a row keeps its max
// until a block raises it by more than 8 in log2 units, so P = 2^(s - m) may reach 2^8 (fp16 and
// bf16 hold it; l and O accumulate in fp32) and alpha stays exactly 1, which the rescale vote then
// skips. Exact after the final division by l, and the LSE m + log2(l) is the same sum. Hypothesis:
// with exact skipping a warp of 16-32 rows still rescales in most early blocks (some row's max
// grows); lazily, after the first block almost never. H200 from the agent's N=8192 final kernel
// (t128x32w4, 2 stages, persistent): 1.0306 KEPT at N=8192 fp16, 0.9819 at causal N=32768 bf16
// (results/2026-11-30_h200_fa2_levers).
// lazy_keeps: whether a row keeps its max m where the block would raise it to up = max(m, block max) (always false
// when not lazy); new_max: the row's max after the block.
template <class K>
__device__ __forceinline__ bool lazy_keeps(float m, float up, float sc) {
  if constexpr (K::RESCALE_LAZY) {
    const float grow = K::SOFTMAX == SOFTMAX_FUSED ? (up - m) * sc : up - m;  // log2 units; NaN if both -inf
    return grow <= defect::kLazyLog2;
  }
  (void)m, (void)up, (void)sc;
  return false;
}
template <class K>
__device__ __forceinline__ float new_max(float m, float mx, float sc) {
  const float mnew = fmaxf(m, mx);
  return lazy_keeps<K>(m, mnew, sc) ? m : mnew;
}
// The max in the exponent's units: the separate softmax keeps it there already, the fused one in raw units.
template <class K>
__device__ __forceinline__ float m_units(float m, float sc) {
  if constexpr (K::SOFTMAX == SOFTMAX_FUSED) return m * sc;
  (void)sc;
  return m;
}

// The online softmax's state per warp: per m-tile (MT of them, rows g and g+8 of each) the running max m
// and sum l, and per key block the factor alpha that rescales O and the max meff the exponentials subtract.
// The mainloop owns these arrays and passes them in (held in a struct here, the same code compiled to other
// instructions); the update of m, l, alpha and meff from a block's scores is written in mainloop_mma.cuh's
// key block, from scale_mask, new_max and fexp above.
//
// Softmax in one FFMA (FA_SOFTMAX=1): the max is taken over raw scores and each exponential is
// ex2(s * c - m * c), one FFMA + one MUFU where the separate form pays an FMUL (scale), an FADD
// (minus the max) and the MUFU; FA2 does this. m * c is formed once per row and block. Not bitwise:
// one rounding where there were two. sc = c in the fused form, 1 in the separate one (never multiplied
// there). H200 from the agent's N=8192 final kernel: 1.0059 NULL at N=8192 fp16, 1.0070 KEPT at causal
// N=32768 bf16 (results/2026-11-30_h200_fa2_levers).
template <class K, int MT>
__device__ __forceinline__ void softmax_init(float (&m)[MT][2], float (&l)[MT][2]) {
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    m[mt][0] = m[mt][1] = -INFINITY;
    l[mt][0] = l[mt][1] = 0.f;
  }
}

// O *= alpha. Rescale skip: when no row of the warp raised its max, every alpha is exactly 1 (exp(0) = 1
// for expf and ex2.approx alike) and O * 1 == O, so skipping is bitwise identical. The vote is
// warp-uniform so the branch never diverges. Seed S5: -0.17% at 8 warps/SM, +0.97% at 12;
// H200 N=8192 at 8 warps/SM: 1.0009, NULL against that run's 1.08% A/A null; screened again
// 0.996 NULL, and 1.008 KEPT at causal N=32768 bf16 (results/2026-11-30_h200_margins).
template <class K, int MT, int DT>
__device__ __forceinline__ void rescale_o(float (&o)[MT][DT][4], const float (&alpha)[MT][2], bool changed) {
  bool rescale = true;
  if constexpr (K::RESCALE_SKIP) rescale = __any_sync(0xffffffff, changed);
  (void)changed;
  if (rescale) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int i = 0; i < DT; ++i) {
        if (defect::kDropRescale) break;
        o[mt][i][0] *= alpha[mt][0]; o[mt][i][1] *= alpha[mt][0];
        o[mt][i][2] *= alpha[mt][1]; o[mt][i][3] *= alpha[mt][1];
      }
  }
}

// P of n-tile j of m-tile mt: its four exponentials, added to the row sums, packed two to a register
// (P: the dtype's Pack)
template <class K, class P, int MT, int NT>
__device__ __forceinline__ void p_tile(const float (&s)[MT][NT][4], const float (&meff)[MT][2], float (&l)[MT][2],
                                       float sc, int mt, int j, uint32_t* out) {
  float p0, p1, p2, p3;
  if constexpr (K::SOFTMAX == SOFTMAX_FUSED) {
    const float n0 = -meff[mt][0] * sc, n1 = -meff[mt][1] * sc;  // hoisted out of j by the compiler
    p0 = pexp<K, 0>(fmaf(s[mt][j][0], sc, n0)); p1 = pexp<K, 1>(fmaf(s[mt][j][1], sc, n0));
    p2 = pexp<K, 2>(fmaf(s[mt][j][2], sc, n1)); p3 = pexp<K, 3>(fmaf(s[mt][j][3], sc, n1));
  } else {
    p0 = pexp<K, 0>(s[mt][j][0] - meff[mt][0]); p1 = pexp<K, 1>(s[mt][j][1] - meff[mt][0]);
    p2 = pexp<K, 2>(s[mt][j][2] - meff[mt][1]); p3 = pexp<K, 3>(s[mt][j][3] - meff[mt][1]);
  }
  l[mt][0] += p0 + p1;
  l[mt][1] += p2 + p3;
  out[0] = P::two(p0, p1);
  out[1] = P::two(p2, p3);
}

}  // namespace fa
