// The scalar mainloop (compute=scalar, the seed's v0): CUDA-core FMAs, no tensor cores.
#pragma once
#include "config.cuh"
#include "copy.cuh"
#include "softmax.cuh"
#include "tile.cuh"

namespace fa {

// v0: scalar CUDA-core path. Lane pairs own one query row; each lane computes half the key
// tile's scores and half the output row with fp32 FMAs, P goes through shared memory.
// Hypothesis (seed 2.2): latency-bound at low occupancy, tensor pipe at 0%.
template <class K, typename T, int D, bool CAUSAL>
__device__ __forceinline__ void mainloop_scalar(const T* Qg, const T* Kg, const T* Vg, T* Og, float* Lg,
                                            int N, float scale, T* Qs, T* Ks, T* Vs, float* Ps, int q0) {
  using TL = Tile<D, K::LAYOUT>;
  constexpr int HC = K::BC / 2, HD = D / 2;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rl = warp * 16 + (lane >> 1), half = lane & 1;  // local row, which half
  const int row = q0 + rl;
  float o[HD];
#pragma unroll
  for (int d = 0; d < HD; ++d) o[d] = 0.f;
  float m = -INFINITY, l = 0.f;

  stage<K, D, K::BR>(Qs, Qg, q0, N);
  const int nkv = kv_blocks<K, CAUSAL>(q0, N);
  for (int kb = 0; kb < nkv; ++kb) {
    const int k0 = kb * K::BC;
    __syncthreads();  // previous block's reads of Ks/Vs are done
    stage<K, D, K::BC>(Ks, Kg, k0, N);
    stage<K, D, K::BC>(Vs, Vg, k0, N);
    stage_wait<K>();
    __syncthreads();
    float s[HC];
#pragma unroll
    for (int j = 0; j < HC; ++j) s[j] = 0.f;
#pragma unroll 4
    for (int k = 0; k < D; ++k) {
      float q = Pack<T>::f(Qs[TL::off(rl, k)]);
#pragma unroll
      for (int j = 0; j < HC; ++j) s[j] += q * Pack<T>::f(Ks[TL::off(half * HC + j, k)]);
    }
    float mx = -INFINITY;
#pragma unroll
    for (int j = 0; j < HC; ++j) {
      int col = k0 + half * HC + j;
      s[j] = (col >= N || (CAUSAL && col > row)) ? -INFINITY : s[j] * scale;
      mx = fmaxf(mx, s[j]);
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));
    const float mnew = fmaxf(m, mx);
    const float meff = mnew == -INFINITY ? 0.f : mnew;  // a fully masked row so far: no NaN
    const float alpha = fexp<K::EXP>(m - meff);
    m = mnew;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < HC; ++j) {
      float p = fexp<K::EXP>(s[j] - meff);
      sum += p;
      Ps[rl * K::BC + half * HC + j] = p;
    }
    l = l * alpha + sum;
    __syncwarp();
#pragma unroll
    for (int d = 0; d < HD; ++d) o[d] *= alpha;
#pragma unroll 2
    for (int j = 0; j < K::BC; ++j) {
      float p = Ps[rl * K::BC + j];
#pragma unroll
      for (int d = 0; d < HD; ++d) o[d] += p * Pack<T>::f(Vs[TL::off(j, half * HD + d)]);
    }
    __syncwarp();
  }
  l += __shfl_xor_sync(0xffffffff, l, 1);
  if (row < N) {
    const float inv = 1.f / l;
#pragma unroll
    for (int d = 0; d < HD; ++d) Og[(size_t)row * D + half * HD + d] = Pack<T>::cast(o[d] * inv);
    if (half == 0) Lg[row] = K::EXP == EXP_EX2 ? (m + log2f(l)) * 0.69314718055994531f : m + logf(l);
  }
}

}  // namespace fa
