// The K/V ring: which shared-memory buffer holds key block kb, when its copies are issued (one
// buffer; FA2's one-buffer overlap; a ring of 2-3 stages by cp.async groups or by TMA on mbarriers),
// what a warp waits for before it reads K and V, what frees a buffer (a block barrier, the last warp
// done, or a producer warpgroup's empty mbarrier), and the producer warpgroup's copy loop. The
// tensor-core mainloop (mainloop_mma.cuh) calls these at fixed points of each key block.
#pragma once
#include <stdint.h>

#include "config.cuh"
#include "copy.cuh"
#include "defects.cuh"
#include "target.cuh"
#include "tile.cuh"

namespace fa {

// K/V ring (FA_KV_STAGES >= 2): the item's n-th block lives in buffer n % NS, its K and V in two
// cp.async groups; an empty pair is committed past the end so completion stays positional (seed
// 2.5: skipping that final commit is a race only a load-bearing test sees). H200, N=8192 fp16
// from the padded kernel: depth 2 1.030x paired (replicate 1.036), depth 3 0.745x (121,856
// B/CTA, one CTA/SM), results/2026-11-30_h200_ladder; screened again 1.035x / 0.783x, and at
// causal N=32768 bf16 0.956x / 0.625x (results/2026-11-30_h200_margins).
//
// One-buffer overlap (FA_KV_OVERLAP=1), FA2's schedule: the first K is in flight before the loop;
// in each block V(j) is issued once K(j) has landed and lands under QK^T(j) and the softmax, and
// K(j+1) is issued once every warp is past QK^T(j) and lands under P(j)V(j). The shared memory of
// kv_stages=1 (one K, one V tile) with loads hidden as in a ring; two barriers a block, as the ring.
// H200, replacing the agent's 2-stage ring: 0.937 at N=8192 fp16, 0.950 at causal N=32768 bf16.
//
// TMA staging (FA_STAGING=2): thread 0 arms the stage's K and V barriers with a tile's bytes and
// issues its D/64 boxes each; everyone else issues nothing (no LDGSTS, no address arithmetic), and
// each thread waits on the barrier itself, so no block barrier publishes a landed tile. The ring's
// order and buffers are the cp.async ring's; the barrier that frees a buffer is the same.
// Hypothesis: the wgmma kernel is issue-bound (H200 seed t64x64, two stages: issue active 59%,
// tensor pipe 31%, results/2026-11-30_h200_session5): the copies' issue slots go to the softmax.
// H200 from the cp.async t128x64w8 kernel at N=8192: KEPT 1.2526 (results/2026-11-30_h200_session6).
#if FA_STAGING == 2
// The TMA ring's barriers in shared memory, right after the V tiles (tile.cuh's smem_bytes counts them): a K and
// a V mbarrier per stage, then per stage FA_KV_RELEASE=1's count of warps done or FA_KV_RELEASE=2's empty
// mbarrier. (Their address is written out where it is used: computed by a function of its own, the same
// pointer compiled to other instructions.)
// one K (or V) tile of block kb by TMA: the barrier armed with its bytes, then its D/64 boxes of 64 columns
// (z: the K/V head, the tensor map's third coordinate)
template <class K, int D, typename T>
__device__ __forceinline__ void ring_tma_tile(T* dst, const void* map, uint64_t* bar, int kb, int z) {
  mbar_expect_tx(bar, K::BC * D * (int)sizeof(T));
#pragma unroll
  for (int h = 0; h < D / 64; ++h) tma_load_3d(dst + h * K::BC * 64, map, bar, h * 64, kb * K::BC, z);
}
#endif

// The ring's schedule for one item. Three of its primitives are the mainloop's lambdas, held here by
// reference: buf(kb), block kb's buffer offset in elements; stage_of(kb), its stage; fill(kb), its K and V
// by TMA from the calling thread (mainloop_mma.cuh says why they are lambdas: as member functions here they
// compiled to other instructions). Everything else is members.
template <class K, typename T, int D, class Buf, class StageOf, class Fill>
struct KvRing {
  using TL = Tile<D, K::LAYOUT>;
  static constexpr int NS = K::KV_STAGES;
  static constexpr int KV_TILE = K::BC * TL::STRIDE;  // elements of one K (or V) buffer
  static constexpr bool TMA = K::STAGING == STAGE_TMA;
  static constexpr bool OVERLAP = NS == 1 && K::KV_OVERLAP;

  const Buf& buf;
  const StageOf& stage_of;
  const Fill& fill;
  T* Ks;
  T* Vs;
  const T* Kg;
  const T* Vg;
  int N, kb_lo, kb_hi;  // this item's key blocks [kb_lo, kb_hi)
#if FA_STAGING == 2
  TmaSrc tma;
  uint64_t* kbar;  // a K and a V mbarrier per stage, after the V tiles
  uint64_t* vbar;
  // FA_KV_RELEASE=1: per stage, a count of the warps done with its buffer (8 bytes a stage after the
  // K and V barriers, zeroed once per CTA, never reset: it only grows, and a multiple of WARPS means
  // every warp is done). The warp that completes the count refills the buffer, so no thread waits.
  unsigned int* released;
  // FA_KV_RELEASE=2: in the same 8 bytes a stage, the stage's "empty" mbarrier (arrival count WARPS,
  // initialised once per CTA): each consumer warp arrives once per block it used the buffer for, so its
  // n-th phase completes when every warp is done with the stage's n-th fill
  uint64_t* empty;
#endif

  __device__ __forceinline__ KvRing(const Buf& buf_, const StageOf& stage_of_, const Fill& fill_, T* Ks_, T* Vs_,
                                    const T* Kg_, const T* Vg_, int N_, int kb_lo_, int kb_hi_, TmaSrc tma_)
      : buf(buf_), stage_of(stage_of_), fill(fill_), Ks(Ks_), Vs(Vs_), Kg(Kg_), Vg(Vg_), N(N_), kb_lo(kb_lo_),
        kb_hi(kb_hi_) {
#if FA_STAGING == 2
    tma = tma_;
    kbar = reinterpret_cast<uint64_t*>(Vs + K::BC * NS * TL::STRIDE);
    vbar = kbar + NS;
    released = reinterpret_cast<unsigned int*>(vbar + NS);
    empty = vbar + NS;
#else
    (void)tma_;
#endif
  }

  __device__ __forceinline__ const T* k(int kb) const { return Ks + buf(kb); }
  __device__ __forceinline__ const T* v(int kb) const { return Vs + buf(kb); }

#if FA_STAGING == 2
  // every thread waits for block kb's K (or V) at the stage's current parity; V's wait ends the use
  __device__ __forceinline__ void wait_k(int kb) const {
    mbar_wait(kbar + stage_of(kb), (*tma.phase >> stage_of(kb)) & 1u);
  }
  __device__ __forceinline__ void wait_v(int kb) const {
    mbar_wait(vbar + stage_of(kb), (*tma.phase >> stage_of(kb)) & 1u);
    *tma.phase ^= 1u << stage_of(kb);
  }
#endif

  // block kb's K and V copies into its buffer (past the item's last block: an empty cp.async pair)
  __device__ __forceinline__ void issue(int kb) const {
#if FA_STAGING == 2
    if constexpr (TMA) {
      if (kb < kb_hi && threadIdx.x == 0) fill(kb);
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
  }

#if FA_STAGING == 2
  // Warp specialisation (FA_KV_RELEASE=2): one thread of the producer warpgroup issues every K/V copy
  // of the item in order, each once the stage's empty barrier shows every consumer warp done with that
  // buffer's previous block; the consumers never issue a copy nor wait for one another. Hypothesis:
  // the copies' issue and the refill decisions leave the consumers' instruction stream entirely
  // (the arm is issue-bound), and the ring runs NS blocks ahead of the slowest consumer warpgroup.
  // The first form polled a per-stage count with ld.acquire in a spin loop: H200, N=8192 fp16, paired
  // against kv_release=barrier, 0.72x and 0.80x (results/2026-11-30_h200_session7, arm_screen and
  // naive_n8192), and ncu reads this kernel family issue-bound (not_selected + dispatch ~45-48% of
  // stalls): the spinning thread took issue slots from the consumer warps of its SM sub-partition.
  // Now it waits as FlashAttention-3's and CUTLASS's pipelines do: mbarrier.try_wait.parity on the
  // stage's empty barrier, which suspends the thread in hardware until the phase completes (or a
  // time limit, then it asks again). Fill n of a stage (n counted per stage across the CTA's items,
  // as the consumers' arrivals are) waits for the barrier's phase n - 1, parity (n & 1) ^ 1; for n = 0
  // that is the phase before the first, which a fresh barrier reads as complete. A stage's phase
  // cannot run two ahead of its fills (its n-th phase needs the n-th fill consumed), so one parity
  // bit names the phase. H200, the same pair with this wait: SLOWER 0.7322 (582.6 -> 425.5 TFLOP/s,
  // results/2026-11-30_h200_session7/s7b): the spin was not what made warp specialisation lose here.
  __device__ __forceinline__ void produce() const {
    if (threadIdx.x == K::THREADS) {
      for (int kb = kb_lo; kb < kb_hi; ++kb) {
        const int st = stage_of(kb);
        mbar_wait(empty + st, (tma.fills[st] & 1u) ^ 1u);
        ++tma.fills[st];
        fill(kb);
      }
    }
  }
#endif

  // Before the first block: the ring's first stages, or the overlap schedule's first K.
  __device__ __forceinline__ void prologue() const {
    if constexpr (NS > 1 && !K::PRODUCER) {
      // FA_KV_RELEASE fills every stage here (each is free at the start of an item) and refills a stage
      // at the end of the block that used it; otherwise the last stage is filled at the first block's start
#pragma unroll
      for (int s = 0; s < NS - 1 + (K::KV_RELEASE ? 1 : 0); ++s) issue(kb_lo + s);
    }
    if constexpr (OVERLAP) {
      if (kb_lo < kb_hi) stage<K, D, K::BC>(Ks, Kg, kb_lo * K::BC, N);
    }
  }

  // FA_PIPELINE's prologue: the first block's K landed and visible, for its QK^T before the loop
  __device__ __forceinline__ void first_k() const {
    if constexpr (TMA) {
#if FA_STAGING == 2
      wait_k(kb_lo);
#endif
    } else {
      cp_async_wait<2 * NS - 3>();  // K of the first block
      async_visible<K>();
      __syncthreads();
    }
  }

  // At the start of block kb: its K landed and visible to every warp (with PIPE, the next block's K), V
  // perhaps still in flight; the copies that refill a freed buffer issued.
  template <bool PIPE>
  __device__ __forceinline__ void acquire(int kb) const {
    [[maybe_unused]] const int k0 = kb * K::BC;
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
  }

  // Before block kb's PV (with FA_PV_SLAB, before its first P): its V landed and visible; in the overlap
  // schedule, the next block's K issued into the K tile every warp is now done with.
  template <bool PIPE>
  __device__ __forceinline__ void v_ready(int kb) const {
    if constexpr (NS > 1 && TMA) {
#if FA_STAGING == 2
      wait_v(kb);  // this block's V
#endif
    } else if constexpr (NS > 1 && !PIPE) {
      cp_async_wait<2 * NS - 2>();  // this block's V
      async_visible<K>();
      if (defect::kSyncStaged) __syncthreads();
    }
    if constexpr (OVERLAP) {
      cp_async_wait<0>();  // V(kb)
      async_visible<K>();
      __syncthreads();     // V visible; every warp is past QK^T(kb), so K's tile is free
      if (kb + 1 < kb_hi) stage<K, D, K::BC>(Ks, Kg, (kb + 1) * K::BC, N);
    }
  }

  // After block kb's PV: the warp is done with its buffer.
  __device__ __forceinline__ void release(int kb, int lane) const {
    if constexpr (NS > 1 && K::KV_RELEASE) {
#if FA_STAGING == 2
      // FA_KV_RELEASE=1, no block barrier. The warp is done with this buffer (its wgmma groups waited
      // for), so it adds itself to the stage's count and goes on to the next block; the warp that
      // completes the count issues the refill, so no warp waits for another, and a warp runs at most
      // NS - 1 blocks ahead of the slowest (the next block's data waits for that refill).
      // Hypothesis: the TMA kernel with two consumer warpgroups is barrier-bound (H200 causal N8192,
      // t128x64w8: barrier 26-30% of stall weight, results/2026-11-30_h200_session6/tma_c8192.txt) and
      // one warpgroup no longer waits for the other at every block. Same arithmetic in the same order:
      // bitwise equal. The count is an acq_rel atomic: each warp's release publishes that its reads are
      // done, and the last warp's acquire sees every one before its TMA overwrites the buffer (CUTLASS
      // orders a consumer's release and a producer's copy the same way through an mbarrier; thread 0
      // waiting on one here cost 11 registers at t128x64w8, 127 -> 138, a CTA/SM at 256 threads).
      // H200 at N=8192 on the t128x64w8 TMA kernel: SLOWER 0.9181, 0.9279, 0.8953 in three screens
      // (results/2026-11-30_h200_session7).
      __syncwarp();
      if constexpr (K::PRODUCER) {
        if (lane == 0) mbar_arrive(empty + stage_of(kb));  // the producer refills it
      } else {
        if (lane == 0 && (warps_done(released + stage_of(kb)) + 1) % K::WARPS == 0 && kb + NS < kb_hi)
          fill(kb + NS);
      }
#endif
    } else if constexpr (NS > 1) {
      __syncthreads();  // every warp is done with this buffer before it is refilled
    }
    (void)kb;
    (void)lane;
  }

  // nothing may be in flight when the item ends
  __device__ __forceinline__ void drain() const {
    if constexpr (NS > 1) cp_async_wait_all();
  }
};

#if FA_STAGING == 2
// The ring's barriers, once per CTA by thread 0 (every thread's first wait comes after a
// block barrier).
template <class K, typename T, int D>
__device__ __forceinline__ void kv_ring_init(T* Vs) {
  using TL = Tile<D, K::LAYOUT>;
  uint64_t* bars = reinterpret_cast<uint64_t*>(Vs + K::BC * K::KV_STAGES * TL::STRIDE);
  for (int i = 0; i < 2 * K::KV_STAGES; ++i) mbar_init(bars + i, 1);
  // FA_KV_RELEASE=1's counts of warps done with each stage's buffer
  for (int i = 0; i < (K::KV_RELEASE == 1 ? K::KV_STAGES : 0); ++i) reinterpret_cast<unsigned int*>(bars + 2 * K::KV_STAGES)[i] = 0;
  // FA_KV_RELEASE=2's empty barriers: one arrival per consumer warp completes a phase
  for (int i = 0; i < (K::PRODUCER ? K::KV_STAGES : 0); ++i) mbar_init(bars + 2 * K::KV_STAGES + i, K::WARPS);
  mbar_init_fence();
}
#endif

}  // namespace fa
