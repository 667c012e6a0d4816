// The epilogue: where a work item's result goes (O and the LSE, or a split's fp32 partials), the
// store forms (default, streaming, write-through; direct from the accumulators or through shared
// memory), and split-KV's second pass, the combine kernel (its workspace: a stream's, streams.cuh).
#pragma once
#include <cuda_runtime.h>
#include <stdint.h>

#include "config.cuh"
#include "defects.cuh"
#include "softmax.cuh"
#include "tile.cuh"

namespace fa {

// Epilogue store of two packed values. .cs marks the line evict-first (O is not re-read by this
// kernel); .wt writes through to memory. Seed v7: both measured null on the 5090 (0.99997 / 0.99980);
// H200 N=8192: .cs 1.0089, NULL against a 1.08% A/A null; screened again, .cs/.wt 0.996/0.995 NULL
// at N=8192 fp16 but 0.920/0.919 at causal N=32768 bf16: same occupancy and L2, but ptxas schedules
// the whole kernel around the volatile stores (172 registers against 179): tensor pipe 37.1% -> 34.0%,
// short_scoreboard 26% -> 34% of stalls (ncu, results/2026-11-30_h200_profile_n32768_causal).
template <int STORE>
__device__ __forceinline__ void store_u32(void* p, uint32_t v) {
  if (STORE == STORE_CS)
    asm volatile("st.global.cs.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
  else if (STORE == STORE_WT)
    asm volatile("st.global.wt.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
  else
    *reinterpret_cast<uint32_t*>(p) = v;
}

// Where one work item's result goes: the output and LSE, or (split-KV) this split's fp32 partial
// output, normalised by its own sum, and its LSE, for the combine kernel to merge.
template <typename T>
struct Dest {
  T* o;
  float* lse;
  float* part_o;  // split-KV only: [N, D] fp32 of this (split, batch x head)
  float* part_lse;  // [N]
  int o_rs = 0;  // FA_MAINLOOP=1: O's row stride in elements (its direct stores take any layout); others: D
};

// The smem epilogue's second half (FA_EPILOGUE=1): the warp has written its normalised rows, packed
// to T, into its own rows of the Q tile (no other warp reads them, so a warp barrier suffices; the
// persistent grid's barrier orders it before the next item's Q). Each lane then moves 16-byte
// chunks: a row of D=128 fp16 is 16 chunks, so a warp stores two full 256 B rows per instruction
// instead of 8 rows x 16 B in 4-byte pieces. Hypothesis (FA2 writes O this way): fewer, fully
// coalesced store instructions; the cost is a shared round trip and a warp barrier once per tile.
// H200 from the agent's N=8192 final kernel: 1.0008 NULL at N=8192 fp16, 0.9972 at causal N=32768.
template <class K, typename T, int D>
__device__ __forceinline__ void copy_out(const T* Qs, T* O, int q0, int r0, int lane, int N) {
  using TL = Tile<D, K::LAYOUT>;
  constexpr int CH = D / 8, ROWS = 16 * K::MT;
  __syncwarp();
#pragma unroll
  for (int i = lane; i < ROWS * CH; i += 32) {
    const int r = i / CH, c = (i % CH) * 8;
    if (q0 + r0 + r < N)
      *reinterpret_cast<uint4*>(O + (size_t)(q0 + r0 + r) * D + c) = *reinterpret_cast<const uint4*>(Qs + TL::off(r0 + r, c));
  }
}

// The item's results, after its last key block: the row sums l reduced over the four lanes of a row, O
// normalised by them and stored (direct from the accumulators, or through the warp's rows of the Q tile
// with FA_EPILOGUE=1), the LSE from the running max m (sc: the fused softmax's scale), or with split-KV
// the split's fp32 partials for the combine kernel. g, t: the thread's row and column in its quad.
template <class K, typename T, int D, int MT>
__device__ __forceinline__ void store_item(float (&o)[MT][D / 8][4], float (&m)[MT][2], float (&l)[MT][2], float sc,
                                           const Dest<T>& dst, T* Qs, int q0, int r0, int row0, int row8, int g, int t,
                                           int lane, int N) {
  using TL = Tile<D, K::LAYOUT>;
  constexpr int DT = D / 8;
  constexpr float LN2 = 0.69314718055994531f;
  if constexpr (MT == 1 && K::SPLITS == 1) {  // the measured statement order (see softmax_update)
    const int rowa = row0, rowb = row8;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[0][h] += __shfl_xor_sync(0xffffffff, l[0][h], 1);
      l[0][h] += __shfl_xor_sync(0xffffffff, l[0][h], 2);
    }
    const float inv0 = 1.f / l[0][0], inv1 = 1.f / l[0][1];
    if constexpr (K::EPILOGUE == EPI_SMEM) {
#pragma unroll
      for (int i = 0; i < DT; ++i) {
        const int c = i * 8 + 2 * t;
        *reinterpret_cast<uint32_t*>(Qs + TL::off(r0 + g, c)) = Pack<T>::two(o[0][i][0] * inv0, o[0][i][1] * inv0);
        *reinterpret_cast<uint32_t*>(Qs + TL::off(r0 + g + 8, c)) = Pack<T>::two(o[0][i][2] * inv1, o[0][i][3] * inv1);
      }
      copy_out<K, T, D>(Qs, dst.o, q0, r0, lane, N);
    } else {
#pragma unroll
      for (int i = 0; i < DT; ++i) {
        if (defect::skips_store(i, DT)) continue;
        const int c = i * 8 + 2 * t;
        if (rowa < N) store_u32<K::STORE>(dst.o + (size_t)rowa * D + c, Pack<T>::two(o[0][i][0] * inv0, o[0][i][1] * inv0));
        if (rowb < N) store_u32<K::STORE>(dst.o + (size_t)rowb * D + c, Pack<T>::two(o[0][i][2] * inv1, o[0][i][3] * inv1));
      }
    }
    if (t == 0) {
      const float ma = m_units<K>(m[0][0], sc), mb = m_units<K>(m[0][1], sc);
      if (rowa < N) dst.lse[rowa] = K::EXP == EXP_EX2 ? (ma + log2f(l[0][0])) * LN2 : ma + logf(l[0][0]);
      if (rowb < N) dst.lse[rowb] = K::EXP == EXP_EX2 ? (mb + log2f(l[0][1])) * LN2 : mb + logf(l[0][1]);
    }
  } else {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const int rowa = row0 + mt * 16, rowb = rowa + 8;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        l[mt][h] += __shfl_xor_sync(0xffffffff, l[mt][h], 1);
        l[mt][h] += __shfl_xor_sync(0xffffffff, l[mt][h], 2);
      }
      auto lse = [&](int h) {  // evaluated after the stores: nothing extra stays live across them
        const float mu = m_units<K>(m[mt][h], sc);
        return K::EXP == EXP_EX2 ? (mu + log2f(l[mt][h])) * LN2 : mu + logf(l[mt][h]);
      };
      if constexpr (K::SPLITS > 1) {
        // an empty split (l = 0) leaves O = 0 and LSE = -inf: weight zero in the combine
        const float inv0 = l[mt][0] > 0.f ? 1.f / l[mt][0] : 0.f, inv1 = l[mt][1] > 0.f ? 1.f / l[mt][1] : 0.f;
#pragma unroll
        for (int i = 0; i < DT; ++i) {
          const int c = i * 8 + 2 * t;
          if (rowa < N) *reinterpret_cast<float2*>(dst.part_o + (size_t)rowa * D + c) = make_float2(o[mt][i][0] * inv0, o[mt][i][1] * inv0);
          if (rowb < N) *reinterpret_cast<float2*>(dst.part_o + (size_t)rowb * D + c) = make_float2(o[mt][i][2] * inv1, o[mt][i][3] * inv1);
        }
        if (t == 0) {
          if (rowa < N) dst.part_lse[rowa] = l[mt][0] > 0.f ? lse(0) : -INFINITY;
          if (rowb < N) dst.part_lse[rowb] = l[mt][1] > 0.f ? lse(1) : -INFINITY;
        }
      } else {
        const float inv0 = 1.f / l[mt][0], inv1 = 1.f / l[mt][1];
#pragma unroll
        for (int i = 0; i < DT; ++i) {
          if constexpr (K::EPILOGUE == EPI_SMEM) {  // this warp's rows of the Q tile; copy_out after the last m-tile
            const int c = i * 8 + 2 * t, ra = r0 + mt * 16 + g;
            *reinterpret_cast<uint32_t*>(Qs + TL::off(ra, c)) = Pack<T>::two(o[mt][i][0] * inv0, o[mt][i][1] * inv0);
            *reinterpret_cast<uint32_t*>(Qs + TL::off(ra + 8, c)) = Pack<T>::two(o[mt][i][2] * inv1, o[mt][i][3] * inv1);
            continue;
          }
          if (defect::skips_store(i, DT)) continue;
          const int c = i * 8 + 2 * t;
          if (rowa < N) store_u32<K::STORE>(dst.o + (size_t)rowa * D + c, Pack<T>::two(o[mt][i][0] * inv0, o[mt][i][1] * inv0));
          if (rowb < N) store_u32<K::STORE>(dst.o + (size_t)rowb * D + c, Pack<T>::two(o[mt][i][2] * inv1, o[mt][i][3] * inv1));
        }
        if (t == 0) {
          if (rowa < N) dst.lse[rowa] = lse(0);
          if (rowb < N) dst.lse[rowb] = lse(1);
        }
      }
    }
    if constexpr (K::EPILOGUE == EPI_SMEM && K::SPLITS == 1) copy_out<K, T, D>(Qs, dst.o, q0, r0, lane, N);
  }
}

// Split-KV's second pass: for each query row, O = sum_s w_s O_s / sum_s w_s with w_s = exp(LSE_s -
// max LSE) and LSE = max + log(sum w_s); one thread per 4 output columns. Hypothesis (seed shelf):
// splitting the keys buys parallelism only when B x H x tiles leaves SMs idle; otherwise it costs
// the fp32 partials' round trip through memory (S x (D + 1) x 4 B per row, written and read back).
// H200, B2 H16 (4,096 CTAs at N=8192, a full grid): 2/4/8 splits 0.992x/0.974x/0.925x at N=8192
// fp16, 0.960x/0.950x/0.926x at causal N=32768 bf16 (results/2026-11-30_h200_margins).
template <class K, typename T, int D>
__global__ void __launch_bounds__(128)
fa_combine_kernel(const float* __restrict__ Opart, const float* __restrict__ Lpart, T* __restrict__ O,
                  float* __restrict__ L, int rows) {
  constexpr int C = 4, PER_ROW = D / C;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = idx / PER_ROW, c = (idx % PER_ROW) * C;
  if (row >= rows) return;
  float lse[K::SPLITS], mx = -INFINITY;
#pragma unroll
  for (int s = 0; s < K::SPLITS; ++s) {
    lse[s] = Lpart[(size_t)s * rows + row];
    mx = fmaxf(mx, lse[s]);
  }
  float acc[C] = {0.f, 0.f, 0.f, 0.f}, sum = 0.f;
#pragma unroll
  for (int s = 0; s < K::SPLITS; ++s) {
    const float w = lse[s] == -INFINITY ? 0.f : expf(lse[s] - mx);
    const float4 v = *reinterpret_cast<const float4*>(Opart + ((size_t)s * rows + row) * D + c);
    sum += w;
    acc[0] += w * v.x; acc[1] += w * v.y; acc[2] += w * v.z; acc[3] += w * v.w;
  }
  const float inv = 1.f / sum;
  store_u32<K::STORE>(O + (size_t)row * D + c, Pack<T>::two(acc[0] * inv, acc[1] * inv));
  store_u32<K::STORE>(O + (size_t)row * D + c + 2, Pack<T>::two(acc[2] * inv, acc[3] * inv));
  if (c == 0) L[row] = mx + logf(sum);
}

}  // namespace fa
