// The tensor-pipe ceiling for mma.sync m16n8k16 with fp32 accumulation: each warp keeps 16
// independent accumulator tiles in registers and issues nothing but mma.sync. No memory traffic,
// no dependency chains: what the pipe gives an attention kernel built on this instruction.
#include <cuda_runtime.h>

#include "mma.cuh"

template <typename T>
__global__ void __launch_bounds__(256) mma_peak_kernel(float* sink, int iters) {
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * 2654435761u >> (8 + i));  // finite, nonzero
  for (int i = 0; i < 2; ++i) b[i] = 0x3c003c00u ^ (threadIdx.x * 40503u >> (4 + i));
  float c[16][4];
#pragma unroll
  for (int j = 0; j < 16; ++j) c[j][0] = c[j][1] = c[j][2] = c[j][3] = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 16; ++j) fa::mma16816<T>(c[j], a, b);
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 16; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;  // keeps the loop alive; never true in practice
}

#define FA_API __attribute__((visibility("default")))
extern "C" {
// FLOPs of one launch: blocks x 8 warps x iters x 16 tiles x (2 x 16 x 8 x 16)
FA_API double mma_peak_flops(int blocks, int iters) { return (double)blocks * 8 * iters * 16 * 2.0 * 16 * 8 * 16; }
FA_API int mma_peak_launch(int dtype, int blocks, int iters, float* sink, void* stream) {
  if (dtype == 0)
    mma_peak_kernel<__half><<<blocks, 256, 0, (cudaStream_t)stream>>>(sink, iters);
  else
    mma_peak_kernel<__nv_bfloat16><<<blocks, 256, 0, (cudaStream_t)stream>>>(sink, iters);
  return (int)cudaGetLastError();
}
}
