// The tensor-core mainloop (compute=mma: mma.sync; compute=wgmma: warpgroup MMA, sm_90a): one work
// item, a query tile against its key blocks, through the K/V ring. Its parts are components: the compute
// path's GEMMs (gemm_sm80.cuh, gemm_sm90.cuh), the staging and TMA primitives (copy.cuh), the softmax's
// exponentials, mask, max and rescale (softmax.cuh) and the item's stores (epilogue.cuh). What is written
// here is the item's registers and the schedule: the ring's buffers, copies, waits and releases per key
// block, and the softmax update between QK^T and PV.
//
// Why that stays here, as it was, with the small lambdas (buf, stage_of, tma_tile, wait_k, wait_v,
// tma_fill, issue, turn_begin, turn_end, s_issue, s_gemm, block, p_tile): nvcc's optimiser simplifies a
// __forceinline__ function's body on its own before it inlines it, and a lambda's before it inlines that,
// so moving a statement across such a boundary can change the code. Moved into a ring struct, a softmax
// function or struct members, the same arithmetic compiled to other instructions in some configurations (the
// unrolled copies' tail test next to the mask, one-buffer kernels, the TMA ring's refill test, ping-pong's
// first turn, the predicate mask's branches); scripts/check_ptx_unchanged.py compares the PTX of every covering
// and Hopper configuration with the kernel's before the split (results/2026-12-01_cpu_build_checks/).
#pragma once
#include <type_traits>

#include "config.cuh"
#include "copy.cuh"
#include "defects.cuh"
#include "epilogue.cuh"
#include "gemm_sm80.cuh"
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
  using TL = Tile<D, K::LAYOUT>;
  using Sm80 = GemmSm80<K, T, D>;  // the mma.sync GEMMs; Sm90 below, the warpgroup ones
  constexpr int NT = K::BC / 8;  // score n-tiles
  constexpr int DT = D / 8;      // output n-tiles
  constexpr int NS = K::KV_STAGES;
  constexpr int MT = K::MT;      // 16-row m-tiles per warp: 1, or 2 when BR = 32 x WARPS
  constexpr int KV_TILE = K::BC * TL::STRIDE;  // elements of one K (or V) buffer
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, t = lane & 3;
  const int r0 = warp * 16 * MT;  // this warp's first local row
  // Softmax in one FFMA (FA_SOFTMAX=1): the max is taken over raw scores and each exponential is
  // ex2(s * c - m * c), one FFMA + one MUFU where the separate form pays an FMUL (scale), an FADD
  // (minus the max) and the MUFU; FA2 does this. m * c is formed once per row and block. Not bitwise:
  // one rounding where there were two. sc = 1 in the separate form (never multiplied there). H200
  // from the agent's N=8192 final kernel: 1.0059 NULL at N=8192 fp16, 1.0070 KEPT at causal
  // N=32768 bf16 (results/2026-11-30_h200_fa2_levers).
  constexpr bool FUSED = K::SOFTMAX == SOFTMAX_FUSED;
  const float sc = FUSED ? defect::scale(scale) : 1.f;
  (void)sc;

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
  typename Sm80::QFrags qf;  // (FA_Q_IN=0: Q's fragments, held across the key loop; gemm_sm80.cuh)
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

  // K/V ring (FA_KV_STAGES >= 2): the item's n-th block lives in buffer n % NS, its K and V in two
  // cp.async groups; an empty pair is committed past the end so completion stays positional (seed
  // 2.5: skipping that final commit is a race only a load-bearing test sees). H200, N=8192 fp16
  // from the padded kernel: depth 2 1.030x paired (replicate 1.036), depth 3 0.745x (121,856
  // B/CTA, one CTA/SM), results/2026-11-30_h200_ladder; screened again 1.035x / 0.783x, and at
  // causal N=32768 bf16 0.956x / 0.625x (results/2026-11-30_h200_margins).
  auto buf = [&](int kb) { return NS > 1 ? ((kb - kb_lo) % NS) * KV_TILE : 0; };
#if FA_STAGING == 2
  // TMA staging (FA_STAGING=2): thread 0 arms the stage's K and V barriers with a tile's bytes and
  // issues its D/64 boxes each; everyone else issues nothing (no LDGSTS, no address arithmetic), and
  // each thread waits on the barrier itself, so no block barrier publishes a landed tile. The ring's
  // order and buffers are the cp.async ring's; the barrier that frees a buffer is the same.
  // Hypothesis: the wgmma kernel is issue-bound (H200 seed t64x64, two stages: issue active 59%,
  // tensor pipe 31%, results/2026-11-30_h200_wgmma_first_battery): the copies' issue slots go to the softmax.
  // H200 from the cp.async t128x64w8 kernel at N=8192: KEPT 1.2526 (results/2026-11-30_h200_tma_pipeline_tier).
  constexpr bool TMA = K::STAGING == STAGE_TMA;
  uint64_t* kbar = reinterpret_cast<uint64_t*>(Vs + K::BC * NS * TL::STRIDE);
  uint64_t* vbar = kbar + NS;
  // FA_KV_RELEASE=1: per stage, a count of the warps done with its buffer (8 bytes a stage after the
  // K and V barriers, zeroed once per CTA, never reset: it only grows, and a multiple of WARPS means
  // every warp is done). The warp that completes the count refills the buffer, so no thread waits.
  [[maybe_unused]] unsigned int* released = reinterpret_cast<unsigned int*>(vbar + NS);
  // FA_KV_RELEASE=2: in the same 8 bytes a stage, the stage's "empty" mbarrier (arrival count WARPS,
  // initialised once per CTA): each consumer warp arrives once per block it used the buffer for, so its
  // n-th phase completes when every warp is done with the stage's n-th fill
  [[maybe_unused]] uint64_t* empty = vbar + NS;
  auto stage_of = [&](int kb) { return NS > 1 ? (kb - kb_lo) % NS : 0; };
  auto tma_tile = [&](T* dst, const void* map, uint64_t* bar, int kb) { tma_load_tile<K, D>(dst, map, bar, kb, tma.z); };

  // every thread waits for block kb's K (or V) at the stage's current parity; V's wait ends the use
  auto wait_k = [&](int kb) { mbar_wait(kbar + stage_of(kb), (*tma.phase >> stage_of(kb)) & 1u); };
  auto wait_v = [&](int kb) {
    mbar_wait(vbar + stage_of(kb), (*tma.phase >> stage_of(kb)) & 1u);
    *tma.phase ^= 1u << stage_of(kb);
  };
#else
  constexpr bool TMA = false;
#endif
#if FA_STAGING == 2
  auto tma_fill = [&](int kb) {  // block kb's K and V into its stage, by the calling thread alone
    tma_tile(Ks + buf(kb), tma.k, kbar + stage_of(kb), kb);
    tma_tile(Vs + buf(kb), tma.v, vbar + stage_of(kb), kb);
  };
#endif
  auto issue = [&](int kb) {
#if FA_STAGING == 2
    if constexpr (TMA) {
      if (kb < kb_hi && threadIdx.x == 0) tma_fill(kb);
      return;
    }
#endif
    if (kb < kb_hi) {
      stage<K, D, K::BC>(Ks + buf(kb), Kg, kb * K::BC, N);
      stage<K, D, K::BC>(Vs + buf(kb), Vg, kb * K::BC, N, defect::kCommitV);
    } else {
      cp_async_commit();
      cp_async_commit();
    }
  };
#if FA_STAGING == 2
  if constexpr (K::PRODUCER) {
    // Warp specialisation (FA_KV_RELEASE=2): one thread of the producer warpgroup issues every K/V copy
    // of the item in order, each once the stage's empty barrier shows every consumer warp done with that
    // buffer's previous block; the consumers never issue a copy nor wait for one another. Hypothesis:
    // the copies' issue and the refill decisions leave the consumers' instruction stream entirely
    // (the arm is issue-bound), and the ring runs NS blocks ahead of the slowest consumer warpgroup.
    // The first form polled a per-stage count with ld.acquire in a spin loop: H200, N=8192 fp16, paired
    // against kv_release=barrier, 0.72x and 0.80x (results/2026-11-30_h200_kv_release_ws, arm_screen and
    // naive_n8192), and ncu reads this kernel family issue-bound (not_selected + dispatch ~45-48% of
    // stalls): the spinning thread took issue slots from the consumer warps of its SM sub-partition.
    // Now it waits as FlashAttention-3's and CUTLASS's pipelines do: mbarrier.try_wait.parity on the
    // stage's empty barrier, which suspends the thread in hardware until the phase completes (or a
    // time limit, then it asks again). Fill n of a stage (n counted per stage across the CTA's items,
    // as the consumers' arrivals are) waits for the barrier's phase n - 1, parity (n & 1) ^ 1; for n = 0
    // that is the phase before the first, which a fresh barrier reads as complete. A stage's phase
    // cannot run two ahead of its fills (its n-th phase needs the n-th fill consumed), so one parity
    // bit names the phase. H200, the same pair with this wait: SLOWER 0.7322 (582.6 -> 425.5 TFLOP/s,
    // results/2026-11-30_h200_kv_release_ws/call2): the spin was not what made warp specialisation lose here.
    if constexpr (producer) {
      if (threadIdx.x == K::THREADS) {
        for (int kb = kb_lo; kb < kb_hi; ++kb) {
          const int st = stage_of(kb);
          mbar_wait(empty + st, (tma.fills[st] & 1u) ^ 1u);
          ++tma.fills[st];
          tma_fill(kb);
        }
      }
      return;
    }
  }
#endif
  if constexpr (NS > 1 && !K::PRODUCER) {
    // FA_KV_RELEASE fills every stage here (each is free at the start of an item) and refills a stage
    // at the end of the block that used it; otherwise the last stage is filled at the first block's start
#pragma unroll
    for (int s = 0; s < NS - 1 + (K::KV_RELEASE ? 1 : 0); ++s) issue(kb_lo + s);
  }
  // One-buffer overlap (FA_KV_OVERLAP=1), FA2's schedule: the first K is in flight before the loop;
  // in each block V(j) is issued once K(j) has landed and lands under QK^T(j) and the softmax, and
  // K(j+1) is issued once every warp is past QK^T(j) and lands under P(j)V(j). The shared memory of
  // kv_stages=1 (one K, one V tile) with loads hidden as in a ring; two barriers a block, as the ring.
  // H200, replacing the agent's 2-stage ring: 0.937 at N=8192 fp16, 0.950 at causal N=32768 bf16.
  constexpr bool OVERLAP = NS == 1 && K::KV_OVERLAP;
  if constexpr (OVERLAP) {
    if (kb_lo < kb_hi) stage<K, D, K::BC>(Ks, Kg, kb_lo * K::BC, N);
  }

  // S = Q K^T. With two m-tiles per warp each K fragment feeds two mma: half the LDSM per mma.
  // H200 (BR 128 on 4 warps, 255 registers): 0.988x at N=8192 fp16, 0.923x at causal N=32768.
#if FA_COMPUTE == 2
  // Warpgroup MMA (gemm_sm90.cuh, which says what was measured): QK^T issued as an asynchronous group, waited
  // for by s_gemm before the softmax, or with FA_PIPELINE issued for the next block and waited for with this
  // block's PV; with FA_PINGPONG the two consumer warpgroups take turns to issue (the protocol is beside
  // PingPong there; warpgroup 1's arrival below gives warpgroup 0 the item's first turn).
  using Sm90 = GemmSm90<K, T, D>;
  [[maybe_unused]] const int my_wg = warp / 4;
  auto turn_begin = [&] { PingPong<K>::begin(my_wg); };
  auto turn_end = [&](bool more) { PingPong<K>::end(my_wg, more); };  // more: another turn in this item
  if constexpr (K::PINGPONG) {
    if (my_wg == 1 && kb_lo < kb_hi) named_arrive<2, 256>();  // warpgroup 0's first turn
  }
  auto s_issue = [&](const T* Kb, float (&s)[MT][NT][4]) { Sm90::qk_issue(Kb, s, Qs, warp, turn_begin, turn_end); };

#endif
  auto s_gemm = [&](const T* Kb, float (&s)[MT][NT][4]) {
#if FA_COMPUTE == 2
    if constexpr (K::COMPUTE == WGMMA) {
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
  // (results/2026-11-30_h200_tma_pipeline_tier), its speed not yet measured.
  constexpr bool PIPE = K::PIPELINE && NS > 1;
  float ahead[PIPE ? MT : 1][PIPE ? NT : 1][4];
  if constexpr (PIPE) {
    if (kb_lo < kb_hi) {
      if constexpr (TMA) {
#if FA_STAGING == 2
        wait_k(kb_lo);
#endif
      } else {
        cp_async_wait<2 * NS - 3>();  // K of the first block
        async_visible<K>();
        __syncthreads();
      }
      s_gemm(Ks + buf(kb_lo), ahead);
    }
  }

  // One key block. MASK_T is std::true_type/std::false_type: the loop split (FA_CAUSAL_MASK=2)
  // makes the mode a type, so each loop body is compiled for one kind of block only. H200 causal
  // N=32768 bf16: predicate 0.998 NULL, split 0.930 (189 registers against 179).
  auto block = [&](int kb, auto mask_t) {
    const int k0 = kb * K::BC;
    const T* Kb = Ks + buf(kb);
    const T* Vb = Vs + buf(kb);
    if constexpr (OVERLAP) {
      cp_async_wait<0>();  // K(kb), the only group in flight
      async_visible<K>();
      __syncthreads();     // K visible to every warp; every warp is done with V(kb - 1)
      stage<K, D, K::BC>(Vs, Vg, k0, N);
    } else if constexpr (NS == 1 && TMA) {
#if FA_STAGING == 2
      __syncthreads();  // every warp is done with the one K/V buffer
      issue(kb);
      wait_k(kb);
      wait_v(kb);
#endif
    } else if constexpr (NS == 1) {
      __syncthreads();
      stage<K, D, K::BC>(Ks, Kg, k0, N);
      stage<K, D, K::BC>(Vs, Vg, k0, N, defect::kCommitV);
      stage_wait<K>();
      async_visible<K>();
    } else if constexpr (TMA) {
#if FA_STAGING == 2
      // the buffer computed on last iteration; the barrier at its end freed it (FA_KV_RELEASE: the last
      // warp done with it refilled it there)
      if constexpr (!K::KV_RELEASE) issue(kb + NS - 1);
      if constexpr (PIPE) {
        if (kb + 1 < kb_hi) wait_k(kb + 1);  // the next block's K, for its QK^T under this softmax
      } else {
        wait_k(kb);  // this block's K; its V may still be in flight
      }
#endif
    } else if constexpr (PIPE) {
      issue(kb + NS - 1);  // the buffer of block kb - 1, freed by the barrier at the end of its iteration
      cp_async_wait<2 * NS - 3>();  // K of the next block has landed, and with it everything of this one
      async_visible<K>();
    } else {
      issue(kb + NS - 1);  // the buffer computed on last iteration; the barrier at its end freed it
      cp_async_wait<2 * NS - 1>();  // K of this block has landed; its V may still be in flight
      async_visible<K>();
    }
    if (defect::kSyncStaged && !OVERLAP && !TMA) __syncthreads();

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
      // wgmma (FlashAttention-3's overlap inside a warpgroup): the next block's QK^T
      // is only issued here; it runs under this softmax and is waited for with this block's PV
      if constexpr (K::COMPUTE == WGMMA) {
        if (kb + 1 < kb_hi) s_issue(Ks + buf(kb + 1), ahead);
      } else
#endif
      if (kb + 1 < kb_hi) s_gemm(Ks + buf(kb + 1), ahead);
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
    // Rescale skip: when no row of the warp raised its max, every alpha is exactly 1 (exp(0) = 1
    // for expf and ex2.approx alike) and O * 1 == O, so skipping is bitwise identical. The vote is
    // warp-uniform so the branch never diverges. Seed S5: -0.17% at 8 warps/SM, +0.97% at 12;
    // H200 N=8192 at 8 warps/SM: 1.0009, NULL against that run's 1.08% A/A null; screened again
    // 0.996 NULL, and 1.008 KEPT at causal N=32768 bf16 (results/2026-11-30_h200_margins).
    rescale_o<K>(o, alpha, changed);
    // P of n-tile j of m-tile mt: its four exponentials, added to the row sums, packed two to a register
    auto p_tile = [&](int mt, int j, uint32_t* out) { fa::p_tile<K, Pack<T>>(s, meff, l, sc, mt, j, out); };

    // P slab by slab (FA_PV_SLAB=1). Hypothesis: in a two-m-tile warp (BR 128 on 4 warps)
    // at D=128, O (128 fp32) and S (MT x BC/2) are live together, and packing the whole block's P before
    // the first PV MMA keeps P's MT x BC/4 registers live beside them: ptxas spills 16-120 B at 128 x 64
    // (results/2026-11-30_cpu_build_checks/bc64_spill_scan.txt). Made one 16-key slab at a time and
    // multiplied in at once, each slab's S dies as its P is packed and P's live range is one slab (MT x 4
    // registers), so FA2's 128 x 64 tile on 4 warps fits in 255 registers without spilling (sm_80/sm_90).
    // The cost: this block's V is waited for before its exponentials, not under them. Each row's sum and
    // each accumulator add the same terms in the same order: bitwise equal. H200, the lean 128 x 64 kernel
    // with it: 1.004-1.006x SDPA flash at N=8192 D=128 fp16, 1.033x causal (results/2026-11-30_h200_pv_slab_lean_tile).
    constexpr bool SLAB = K::PV_SLAB;
    if constexpr (SLAB && NS > 1) {
      cp_async_wait<2 * NS - 2>();  // this block's V, before any P
      async_visible<K>();
      if (defect::kSyncStaged) __syncthreads();
    }
    if constexpr (SLAB) Sm80::pv_slab(p_tile, Vb, o, lane);  // (gemm_sm80.cuh)
    [[maybe_unused]] uint32_t pf[SLAB ? 1 : MT][SLAB ? 1 : NT][2];  // P packed to the input dtype, two values per register
    if constexpr (!SLAB) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < NT; ++j) p_tile(mt, j, pf[mt][j]);
    if constexpr (NS > 1 && TMA) {
#if FA_STAGING == 2
      wait_v(kb);  // this block's V
#endif
    } else if constexpr (NS > 1 && !PIPE) {
      cp_async_wait<2 * NS - 2>();  // this block's V
      async_visible<K>();
      if (defect::kSyncStaged) __syncthreads();
    }
    }  // !SLAB
    if constexpr (OVERLAP) {
      cp_async_wait<0>();  // V(kb)
      async_visible<K>();
      __syncthreads();     // V visible; every warp is past QK^T(kb), so K's tile is free
      if (kb + 1 < kb_hi) stage<K, D, K::BC>(Ks, Kg, (kb + 1) * K::BC, N);
    }
#if FA_COMPUTE == 2
    if constexpr (K::COMPUTE == WGMMA) Sm90::pv(pf, Vb, o, turn_begin, turn_end, [&] { return kb + 1 < kb_hi; });
#endif
    if constexpr (K::COMPUTE != WGMMA && !SLAB) Sm80::pv(pf, Vb, o, lane);  // (gemm_sm80.cuh)
    if constexpr (NS > 1 && K::KV_RELEASE) {
#if FA_STAGING == 2
      // FA_KV_RELEASE=1, no block barrier. The warp is done with this buffer (its wgmma
      // groups waited for), so it adds itself to the stage's count and goes on to the next block; the
      // warp that completes the count issues the refill, so no warp waits for another, and a warp
      // runs at most NS - 1 blocks ahead of the slowest (the next block's data waits for that refill).
      // Hypothesis: the TMA kernel with two consumer warpgroups is barrier-bound (H200 causal N8192,
      // t128x64w8: barrier 26-30% of stall weight, results/2026-11-30_h200_tma_pipeline_tier/tma_c8192.txt) and
      // one warpgroup no longer waits for the other at every block. Same arithmetic in the same order:
      // bitwise equal. The count is an acq_rel atomic: each warp's release publishes that its reads are
      // done, and the last warp's acquire sees every one before its TMA overwrites the buffer (CUTLASS
      // orders a consumer's release and a producer's copy the same way through an mbarrier; thread 0
      // waiting on one here cost 11 registers at t128x64w8, 127 -> 138, a CTA/SM at 256 threads).
      // H200 at N=8192 on the t128x64w8 TMA kernel: SLOWER 0.9181, 0.9279, 0.8953 in three screens
      // (results/2026-11-30_h200_kv_release_ws).
      __syncwarp();
      if constexpr (K::PRODUCER) {
        if (lane == 0) mbar_arrive(empty + stage_of(kb));  // the producer refills it
      } else {
        if (lane == 0 && (warps_done(released + stage_of(kb)) + 1) % K::WARPS == 0 && kb + NS < kb_hi)
          tma_fill(kb + NS);
      }
#endif
    } else if constexpr (NS > 1) {
      __syncthreads();  // every warp is done with this buffer before it is refilled
    }
  };

  if constexpr (K::CAUSAL_MASK == MASK_SPLIT) {
    // interior blocks: every key < N and (causal) every key <= the tile's first row
    const int full = min(nkv, min(N / K::BC, CAUSAL ? (q0 + 1) / K::BC : nkv));
    for (int kb = kb_lo; kb < min(full, kb_hi); ++kb) block(kb, std::false_type{});
    for (int kb = max(full, kb_lo); kb < kb_hi; ++kb) block(kb, std::true_type{});
  } else {
    for (int kb = kb_lo; kb < kb_hi; ++kb) block(kb, std::true_type{});
  }
  if constexpr (NS > 1) cp_async_wait_all();  // nothing may be in flight when the item ends

  store_item<K, T, D>(o, m, l, sc, dst, Qs, q0, r0, row0, row8, g, t, lane, N);  // (epilogue.cuh)
}


}  // namespace fa
