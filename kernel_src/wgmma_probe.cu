// fa5090-search: a probe of warpgroup MMA on sm_90a, the first step of the Hopper arm.
//
// Not a kernel of the search space yet. It answers, on the GPU, the questions an attention kernel
// built on wgmma.mma_async depends on, before one is written:
//   - which shared-memory descriptor encodings give the right product for the operand layouts an
//     attention kernel needs: Q and K "K-major" (the reduction dimension contiguous), with the
//     128-byte swizzle and with no swizzle (core matrices of 8 rows x 16 bytes); V "MN-major" (the
//     output dimension contiguous, the transpose flag set), as P V needs; A (P) from registers;
//   - how the accumulator fragment maps to rows and columns (the same map as mma.sync's C fragment,
//     one m16 slab per warp of the warpgroup, is the hypothesis the output check tests);
//   - the wgmma throughput ceiling of this part with both operands in shared memory.
// Each variant runs in its own process (`wgmma_probe V`): a wrong descriptor can fault, and a fault
// ends the CUDA context. Variant 99 is the throughput loop. Output: one JSON line.
// Layout facts from the PTX ISA's matrix-descriptor section (bit fields: start address >> 4 in bits
// 0-13, leading-dimension byte offset >> 4 in 16-29, stride-dimension byte offset >> 4 in 32-45,
// swizzle mode in 62-63, 1 = 128 B); the variants below are what is not settled by reading alone.
// Build: nvcc -O3 -std=c++17 -arch=sm_90a kernel_src/wgmma_probe.cu -o wgmma_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

template <int TB>
__device__ __forceinline__ void wgmma_ss_n64(float* d, uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, %35, %36, %37, %38;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
}

template <int TB>
__device__ __forceinline__ void wgmma_ss_n128(float* d, uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, %67, %68, %69, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
}

template <int TB>
__device__ __forceinline__ void wgmma_rs_n64(float* d, const uint32_t* a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, %38, %39, %40;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(TB));
}

__device__ __forceinline__ uint64_t make_desc(const void* smem, int lbo_bytes, int sbo_bytes, int swizzle) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint64_t d = (uint64_t)((a & 0x3FFFF) >> 4);
  d |= (uint64_t)((lbo_bytes >> 4) & 0x3FFF) << 16;
  d |= (uint64_t)((sbo_bytes >> 4) & 0x3FFF) << 32;
  d |= (uint64_t)swizzle << 62;
  return d;
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void ldmatrix_x4(uint32_t* r, const void* p) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

// Byte offset of element (r, c) of a matrix whose rows are r and whose contiguous dimension is c:
// 128-byte swizzle, the contiguous dimension cut into 64-element (128 B) column tiles of ROWS rows
// each; the 16-byte chunk index XOR (row % 8), as the hardware applies it to address bits [4:6]
// with bits [7:9] (so a tile must start on a 1024-byte boundary).
__device__ __forceinline__ int off_sw128(int r, int c, int rows) {
  const int tile = c / 64, cc = c % 64;
  return tile * rows * 128 + r * 128 + ((((cc * 2) >> 4) ^ (r & 7)) << 4) + ((cc * 2) & 15);
}
// No swizzle: 8 x 8 core matrices of 128 contiguous bytes, the core matrices of one 8-row band
// adjacent along c (128 B apart), bands (cols / 8) x 128 B apart.
__device__ __forceinline__ int off_interleave(int r, int c, int cols) {
  return (r / 8) * (cols / 8) * 128 + (c / 8) * 128 + (r % 8) * 16 + (c % 8) * 2;
}

struct Variant {
  int a_layout;  // 0 sw128 K-major, 1 interleave K-major, 2 registers (ldmatrix from a row-major copy)
  int b_layout;  // 0 sw128 K-major, 1 interleave K-major, 2 sw128 MN-major (transposed)
  int K, N;
  int lbo, sbo;  // B's (and A's for interleave) descriptor offsets, bytes
  const char* what;
};
__host__ __device__ inline Variant variant(int v) {
  switch (v) {
    case 0: return {0, 0, 64, 64, 16, 1024, "A,B sw128 K-major, K 64 (one column tile), N 64"};
    case 1: return {0, 0, 128, 64, 16, 1024, "A,B sw128 K-major, K 128 (two column tiles), N 64"};
    case 2: return {1, 1, 64, 64, 128, 1024, "A,B no swizzle K-major, LBO = K-adjacent core matrices (128 B), SBO = 8-row bands (K/8 x 128 B)"};
    case 3: return {1, 1, 64, 64, 1024, 128, "A,B no swizzle K-major, the same fill, LBO and SBO swapped"};
    case 4: return {2, 0, 64, 64, 16, 1024, "A from registers (mma.sync A-fragment), B sw128 K-major"};
    case 5: return {0, 2, 64, 64, 64 * 128, 1024, "A sw128, B sw128 MN-major (transposed), N 64 (one atom wide)"};
    case 6: return {0, 2, 64, 128, 64 * 128, 1024, "A sw128, B sw128 MN-major, N 128: LBO = next 64-wide N tile, SBO = 8 K-rows"};
    case 7: return {0, 2, 64, 128, 1024, 64 * 128, "A sw128, B sw128 MN-major, N 128: LBO and SBO swapped"};
    // 6 and 7 both passed on the H200 (results/2026-11-30_h200_fa2_levers): the test data of 0-7
    // repeat every 7 (B) and 9 (A) elements, and both offsets in question are 1 mod 7, so reading
    // one for the other read the same values. 8 and 9 ask again on hashed data.
    case 8: return {0, 2, 64, 128, 64 * 128, 1024, "as 6 (LBO = next N tile, SBO = 8 K-rows) on hashed data"};
    case 9: return {0, 2, 64, 128, 1024, 64 * 128, "as 7 (LBO and SBO swapped) on hashed data"};
    default: return {-1, -1, 0, 0, 0, 0, ""};
  }
}

// One warpgroup: D[64 x N] = A[64 x K] B, with B given as Bl[N x K] (so D = A Bl^T).
__global__ void __launch_bounds__(128) probe(int v, const __half* A, const __half* Bl, float* D) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const Variant p = variant(v);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  unsigned char* sa = smem;                  // A: up to 64 x 128 halves = 16 KB
  unsigned char* sb = smem + 16384;          // B: up to 128 x 128 halves = 32 KB
  __half* arow = reinterpret_cast<__half*>(smem + 16384 + 32768);  // row-major A for ldmatrix
  for (int i = tid; i < 64 * p.K; i += 128) {
    const int r = i / p.K, c = i % p.K;
    const __half x = A[r * p.K + c];
    const int o = p.a_layout == 1 ? off_interleave(r, c, p.K) : off_sw128(r, c, 64);
    *reinterpret_cast<__half*>(sa + o) = x;
    arow[r * p.K + c] = x;
  }
  for (int i = tid; i < p.N * p.K; i += 128) {
    const int n = i / p.K, k = i % p.K;
    const __half x = Bl[n * p.K + k];
    int o;
    if (p.b_layout == 0) o = off_sw128(n, k, p.N);
    else if (p.b_layout == 1) o = off_interleave(n, k, p.K);
    else o = off_sw128(k, n, p.K);  // MN-major: rows are k, the contiguous dimension is n
    *reinterpret_cast<__half*>(sb + o) = x;
  }
  proxy_fence();  // generic-proxy stores, read next by the async proxy
  __syncthreads();

  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  wg_fence();
  for (int kk = 0; kk < p.K / 16; ++kk) {
    const int k0 = kk * 16;
    uint64_t da = 0, db;
    if (p.a_layout == 0) da = make_desc(sa + (k0 / 64) * 64 * 128 + (k0 % 64) * 2, 16, 1024, 1);
    else if (p.a_layout == 1) da = make_desc(sa + (k0 / 8) * 128, p.lbo, p.sbo, 0);
    if (p.b_layout == 0) db = make_desc(sb + (k0 / 64) * p.N * 128 + (k0 % 64) * 2, 16, 1024, 1);
    else if (p.b_layout == 1) db = make_desc(sb + (k0 / 8) * 128, p.lbo, p.sbo, 0);
    else db = make_desc(sb + k0 * 128, p.lbo, p.sbo, 1);
    if (p.a_layout == 2) {
      uint32_t a[4];
      ldmatrix_x4(a, arow + (warp * 16 + (lane & 15)) * p.K + k0 + (lane >> 4) * 8);
      wgmma_rs_n64<0>(d, a, db, kk > 0);
    } else if (p.N == 128) {
      wgmma_ss_n128<1>(d, da, db, kk > 0);
    } else if (p.b_layout == 2) {
      wgmma_ss_n64<1>(d, da, db, kk > 0);
    } else {
      wgmma_ss_n64<0>(d, da, db, kk > 0);
    }
  }
  wg_commit();
  wg_wait<0>();
  // the hypothesis under test: mma.sync's C-fragment map, warp w owning rows 16w .. 16w + 15
  for (int j = 0; j < p.N / 8; ++j) {
    const int row = warp * 16 + g, col = j * 8 + 2 * t;
    D[row * p.N + col] = d[4 * j];
    D[row * p.N + col + 1] = d[4 * j + 1];
    D[(row + 8) * p.N + col] = d[4 * j + 2];
    D[(row + 8) * p.N + col + 1] = d[4 * j + 3];
  }
}

// Throughput: each warpgroup chains m64n128k16 on operands resident in shared memory (zeros), four
// per commit, one group kept in flight.
__global__ void __launch_bounds__(128) peak(float* sink, int iters) {
  extern __shared__ __align__(1024) unsigned char smem[];
  for (int i = threadIdx.x; i < (64 + 128) * 64 * 2 / 16; i += 128) reinterpret_cast<uint4*>(smem)[i] = make_uint4(0, 0, 0, 0);
  proxy_fence();
  __syncthreads();
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  wg_fence();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      wgmma_ss_n128<0>(d, make_desc(smem + kk * 32, 16, 1024, 1), make_desc(smem + 8192 + kk * 32, 16, 1024, 1), 1);
    wg_commit();
    wg_wait<1>();
  }
  wg_wait<0>();
  float s = 0.f;
  for (int i = 0; i < 64; ++i) s += d[i];
  if (s != 0.f) sink[blockIdx.x] = s;
}

static int check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  const int v = argc > 1 ? atoi(argv[1]) : 0;
  cudaDeviceProp prop;
  if (check(cudaGetDeviceProperties(&prop, 0), "device")) return 1;
  if (v == 99) {
    const int ctas = prop.multiProcessorCount * 2, iters = 20000;
    float* sink;
    if (check(cudaMalloc(&sink, ctas * sizeof(float)), "malloc")) return 1;
    const int smem = (64 + 128) * 64 * 2;
    cudaFuncSetAttribute(peak, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(e0);
      peak<<<ctas, 128, smem>>>(sink, iters);
      cudaEventRecord(e1);
      if (check(cudaEventSynchronize(e1), "peak")) return 1;
      float t;
      cudaEventElapsedTime(&t, e0, e1);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double flops = 2.0 * 64 * 128 * 16 * 4 * (double)iters * ctas;
    printf("{\"variant\": 99, \"what\": \"m64n128k16 fp16->fp32 from shared memory, %d CTAs x 1 warpgroup, median of 5\", "
           "\"ms\": %.3f, \"tflops\": %.1f, \"device\": \"%s\"}\n", ctas, ms[2], flops / (ms[2] * 1e-3) / 1e12, prop.name);
    return 0;
  }
  const Variant p = variant(v);
  if (p.a_layout < 0) { printf("{\"error\": \"unknown variant %d\"}\n", v); return 2; }
  std::vector<__half> a(64 * p.K), b(p.N * p.K);
  std::vector<float> af(a.size()), bf(b.size());
  auto hashed = [](uint32_t i, int levels) {  // no short period: a misplaced read shows
    i = (i ^ 61u) ^ (i >> 16); i *= 9u; i ^= i >> 4; i *= 0x27d4eb2du; i ^= i >> 15;
    return (float)((int)(i % (uint32_t)levels) - levels / 2) / 4.f;
  };
  for (int i = 0; i < 64 * p.K; ++i) {
    af[i] = v >= 8 ? hashed(i, 9) : (float)(((i * 37 + 11) % 9) - 4) / 4.f;
    a[i] = __float2half(af[i]);
  }
  for (int i = 0; i < p.N * p.K; ++i) {
    bf[i] = v >= 8 ? hashed(i + 100003, 7) : (float)(((i * 53 + 7) % 7) - 3) / 4.f;
    b[i] = __float2half(bf[i]);
  }
  __half *da, *db;
  float* dd;
  if (check(cudaMalloc(&da, a.size() * 2), "malloc") || check(cudaMalloc(&db, b.size() * 2), "malloc") ||
      check(cudaMalloc(&dd, 64 * p.N * 4), "malloc")) return 1;
  cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, 64 * p.N * 4);  // NaN: an element the fragment map misses stays NaN
  const int smem = 16384 + 32768 + 64 * 128 * 2;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  probe<<<1, 128, smem>>>(v, da, db, dd);
  if (check(cudaDeviceSynchronize(), "probe")) return 1;
  std::vector<float> out(64 * p.N);
  cudaMemcpy(out.data(), dd, out.size() * 4, cudaMemcpyDeviceToHost);
  double worst = 0;
  int bad = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < p.N; ++n) {
      double ref = 0;
      for (int k = 0; k < p.K; ++k) ref += (double)af[m * p.K + k] * bf[n * p.K + k];
      const double err = fabs(ref - out[m * p.N + n]);
      if (!(err <= 1e-3)) ++bad;
      if (!(err <= worst)) worst = err;  // NaN propagates as the worst
    }
  printf("{\"variant\": %d, \"what\": \"%s\", \"ok\": %s, \"wrong_elements\": %d, \"of\": %d, \"max_abs_err\": %g}\n", v, p.what,
         bad == 0 ? "true" : "false", bad, 64 * p.N, worst);
  return 0;
}
