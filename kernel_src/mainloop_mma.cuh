// The tensor-core mainloop (compute=mma: mma.sync; compute=wgmma: warpgroup MMA, sm_90a): one work
// item, a query tile against its key blocks. The work is in the components: the compute path's GEMMs
// (gemm_sm80.cuh, gemm_sm90.cuh), the K/V ring (kv_ring.cuh), the online softmax (softmax.cuh) and the
// epilogue (epilogue.cuh). What is left here is the item's registers and the order in which each key
// block calls the components.
//
// Why the registers and a few lambdas stay here: nvcc's optimiser runs on a lambda's body before it
// inlines it, and on a __forceinline__ function's only after, so the lambdas below (buf, stage_of,
// tma_fill, turn_begin, turn_end, s_issue, s_gemm, block, p) keep the boundaries the kernel was measured
// with, and the accumulators (Q fragments, O, the softmax's m and l) stay arrays of this function, passed
// to the components by reference. As members of the components' structs, or with those lambdas turned
// into member functions, the same arithmetic compiled to reordered instructions (one-buffer kernels, the
// TMA ring's refill test, ping-pong's first turn); scripts/check_ptx_unchanged.py compares the PTX of
// every covering configuration with the kernel's before the split
// (results/2026-12-01_cpu_build_checks/ptx_unchanged.txt).
#pragma once
#include <type_traits>

#include "config.cuh"
#include "copy.cuh"
#include "defects.cuh"
#include "epilogue.cuh"
#include "gemm_sm80.cuh"
#include "kv_ring.cuh"
#include "softmax.cuh"
#include "target.cuh"
#include "tile.cuh"
#if FA_COMPUTE == 2
#include "gemm_sm90.cuh"
#endif

namespace fa {

template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void mainloop_mma(const T* Qg, const T* Kg, const T* Vg, Dest<T> dst, int N, float scale,
                                         T* Qs, T* Ks, T* Vs, int q0, int split, TmaSrc tma = {}) {
  constexpr int NT = K::BC / 8;  // score n-tiles
  constexpr int DT = D / 8;      // output n-tiles
  constexpr int NS = K::KV_STAGES;
  constexpr int MT = K::MT;      // 16-row m-tiles per warp: 1, or 2 when BR = 32 x WARPS
  [[maybe_unused]] constexpr bool WG = K::COMPUTE == WGMMA;
  using Sm80 = GemmSm80<K, T, D>;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, t = lane & 3;
  const int r0 = warp * 16 * MT;  // this warp's first local row
  // the fused softmax's scale, 1 in the separate form (see softmax.cuh)
  constexpr bool FUSED = K::SOFTMAX == SOFTMAX_FUSED;
  const float sc = FUSED ? defect::scale(scale) : 1.f;

  constexpr bool producer = ROLE == ROLE_PRODUCER;
  if constexpr (!producer) {  // Q is the consumers' (the producer warpgroup stages only K and V)
    stage<K, D, K::BR>(Qs, Qg, q0, N);
    stage_wait<K>();
    async_visible<K>();
    if constexpr (K::PRODUCER)
      asm volatile("bar.sync 1, %0;\n" ::"n"(K::THREADS) : "memory");  // the consumer warps alone
    else
      __syncthreads();
  }
  typename Sm80::QFrags qf;  // (FA_Q_IN=0: Q's fragments, held across the key loop)
  Sm80::load_q(qf, Qs, r0, lane);
  defect::writes_input<Pack<T>>(Qg, q0);

  float o[MT][DT][4];
  float m[MT][2], l[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int i = 0; i < DT; ++i) o[mt][i][0] = o[mt][i][1] = o[mt][i][2] = o[mt][i][3] = 0.f;
  }
  softmax_init<K>(m, l);
  const int row0 = q0 + r0 + g, row8 = row0 + 8;  // this thread's rows in the first m-tile
  const int nkv = kv_blocks<K, CAUSAL>(q0, N);
  // Split-KV: this item covers key blocks [kb_lo, kb_hi) of the nkv the tile needs; with causal
  // masking a short tile's later splits may be empty (their partial weighs nothing in the combine).
  int kb_lo = 0, kb_hi = nkv;
  if constexpr (K::SPLITS > 1) {
    const int per = (nkv + K::SPLITS - 1) / K::SPLITS;
    kb_lo = min(nkv, split * per);
    kb_hi = min(nkv, kb_lo + per);
  }

  constexpr int KV_TILE = K::BC * Tile<D, K::LAYOUT>::STRIDE;  // elements of one K (or V) buffer
  auto buf = [&](int kb) { return NS > 1 ? ((kb - kb_lo) % NS) * KV_TILE : 0; };
  auto stage_of = [&](int kb) { return NS > 1 ? (kb - kb_lo) % NS : 0; };
#if FA_STAGING == 2
  uint64_t* kbar = reinterpret_cast<uint64_t*>(Vs + K::BC * NS * Tile<D, K::LAYOUT>::STRIDE);  // (kv_ring.cuh)
  uint64_t* vbar = kbar + NS;
  auto tma_fill = [&](int kb) {  // block kb's K and V into its stage, by the calling thread alone
    ring_tma_tile<K, D>(Ks + buf(kb), tma.k, kbar + stage_of(kb), kb, tma.z);
    ring_tma_tile<K, D>(Vs + buf(kb), tma.v, vbar + stage_of(kb), kb, tma.z);
  };
#else
  auto tma_fill = [](int) {};  // (no TMA in this build)
#endif
  const KvRing<K, T, D, decltype(buf), decltype(stage_of), decltype(tma_fill)> ring(buf, stage_of, tma_fill, Ks, Vs, Kg,
                                                                                    Vg, N, kb_lo, kb_hi, tma);
#if FA_STAGING == 2
  if constexpr (K::PRODUCER && producer) {  // the producer warpgroup issues the item's copies and is done
    ring.produce();
    return;
  }
#endif
  ring.prologue();

#if FA_COMPUTE == 2
  using Sm90 = GemmSm90<K, T, D>;
  [[maybe_unused]] const int my_wg = warp / 4;
  auto turn_begin = [&] { PingPong<K>::begin(my_wg); };
  auto turn_end = [&](bool more) { PingPong<K>::end(my_wg, more); };
  if constexpr (K::PINGPONG) {  // (written here: as a function it compiled to another comparison)
    if (my_wg == 1 && kb_lo < kb_hi) named_arrive<2, 256>();  // warpgroup 0's first turn
  }
  auto s_issue = [&](const T* Kb, float (&s)[MT][NT][4]) { Sm90::qk_issue(Kb, s, Qs, warp, turn_begin, turn_end); };
#endif
  // S = Q K^T, waited for
  auto s_gemm = [&](const T* Kb, float (&s)[MT][NT][4]) {
#if FA_COMPUTE == 2
    if constexpr (WG) {
      s_issue(Kb, s);
      wg_wait<0>();
      return;
    }
#endif
    Sm80::qk(Kb, s, Qs, qf, r0, lane);
  };

  // Software pipelining across key blocks (FA_PIPELINE=1, needs the K/V ring): block j+1's QK^T is
  // issued before block j's softmax, so the tensor pipe works on S(j+1) while the FMA and MUFU pipes
  // work on P(j) (the intra-warp form of FlashAttention-3's overlap; the issue-bound diagnosis at 2
  // warps per scheduler is a chain of waits this interleaving can fill). Costs a second set of score
  // accumulators (MT x BC/2 registers), and K(j+1) must have landed one block earlier: with two
  // stages its load is exposed, with three it has a block to arrive. Same arithmetic, bitwise equal.
  // H200 on t128x32w4 (255 registers, 116 B spilled): 0.848 at N=8192 fp16, 0.866 at causal
  // N=32768 bf16; not measured on the BR 64 tiles where it does not spill. On the wgmma arm the next
  // block's QK^T is an asynchronous wgmma group issued before the softmax and waited for with this
  // block's PV: the tensor cores run under the softmax inside one warpgroup; ptxas serialises nothing
  // (results/2026-11-30_cpu_build_checks/wgmma_pipeline_build.txt); it passed the tier on the H200
  // (results/2026-11-30_h200_session6), its speed not yet measured.
  constexpr bool PIPE = K::PIPELINE && NS > 1;
  float ahead[PIPE ? MT : 1][PIPE ? NT : 1][4];
  if constexpr (PIPE) {
    if (kb_lo < kb_hi) {
      ring.first_k();
      s_gemm(ring.k(kb_lo), ahead);
    }
  }

  // One key block. MASK_T is std::true_type/std::false_type: the loop split (FA_CAUSAL_MASK=2)
  // makes the mode a type, so each loop body is compiled for one kind of block only. H200 causal
  // N=32768 bf16: predicate 0.998 NULL, split 0.930 (189 registers against 179).
  auto block = [&](int kb, auto mask_t) {
    const int k0 = kb * K::BC;
    const T* Kb = ring.k(kb);
    const T* Vb = ring.v(kb);
    ring.template acquire<PIPE>(kb);

    float s[MT][NT][4];
    if constexpr (PIPE) {
      // the scores of this block were computed one block ago; the next block's go under this softmax
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) s[mt][j][e] = ahead[mt][j][e];
#if FA_COMPUTE == 2
      // wgmma: the next block's QK^T is only issued here; it runs under this softmax and is waited for
      // with this block's PV
      if constexpr (WG) {
        if (kb + 1 < kb_hi) s_issue(ring.k(kb + 1), ahead);
      } else
#endif
      if (kb + 1 < kb_hi) s_gemm(ring.k(kb + 1), ahead);
    } else {
      s_gemm(Kb, s);
    }
    // Scale, mask (key tail, causal diagonal) and the online-softmax update for rows g, g+8 of
    // every m-tile.
    // (MT == 1 keeps the statement order this kernel was measured with: sm_120's ptxas gives the D=64
    // non-causal instantiation a 128-register target of its own, which the generic loop's order
    // misses by a 16-byte spill and this order meets; sm_80/90 allocate the same either way.)
    // (Written here, not in softmax.cuh: as a function of its own, the same update compiled to other
    // branch layouts of the predicate mask, MT == 1 or 2 depending on where `edge` was computed.)
    [[maybe_unused]] const bool edge = k0 + K::BC > N || (CAUSAL && k0 + K::BC - 1 > q0);
    float alpha[MT][2], meff[MT][2];
    bool changed = false;
    if constexpr (MT == 1) {
      float mx[2] = {-INFINITY, -INFINITY};
      const int rowa = row0, rowb = row8;
      if constexpr (K::CAUSAL_MASK == MASK_RUNTIME) {
        scale_mask<K, CAUSAL, true>(s[0], mx, k0, rowa, rowb, t, N, scale, edge);
      } else if constexpr (K::CAUSAL_MASK == MASK_PREDICATE) {
        if (edge)
          scale_mask<K, CAUSAL, true>(s[0], mx, k0, rowa, rowb, t, N, scale, true);
        else
          scale_mask<K, CAUSAL, false>(s[0], mx, k0, rowa, rowb, t, N, scale, false);
      } else {
        scale_mask<K, CAUSAL, decltype(mask_t)::value>(s[0], mx, k0, rowa, rowb, t, N, scale, true);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 1));
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 2));
        const float mnew = new_max<K>(m[0][h], mx[h], sc);
        meff[0][h] = mnew == -INFINITY ? 0.f : mnew;
        alpha[0][h] = FUSED ? fexp<K::EXP>((m[0][h] - meff[0][h]) * sc) : fexp<K::EXP>(m[0][h] - meff[0][h]);
        m[0][h] = mnew;
        l[0][h] *= alpha[0][h];
      }
      changed = alpha[0][0] != 1.f || alpha[0][1] != 1.f;
    } else {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      float mx[2] = {-INFINITY, -INFINITY};
      const int rowa = row0 + mt * 16, rowb = rowa + 8;
      if constexpr (K::CAUSAL_MASK == MASK_RUNTIME) {
        // one body for every block: the per-element test carries a runtime flag
        scale_mask<K, CAUSAL, true>(s[mt], mx, k0, rowa, rowb, t, N, scale, edge);
      } else if constexpr (K::CAUSAL_MASK == MASK_PREDICATE) {
        if (edge)
          scale_mask<K, CAUSAL, true>(s[mt], mx, k0, rowa, rowb, t, N, scale, true);
        else
          scale_mask<K, CAUSAL, false>(s[mt], mx, k0, rowa, rowb, t, N, scale, false);
      } else {
        scale_mask<K, CAUSAL, decltype(mask_t)::value>(s[mt], mx, k0, rowa, rowb, t, N, scale, true);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 1));
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 2));
        const float mnew = new_max<K>(m[mt][h], mx[h], sc);
        meff[mt][h] = mnew == -INFINITY ? 0.f : mnew;
        alpha[mt][h] = FUSED ? fexp<K::EXP>((m[mt][h] - meff[mt][h]) * sc) : fexp<K::EXP>(m[mt][h] - meff[mt][h]);
        m[mt][h] = mnew;
        l[mt][h] *= alpha[mt][h];
        changed |= alpha[mt][h] != 1.f;
      }
    }
    }
    rescale_o<K>(o, alpha, changed);
    auto p = [&](int mt, int j, uint32_t* out) { p_tile<K, Pack<T>>(s, meff, l, sc, mt, j, out); };
    // P slab by slab (FA_PV_SLAB=1). Hypothesis: in a two-m-tile warp (BR 128 on 4 warps)
    // at D=128, O (128 fp32) and S (MT x BC/2) are live together, and packing the whole block's P before
    // the first PV MMA keeps P's MT x BC/4 registers live beside them: ptxas spills 16-120 B at 128 x 64
    // (results/2026-11-30_cpu_build_checks/bc64_spill_scan.txt). Made one 16-key slab at a time and
    // multiplied in at once, each slab's S dies as its P is packed and P's live range is one slab (MT x 4
    // registers), so FA2's 128 x 64 tile on 4 warps fits in 255 registers without spilling (sm_80/sm_90).
    // The cost: this block's V is waited for before its exponentials, not under them. Each row's sum and
    // each accumulator add the same terms in the same order: bitwise equal. H200, the lean 128 x 64 kernel
    // with it: 1.004-1.006x SDPA flash at N=8192 D=128 fp16, 1.033x causal (results/2026-11-30_h200_session9).
    if constexpr (K::PV_SLAB) {
      ring.template v_ready<PIPE>(kb);  // this block's V, before any P
      Sm80::pv_slab(p, Vb, o, lane);
    } else {
      uint32_t pf[MT][NT][2];  // P packed to the input dtype, two values per register
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int j = 0; j < NT; ++j) p(mt, j, pf[mt][j]);
      ring.template v_ready<PIPE>(kb);  // this block's V
#if FA_COMPUTE == 2
      if constexpr (WG) Sm90::pv(pf, Vb, o, turn_begin, turn_end, kb + 1 < kb_hi);
      else
#endif
      Sm80::pv(pf, Vb, o, lane);
    }
    ring.release(kb, lane);
  };

  if constexpr (K::CAUSAL_MASK == MASK_SPLIT) {
    // interior blocks: every key < N and (causal) every key <= the tile's first row
    const int full = min(nkv, min(N / K::BC, CAUSAL ? (q0 + 1) / K::BC : nkv));
    for (int kb = kb_lo; kb < min(full, kb_hi); ++kb) block(kb, std::false_type{});
    for (int kb = max(full, kb_lo); kb < kb_hi; ++kb) block(kb, std::true_type{});
  } else {
    for (int kb = kb_lo; kb < kb_hi; ++kb) block(kb, std::true_type{});
  }
  ring.drain();
  store_item<K, T, D>(o, m, l, sc, dst, Qs, q0, r0, row0, row8, g, t, lane, N);
}

}  // namespace fa
