// Tiles and the shared-memory map: how a (row, column) of a staged Q/K/V tile is addressed (the
// layout knob), the dtype's conversions, how many key blocks a query tile visits, and how many bytes
// of shared memory a CTA asks for (kernel_src/knobs.py's smem_bytes repeats the formula, to refuse a
// configuration before it builds).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "config.cuh"
#include "defects.cuh"
#include "target.cuh"

namespace fa {

// Shared-memory tile addressing; writer and reader use the same map, so no layout can
// misplace data, only change which bank a lane hits.
// Row-major: an fp16 row of D=64 is 128 B, D=128 is 256 B, both multiples of the 128 B bank
// period, so the 8 rows an ldmatrix gathers all start on bank 0: 8-way conflicts (seed v1:
// 32 wavefronts per ldmatrix.x4 instead of 4).
// Swizzle: XOR the 16-byte chunk index with (row & 7): the 8 rows of a gather land on 8
// distinct chunks, for zero extra bytes (seed v2: 32 -> 4 wavefronts, 1.68x on the 5090;
// H200, N=2048 fp16: 32.02 -> 4.0 wavefronts, 1.327x paired, results/2026-11-30_h200_instrument).
// Padding: 8 extra elements per row shift each row by 16 B: conflict-free too, paid in bytes
// per CTA. The 5090 lost a CTA/SM to it at D=128 (0.62x of the swizzle); on the H200 it costs no
// CTA and the padded build needs 173 registers against 186: padding beat the swizzle, 1.069x
// paired (and 0.937x the other way round), same run.
template <int D, int LAYOUT>
struct Tile {
  static constexpr int STRIDE = LAYOUT == PAD ? D + 8 : D;
  __device__ __forceinline__ static int off(int r, int c) {
    if (LAYOUT == SWIZZLE) return r * D + ((((c >> 3) ^ (r & 7)) << 3) | (c & 7));
    return r * STRIDE + c;
  }
  // where the readers look: the same map, except in the one-sided-swizzle defect (stores
  // swizzled, loads row-major: conflict-free and wrong)
  __device__ __forceinline__ static int rd(int r, int c) {
    if (defect::kRowMajorReads) return r * STRIDE + c;
    return off(r, c);
  }
};

// Where a staged element goes: the layout's map, or (wgmma) the 128-byte swizzle in 64-column tiles
// of ROWS rows, which depends on the tile's height.
template <class K, int D, int ROWS>
__device__ __forceinline__ int soff(int r, int c) {
#if FA_COMPUTE == 2
  if constexpr (K::LAYOUT == SW128) return sw128_el(r, c, ROWS);
#endif
  return Tile<D, K::LAYOUT>::off(r, c);
}

template <typename T> struct Pack;
template <> struct Pack<__half> {
  __device__ __forceinline__ static uint32_t two(float a, float b) {
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
  }
  __device__ __forceinline__ static float f(__half x) { return __half2float(x); }
  __device__ __forceinline__ static __half cast(float x) { return __float2half_rn(x); }
};
template <> struct Pack<__nv_bfloat16> {
  __device__ __forceinline__ static uint32_t two(float a, float b) {
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
  }
  __device__ __forceinline__ static float f(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ __forceinline__ static __nv_bfloat16 cast(float x) { return __float2bfloat16_rn(x); }
};

// Key blocks this query tile must visit: all of them, or (causal) up to the diagonal.
template <class K, bool CAUSAL>
__device__ __forceinline__ int kv_blocks(int q0, int N) {
  int end = CAUSAL ? min(N, q0 + K::BR) : N;
  return (end + K::BC - 1) / K::BC;
}

// Q tiles in shared memory: two with FA_ITEM_STREAM=1 (the next item's beside this one's) or FA_Q_BUFFERS=2 (the next
// item's loaded early), else one.
template <class K>
__host__ __device__ constexpr int q_tiles() {
  return K::ITEM_STREAM || K::Q_BUFFERS == 2 ? 2 : 1;
}

// FA_ROW_SUM=1: a 1024-byte tile of ones (one 128-byte-swizzle atom, 1024-byte aligned where the V tiles end) between
// the V tiles and the ring's barriers, the B operand of the row sums' wgmma (mainloop_sm90_ws.cuh: ws_pv)
template <class K>
__host__ __device__ constexpr int ones_bytes() {
  return K::ROW_SUM == ROW_SUM_MMA ? 1024 : 0;
}

// FA_P_IN=1: each consumer warpgroup's P tile (64 rows, BC keys in whole 64-column 128-byte-swizzle atoms, 1024-byte
// aligned) after the ones, before the ring's barriers (mainloop_sm90_ws.cuh: ws_p_tile)
template <class K>
__host__ __device__ constexpr int p_tile_bytes() {
  return K::P_IN == P_IN_SMEM ? 64 * ((K::BC + 63) / 64) * 64 * 2 : 0;
}
template <class K>
__host__ __device__ constexpr int p_tiles_bytes() {
  return K::P_IN == P_IN_SMEM ? (K::WARPS / 4) * p_tile_bytes<K>() : 0;
}

// The CTA's dynamic shared memory, in this order: Q's tile (FA_ITEM_STREAM=1, FA_Q_BUFFERS=2: two), FA_O_STORE=1's O tile,
// K_STAGES K tiles, K_STAGES V tiles (or the scalar path's P tile after them), FA_ROW_SUM=1's ones, FA_P_IN=1's P
// tiles, the TMA ring's barriers, the persistent grid's item slot (last 16 B).
template <class K, typename T, int D>
__host__ __device__ constexpr int smem_bytes() {
  return (K::BR * (q_tiles<K>() + (K::O_STORE == 1)) + 2 * K::BC * K::KV_STAGES) * Tile<D, K::LAYOUT>::STRIDE *
             (int)sizeof(T) +
         (K::COMPUTE == SCALAR ? K::BR * K::BC * (int)sizeof(float) : 0) + ones_bytes<K>() + p_tiles_bytes<K>() +
         // TMA: a K and a V mbarrier per stage, and with FA_KV_RELEASE each stage's count of warps done
         // (last_warp) or its "empty" mbarrier (producer), 8 bytes either way
         // (mainloop=ws: K-full, V-full, K-empty and V-empty barriers per stage, 32 bytes)
         (K::STAGING == STAGE_TMA ? (K::MAINLOOP ? 32 : K::KV_RELEASE ? 24 : 16) * K::KV_STAGES : 0) +
         (K::Q_LOAD ? 16 * q_tiles<K>() : 0) +  // FA_Q_LOAD=1: Q's full and empty mbarriers (per Q tile)
         // FA_TAIL_ROWS=2: the helper's "partials read" mbarrier (16 B) and its partials (mainloop_sm90_ws.cuh: ws_tail_part)
         (K::TAIL_ROWS == TAIL_ROWS_SPLIT ? 16 + (K::WARPS / 4 - 1) * 128 * (D / 2 + 4) * 4 : 0) +
         (K::PERSISTENT ? 16 : 0) +  // the persistent grid's item slot
         (K::SCHEDULE == SCHEDULE_DYNAMIC ? 16 : 0);  // FA_SCHEDULE=1: the slot's full and empty mbarriers, before it
}

}  // namespace fa
