// The copy layer: global -> shared staging of a tile (scalar loads, 16-byte cp.async in a loop or
// unrolled), the waits on it, shared -> register fragment loads (ldmatrix), the fence that shows
// cp.async's bytes to wgmma's async proxy, and TMA staging's per-item state, tile loads and barriers. The
// schedule of these copies across key blocks (the K/V ring) is the mainloop's (mainloop_mma.cuh).
#pragma once
#include <stdint.h>

#include "config.cuh"
#include "target.cuh"
#include "tile.cuh"

namespace fa {

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Stage rows [row0, row0 + ROWS) of one head's [N, D] matrix into a shared tile; rows past N
// are zero (a zero K row scores 0 and is then masked; a zero V row adds nothing).
// Scalar: one 2-byte load per element through a register (seed v0..v2).
// cp.async: one 16-byte LDGSTS per 8 elements, no register, L1 bypassed (seed v3: 1.51x for
// the width alone on the 5090; H200 N=2048 fp16: 5.12x paired, long_scoreboard had been 71% of
// stalls). Out-of-range rows use src-size 0, which zero-fills.
//
// Unrolled copies (FA_COPIES=1). The strided loop of stage() compiles, per tile, to a loop whose trip
// count ptxas cannot see (it starts at threadIdx.x), each chunk with its own 64-bit address, row
// test and branch: in the sm_90 build of the t128x32w4 two-stage kernel of
// results/2026-11-30_h200_wgmma_first_battery the key loop holds 1,033 SASS instructions against its 128 HMMA, 844 with
// the copies unrolled (IMAD 111 -> 59, LEA 59 -> 19; results/2026-11-30_cpu_build_checks/unrolled_copies.txt).
// Here a thread's chunks are a fixed count PER, RSTEP rows apart in one column: one address per tile and
// immediate offsets, no row test unless the tile crosses N (then src-size 0 zero-fills, as in the loop).
// The same bytes reach the same places. Hypothesis: the kernel is issue-bound (wait + short_scoreboard 68%
// of stalls at 2 warps per scheduler, results/2026-11-30_h200_wgmma_first_battery exp 21), so the copies' issue slots
// and their address chains go back to the MMAs and the softmax: FlashAttention-2 issues its tile copies
// from pointers computed once. H200 against that kernel: 1.1234 KEPT at N=8192 fp16, 1.1188 KEPT at
// causal N=32768 bf16; with it the kernel runs 1.006-1.012x SDPA flash at N=8192 in six processes
// (results/2026-11-30_h200_mma_reaches_flash).
template <class K, int D, int ROWS, typename T>
__device__ __forceinline__ void stage_unrolled(T* s, const T* g, int row0, int N, bool commit) {
  if constexpr (K::STAGING != STAGE_SCALAR) {
    constexpr int CH = D / 8, PER = ROWS * CH / K::THREADS, RSTEP = K::THREADS / CH;
    const int rt = threadIdx.x / CH, c = (threadIdx.x % CH) * 8;
    const T* src = g + (size_t)(row0 + rt) * D + c;
    if (row0 + ROWS <= N) {
#pragma unroll
      for (int it = 0; it < PER; ++it) cp_async16(s + soff<K, D, ROWS>(rt + it * RSTEP, c), src + it * RSTEP * D, 16);
    } else {
#pragma unroll
      for (int it = 0; it < PER; ++it) {
        const bool ok = row0 + rt + it * RSTEP < N;
        cp_async16(s + soff<K, D, ROWS>(rt + it * RSTEP, c), ok ? src + it * RSTEP * D : g, ok ? 16 : 0);
      }
    }
    if (commit) cp_async_commit();
  } else {
    using TL = Tile<D, K::LAYOUT>;
    constexpr int PER = ROWS * D / K::THREADS, RSTEP = K::THREADS / D;
    const int rt = threadIdx.x / D, c = threadIdx.x % D;
    const T* src = g + (size_t)(row0 + rt) * D + c;
    const bool full = row0 + ROWS <= N;
    constexpr int BATCH = PER < 8 ? PER : 8;  // loads in flight before their stores, 8 registers at most
#pragma unroll
    for (int b = 0; b < PER; b += BATCH) {
      T v[BATCH];
#pragma unroll
      for (int it = 0; it < BATCH; ++it) {
        const int r = rt + (b + it) * RSTEP;
        v[it] = full || row0 + r < N ? src[(b + it) * RSTEP * D] : Pack<T>::cast(0.f);
      }
#pragma unroll
      for (int it = 0; it < BATCH; ++it) s[TL::off(rt + (b + it) * RSTEP, c)] = v[it];
    }
  }
}

template <class K, int D, int ROWS, typename T>
__device__ __forceinline__ void stage(T* s, const T* g, int row0, int N, bool commit = true) {
  using TL = Tile<D, K::LAYOUT>;
  constexpr int UNIT = K::STAGING != STAGE_SCALAR ? D / 8 : D;  // what one thread moves at a time, per row
  if constexpr (K::COPIES == 1 && (ROWS * UNIT) % K::THREADS == 0 && K::THREADS % UNIT == 0) {
    stage_unrolled<K, D, ROWS>(s, g, row0, N, commit);
    return;
  }
  if (K::STAGING != STAGE_SCALAR) {  // cp.async (with TMA staging, Q's tile: once per item)
    constexpr int CHUNKS = D / 8;
    for (int i = threadIdx.x; i < ROWS * CHUNKS; i += K::THREADS) {
      int r = i / CHUNKS, c = (i % CHUNKS) * 8;
      bool ok = row0 + r < N;
      const T* src = g + (size_t)(ok ? row0 + r : 0) * D + c;
      cp_async16(s + soff<K, D, ROWS>(r, c), src, ok ? 16 : 0);
    }
    if (commit) cp_async_commit();
  } else {
    for (int i = threadIdx.x; i < ROWS * D; i += K::THREADS) {
      int r = i / D, c = i % D;
      s[TL::off(r, c)] = row0 + r < N ? g[(size_t)(row0 + r) * D + c] : Pack<T>::cast(0.f);
    }
  }
}

template <class K>
__device__ __forceinline__ void stage_wait() {
  if (K::STAGING != STAGE_SCALAR) cp_async_wait_all();
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t* r, const void* p) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t* r, const void* p) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

// wgmma reads shared memory through the async proxy: what cp.async landed is fenced for it by each
// thread before the barrier that publishes the tile. Nothing for the other paths.
template <class K>
__device__ __forceinline__ void async_visible() {
#if FA_COMPUTE == 2
  if constexpr (K::COMPUTE == WGMMA) proxy_fence();
#endif
}

// A head of one batch as the 4-D tensor maps' (column, row, head, batch) last two coordinates, packed into one
// int (head in the low 16 bits: fa_fwd.cu refuses H or B past that), so that the items and roles carry one number.
__host__ __device__ constexpr int tma_z(int b, int h) { return (b << 16) | h; }

// TMA staging: the tensor maps of K and V (addresses of the kernel's __grid_constant__ parameters),
// this item's K/V head and batch as the maps' coordinate (tma_z), and the stages' barrier phases, one bit per
// stage, carried across the items of a persistent CTA (the barriers are initialised once per CTA).
struct TmaSrc {
  const void* k;
  const void* v;
  int z;
  uint32_t* phase;
  uint32_t* fills;  // FA_KV_RELEASE=2: the producer's fills of each stage so far (its thread only)
};

#if FA_STAGING == 2
// TMA staging's barriers in shared memory, right after the V tiles (tile.cuh's smem_bytes counts them): a K and
// a V mbarrier per stage, then per stage FA_KV_RELEASE=1's count of warps done or FA_KV_RELEASE=2's empty
// mbarrier (their address is written out where it is used, mainloop_mma.cuh). The mbarrier and tensor-copy
// instructions themselves are wgmma.cuh's.
//
// One K (or V) tile of block kb by TMA: the barrier armed with its bytes, then its D/64 boxes of 64 columns
// (z: the K/V head and batch, tma_z)
template <class K, int D, typename T>
__device__ __forceinline__ void tma_load_tile(T* dst, const void* map, uint64_t* bar, int kb, int z) {
  mbar_expect_tx(bar, K::BC * D * (int)sizeof(T));
#pragma unroll
  for (int h = 0; h < D / 64; ++h) tma_load_box(dst + h * K::BC * 64, map, bar, h * 64, kb * K::BC, z);
}

// The barriers, once per CTA by thread 0 (every thread's first wait comes after a block barrier).
template <class K, typename T, int D>
__device__ __forceinline__ void tma_barriers_init(T* Vs) {
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
