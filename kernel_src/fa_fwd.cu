// fa5090-search: FlashAttention forward, one kernel, every lever a compile-time knob.
//
// O = softmax(Q K^T * scale) V per (batch, head), Q/K/V/O laid out [B, H, N, D] contiguous,
// fp16 or bf16 in, fp32 accumulate, O in the input dtype, LSE = log(sum exp) in fp32 [B, H, N].
// Any N (tails are masked), D in {64, 128}, causal (top-left aligned) or not.
// Grouped-query attention is a problem dimension, not a knob: K/V have Hkv heads, Hkv | H.
//
// This file is the entry and the ABI: the kernel's entry point, one Instance per (dtype, head dim,
// causal), its launch, and the extern "C" API the tool loads. The kernel itself is built from
// components, one job each (FlashAttention-3 composes FlashAttnFwdSm90<Mainloop, Epilogue, TileScheduler>
// the same way):
//   config.cuh           the knobs' defaults, the enums naming their values, Knobs<...> and its rules
//   target.cuh           mma.cuh always; wgmma.cuh (warpgroup MMA, TMA, mbarriers) only on sm_90a builds
//   defects.cuh          the defect battery's hooks (FA_DEFECT), every place that reads it
//   tile.cuh             shared-memory tile layouts, the dtype's packing, the CTA's shared-memory size
//   copy.cuh             global -> shared staging (scalar, cp.async, unrolled), ldmatrix, the proxy fence
//   kv_ring.cuh          the K/V ring's schedule: buffers, copies, waits, releases, the producer warpgroup
//   softmax.cuh          the exponentials, scale and mask, the running max and its rescale rules
//   gemm_sm80.cuh        QK^T and PV by mma.sync (compute=mma)
//   gemm_sm90.cuh        QK^T and PV by warpgroup MMA, ping-pong's turns (compute=wgmma, sm_90a builds only)
//   mainloop_scalar.cuh  the mainloop of compute=scalar
//   mainloop_mma.cuh     the mainloop of compute=mma and compute=wgmma: the order of the above per key block
//   epilogue.cuh         the output stores, split-KV's partials and their combine kernel
//   scheduler.cuh        work items, their order, the persistent grid
// and here, run_item: which mainloop an item runs, with the item's addresses.
//
// The build defines the knobs (see kernel_src/knobs.py, which is the schema and the validator):
//   FA_COMPUTE  0 scalar CUDA-core FMAs (the seed's v0) | 1 mma.sync m16n8k16 + ldmatrix (v1) |
//               2 warpgroup MMA (wgmma.mma_async, sm_90a only; one warpgroup per 64 query rows)
//   FA_LAYOUT   0 row-major | 1 XOR swizzle | 2 padding | 3 the 128-byte swizzle in 64-column
//               tiles that wgmma's descriptors read (compute=wgmma only), for the Q/K/V tiles
//   FA_STAGING  0 scalar 2-byte global->shared loads | 1 16-byte cp.async | 2 TMA (compute=wgmma only):
//               K/V tiles by cp.async.bulk.tensor from one thread, completion on mbarriers
//   FA_EXP      0 expf | 1 ex2.approx with log2(e) folded into the host-side scale
//   FA_BR, FA_BC, FA_WARPS  tile rows (queries), tile columns (keys), warps per CTA; each warp owns
//                   16 query rows (BR == 16*WARPS) or, tensor cores only, 32 (BR == 32*WARPS).
//                   H200 from 64x64 on 4 warps, N=8192 fp16 / causal N=32768 bf16: BC 32 1.081x /
//                   1.086x (164 registers, 3 CTAs/SM), BC 128 1.188x / 1.177x, BR 128 on 8 warps
//                   0.952x / 0.894x (results/2026-11-30_h200_margins)
//   FA_KV_STAGES    1 (stage K and V, wait for both) | 2, 3: a ring of K/V buffers, K and V in
//                   separate cp.async groups so QK^T starts while V is in flight
//   FA_Q_IN         0 Q fragments kept in registers | 1 re-read from shared memory every block
//   FA_RESCALE_SKIP 0 | 1 skip O *= alpha when no row of the warp changed its max (bitwise same)
//   FA_CAUSAL_MASK  0 runtime branch per element | 1 predicate specialised per block kind
//                   (a function template) | 2 the key loop split at the diagonal (type tags)
//   FA_CTA_ORDER    0 launch order | 1 heaviest first (longest-processing-time) under causality
//   FA_MIN_CTAS     0 no launch bound | 1-4 __launch_bounds__ minimum CTAs per SM
//   FA_STORE        0 default | 1 streaming (.cs) | 2 write-through (.wt) epilogue stores
//   FA_V_LOAD       0 V fragments by ldmatrix.trans | 1 by 16-bit shared loads (same bits)
//   FA_PERSISTENT   0 one CTA per work item | 1 resident CTAs pull items from a counter
//   FA_SPLIT_KV       1 | 2, 4, 8: split-KV, each (tile, head) split over key ranges, then combined
//   FA_SOFTMAX      0 scale, then exp(s - m) | 1 exp2(s * c - m * c) in one FFMA, the max in raw units
//   FA_KV_OVERLAP   0 | 1 one K and one V buffer: V(j) lands under QK^T(j), K(j+1) under P(j)V(j)
//   FA_EPILOGUE     0 4-byte stores from the accumulators | 1 through shared memory, 16-byte stores
//   FA_RESCALE_LAZY 0 | 1 a row's max is raised only when it grows by more than 2^8 (exact after 1/l)
//   FA_PIPELINE     0 | 1 QK^T of block j+1 issued before the softmax of block j (needs the K/V ring)
//   FA_KV_RELEASE   0 a block barrier frees each K/V buffer | 1 (TMA ring only) each warp counts itself
//                   done with a buffer and the last one issues its refill: no thread waits for another |
//                   2 a producer warpgroup (128 more threads, setmaxnreg) issues every copy once a
//                   buffer's "empty" mbarrier says every consumer warp is done with it (warp specialisation)
//   FA_PINGPONG     0 | 1 (FA_KV_RELEASE=2, wgmma, two consumer warpgroups) two named barriers take the
//                   warpgroups' GEMM issue in turns, so one warpgroup's softmax runs under the other's GEMMs
//   FA_EXP_POLY     0 | 1 a quarter | 2 half of the probabilities' exponentials (FA_EXP=1) by a cubic on
//                   the FMA pipe instead of MUFU.EX2 (relative error 7.5e-5, below fp16's rounding)
//   FA_COPIES       0 a tile's global->shared copies in a strided loop over chunks (or elements), bounds
//                   tested each | 1 a fixed count per thread, unrolled, from one address per tile; the row
//                   test only in a tile that crosses N (same bytes to the same places: bitwise equal)
//   FA_PV_SLAB      0 P of the whole key block, then O += P V | 1 (mma.sync, no pipeline) P made and
//                   multiplied into O one 16-key slab at a time, and the mask tests each score against one
//                   per-row limit: P's live range is one slab, not the block (same sums in the same
//                   order: bitwise equal)
// and which instantiations to emit: FA_DTYPES (bit0 fp16, bit1 bf16), FA_DIMS (bit0 D=64,
// bit1 D=128), FA_CAUSALS (bit0 non-causal, bit1 causal). Only what a run needs is compiled.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>
#include <type_traits>

#include "config.cuh"
#include "defects.cuh"
#include "epilogue.cuh"
#include "kv_ring.cuh"
#include "mainloop_mma.cuh"
#include "mainloop_scalar.cuh"
#include "scheduler.cuh"
#include "target.cuh"
#include "tile.cuh"

#ifndef FA_DTYPES
#define FA_DTYPES 3
#endif
#ifndef FA_DIMS
#define FA_DIMS 3
#endif
#ifndef FA_CAUSALS
#define FA_CAUSALS 3
#endif

namespace fa {

// FA_MIN_CTAS: a minimum of CTAs/SM makes ptxas cap registers (3 on 4 warps: 168). H200 from the
// padded kernel (174/179 registers, 2 CTAs/SM): 3 -> 1.158x at N=8192 fp16, 1.124x at causal
// N=32768 bf16, results/2026-11-30_h200_margins.
// FA_KV_RELEASE=2's register reallocation (setmaxnreg; counts are multiples of 8 in 24..256). ptxas
// applies it only when the register count at entry is fixed (C7508 otherwise): every thread starts with
// its share of the file for the CTAs/SM asked (one, or FA_MIN_CTAS), at most 248; then the producer
// warpgroup keeps PRODUCER_REGS and the consumers take what is left, at most 256.
#if FA_KV_RELEASE == 2
constexpr int PRODUCER_REGS = 40;
constexpr int WS_CTAS = FA_MIN_CTAS > 0 ? FA_MIN_CTAS : 1;
template <class K>
__host__ __device__ constexpr int entry_regs() {
  return 65536 / WS_CTAS / K::CTA_THREADS / 8 * 8 > 248 ? 248 : 65536 / WS_CTAS / K::CTA_THREADS / 8 * 8;
}
template <class K>
__host__ __device__ constexpr int consumer_regs() {
  constexpr int left = (65536 / WS_CTAS - 128 * PRODUCER_REGS) / K::THREADS / 8 * 8;
  return left > 256 ? 256 : (left < entry_regs<K>() ? entry_regs<K>() : left);
}
#define FA_LAUNCH_BOUNDS(K) __launch_bounds__(K::CTA_THREADS, WS_CTAS) __maxnreg__(entry_regs<K>())
#elif FA_MIN_CTAS > 0
#define FA_LAUNCH_BOUNDS(K) __launch_bounds__(K::CTA_THREADS, FA_MIN_CTAS)
#else
#define FA_LAUNCH_BOUNDS(K) __launch_bounds__(K::CTA_THREADS)
#endif


// TMA staging passes the K and V tensor maps by value as __grid_constant__ parameters (the form TMA
// reads them in); no other build changes its signature.
#if FA_STAGING == 2
#define FA_TMA_PARAMS , const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV
#else
#define FA_TMA_PARAMS
#endif

// Which mainloop runs a work item: the one place a compute path's mainloop is chosen (a new mainloop is
// a component header of its own and a branch here), and the item's addresses it is given: its head,
// grouped-query attention's K/V head, split-KV's partials.
template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void run_item(Item it, const T* Q, const T* Kp, const T* V, T* O, float* L, float* Opart,
                                         float* Lpart, int N, int H, int Hkv, int BH, float scale, T* Qs, T* Ks,
                                         T* Vs, const void* tmk, const void* tmv, uint32_t* phase,
                                         uint32_t* fills) {
  using TL = Tile<D, K::LAYOUT>;
  // grouped-query attention: query head h reads K/V head h / (H / Hkv) of the same batch
  const int b = it.bh / H, kvh = (it.bh % H) / (H / Hkv);
  const size_t head = (size_t)it.bh * N, kv_head = ((size_t)b * Hkv + kvh) * N;
  const size_t part = ((size_t)it.split * BH + it.bh) * N;
  const int q0 = it.qt * K::BR;
  if constexpr (K::COMPUTE != SCALAR) {
    Dest<T> dst{O + head * D, L + head, K::SPLITS > 1 ? Opart + part * D : nullptr,
                K::SPLITS > 1 ? Lpart + part : nullptr};
    mainloop_mma<K, T, D, CAUSAL, ROLE>(Q + head * D, Kp + kv_head * D, V + kv_head * D, dst, N, scale, Qs, Ks, Vs, q0,
                              it.split, TmaSrc{tmk, tmv, b * Hkv + kvh, phase, fills});
  } else {
    mainloop_scalar<K, T, D, CAUSAL>(Q + head * D, Kp + kv_head * D, V + kv_head * D, O + head * D, L + head, N, scale,
                                 Qs, Ks, Vs, reinterpret_cast<float*>(Vs + K::BC * K::KV_STAGES * TL::STRIDE), q0);
  }
}

template <class K, typename T, int D, bool CAUSAL>
__global__ void FA_LAUNCH_BOUNDS(K)
fa_fwd_kernel(const T* __restrict__ Q, const T* __restrict__ Kp, const T* __restrict__ V, T* __restrict__ O,
              float* __restrict__ L, float* __restrict__ Opart, float* __restrict__ Lpart, int N, int H, int Hkv,
              int BH, float scale FA_TMA_PARAMS) {
  extern __shared__ __align__(FA_COMPUTE == 2 ? 1024 : 128) unsigned char smem[];  // wgmma: 1024-byte swizzle atoms
  using TL = Tile<D, K::LAYOUT>;
  T* Qs = reinterpret_cast<T*>(smem);
  T* Ks = Qs + K::BR * TL::STRIDE;
  T* Vs = Ks + K::BC * K::KV_STAGES * TL::STRIDE;
  uint32_t phase = 0;  // TMA: the stages' barrier parities, one bit per stage
  [[maybe_unused]] uint32_t fills[K::KV_STAGES] = {};  // FA_KV_RELEASE=2: the producer thread's fills per stage
#if FA_STAGING == 2
  const void* tmk = &tmK;
  const void* tmv = &tmV;
  if (threadIdx.x == 0) kv_ring_init<K, T, D>(Vs);
#else
  const void* tmk = nullptr;
  const void* tmv = nullptr;
#endif
  defect::entry_faults();
  const int tiles = (N + K::BR - 1) / K::BR;
  auto items = [&](auto role) {
    constexpr int ROLE = decltype(role)::value;
    for_each_item<K>(smem + smem_bytes<K, T, D>() - 16, tiles, BH, [&](Item it) {
      run_item<K, T, D, CAUSAL, ROLE>(it, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv,
                                      &phase, fills);
    });
  };
#if FA_KV_RELEASE == 2  // (which implies TMA staging)
  if constexpr (K::PRODUCER) {
    // the barriers thread 0 initialised above, before the producer's first copy arms one or waits on one
    // (the consumers' first wait comes after their own Q barrier, which the producer does not join)
    __syncthreads();
    // register reallocation: the producer warpgroup gives its registers back (it issues copies and
    // waits on the empty barriers), the consumer warpgroups take them, within this CTA's share of the
    // file; each then runs its own copy of the item loop (the same barriers, in the same order)
    if (threadIdx.x >= K::THREADS) {
      setmaxnreg_dec<PRODUCER_REGS>();
      items(std::integral_constant<int, ROLE_PRODUCER>{});
    } else {
      setmaxnreg_inc<consumer_regs<K>()>();
      items(std::integral_constant<int, ROLE_CONSUMER>{});
    }
    return;
  }
#endif
  items(std::integral_constant<int, ROLE_ALL>{});
}

using Cfg = Knobs<FA_COMPUTE, FA_LAYOUT, FA_STAGING, FA_EXP, FA_BR, FA_BC, FA_WARPS, FA_KV_STAGES, FA_Q_IN,
                  FA_RESCALE_SKIP, FA_CAUSAL_MASK, FA_CTA_ORDER, FA_STORE, FA_V_LOAD, FA_PERSISTENT, FA_SPLIT_KV,
                  FA_SOFTMAX, FA_KV_OVERLAP, FA_EPILOGUE, FA_RESCALE_LAZY, FA_PIPELINE, FA_KV_RELEASE, FA_PINGPONG,
                  FA_COPIES, FA_EXP_POLY, FA_PV_SLAB>;

template <typename T, int D, bool CAUSAL>
struct Instance {
  static constexpr int SMEM = smem_bytes<Cfg, T, D>();
  static cudaError_t prepare() {
    static cudaError_t once = cudaFuncSetAttribute(fa_fwd_kernel<Cfg, T, D, CAUSAL>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    return once;
  }
  // persistent grid: resident CTAs per SM (as the driver computes it) x SMs, read once
  static int resident() {
    static int n = [] {
      int dev = 0, sms = 0, per = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fa_fwd_kernel<Cfg, T, D, CAUSAL>, Cfg::CTA_THREADS, SMEM);
      return sms * per;
    }();
    return n;
  }
#if FA_STAGING == 2
  // One head-aware 3-D map per operand: (D, N, B x Hkv), box (64 columns, BC rows, 1 head), the
  // 128-byte swizzle; a box reaching past N is zero-filled there, never read from the next head.
  // The encoder is the driver's, found through the runtime (no -lcuda at build time).
  static cudaError_t tensor_map(CUtensorMap* m, const void* base, int N, int heads) {
    using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    static Encode encode = [] {
      void* fn = nullptr;
      cudaDriverEntryPointQueryResult q;
      if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess)
        fn = nullptr;
      return reinterpret_cast<Encode>(fn);
    }();
    if (!encode) return cudaErrorNotSupported;
    const cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)N, (cuuint64_t)heads};
    const cuuint64_t strides[2] = {(cuuint64_t)D * sizeof(T), (cuuint64_t)N * D * sizeof(T)};
    const cuuint32_t box[3] = {64, (cuuint32_t)Cfg::BC, 1}, step[3] = {1, 1, 1};
    const CUresult r = encode(m, std::is_same<T, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                              3, const_cast<void*>(base), dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
  }
#endif
  static int launch(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv, int N,
                    float scale, cudaStream_t st) {
    cudaError_t e = prepare();
    if (e != cudaSuccess) return (int)e;
    const int tiles = (N + Cfg::BR - 1) / Cfg::BR, BH = B * H;
    const long items = (long)tiles * BH * Cfg::SPLITS;
    dim3 grid = Cfg::PERSISTENT ? dim3((unsigned)std::min<long>(items, std::max(resident(), 1)))
                : Cfg::CTA_ORDER == ORDER_HEAVIEST_FIRST ? dim3((unsigned)items)
                                                         : dim3(tiles, BH, Cfg::SPLITS);
    float *opart = nullptr, *lpart = nullptr;
    if constexpr (Cfg::SPLITS > 1) {
      const size_t rows = (size_t)BH * N;
      opart = workspace((size_t)Cfg::SPLITS * rows * (D + 1) * sizeof(float), &e);
      if (e != cudaSuccess) return (int)e;
      lpart = opart + (size_t)Cfg::SPLITS * rows * D;
    }
    if (defect::kSideStream) {  // work the caller's stream never waits for
      static cudaStream_t side = nullptr;
      if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
      st = side;
    }
#if FA_STAGING == 2
    CUtensorMap tk, tv;
    e = tensor_map(&tk, k, N, B * Hkv);
    if (e == cudaSuccess) e = tensor_map(&tv, v, N, B * Hkv);
    if (e != cudaSuccess) return (int)e;
#define FA_TMA_ARGS , tk, tv
#else
#define FA_TMA_ARGS
#endif
    fa_fwd_kernel<Cfg, T, D, CAUSAL><<<grid, Cfg::CTA_THREADS, SMEM, st>>>(
        (const T*)q, (const T*)k, (const T*)v, (T*)o, lse, opart, lpart, N, H, Hkv, BH, scale FA_TMA_ARGS);
#undef FA_TMA_ARGS
    if constexpr (Cfg::SPLITS > 1) {
      const long threads = (long)BH * N * (D / 4);
      fa_combine_kernel<Cfg, T, D><<<(unsigned)((threads + 127) / 128), 128, 0, st>>>(opart, lpart, (T*)o, lse,
                                                                                     BH * N);
    }
    return (int)cudaGetLastError();
  }
  static int attrs(int* out) {
    cudaError_t e = prepare();
    if (e != cudaSuccess) return (int)e;
    cudaFuncAttributes a;
    e = cudaFuncGetAttributes(&a, fa_fwd_kernel<Cfg, T, D, CAUSAL>);
    if (e != cudaSuccess) return (int)e;
    int ctas = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, fa_fwd_kernel<Cfg, T, D, CAUSAL>, Cfg::CTA_THREADS, SMEM);
    if (e != cudaSuccess) return (int)e;
    out[0] = a.numRegs; out[1] = (int)a.localSizeBytes; out[2] = (int)a.sharedSizeBytes;
    out[3] = SMEM; out[4] = Cfg::CTA_THREADS; out[5] = ctas;
    return 0;
  }
};

}  // namespace fa

// Dispatch over the compiled instantiations. dtype: 0 fp16, 1 bf16.
#define FA_NOT_BUILT -2
#define FA_BAD_ARG -3
template <class F>
static int fa_dispatch(int dtype, int D, int causal, F&& f) {
  (void)f;
#define FA_CASE(DT, TYPE, DBIT, DV, CBIT, CV)                                         \
  if constexpr ((FA_DTYPES & (1 << DT)) && (FA_DIMS & DBIT) && (FA_CAUSALS & CBIT)) {  \
    if (dtype == DT && D == DV && (causal != 0) == CV) return f(fa::Instance<TYPE, DV, CV>()); \
  }
  FA_CASE(0, __half, 1, 64, 1, false)
  FA_CASE(0, __half, 1, 64, 2, true)
  FA_CASE(0, __half, 2, 128, 1, false)
  FA_CASE(0, __half, 2, 128, 2, true)
  FA_CASE(1, __nv_bfloat16, 1, 64, 1, false)
  FA_CASE(1, __nv_bfloat16, 1, 64, 2, true)
  FA_CASE(1, __nv_bfloat16, 2, 128, 1, false)
  FA_CASE(1, __nv_bfloat16, 2, 128, 2, true)
#undef FA_CASE
  if ((dtype != 0 && dtype != 1) || (D != 64 && D != 128)) return FA_BAD_ARG;
  return FA_NOT_BUILT;
}

// Only this C API is exported. Everything else is hidden: with default visibility the
// function-local statics of template code above (the once-per-instantiation attribute set) become
// STB_GNU_UNIQUE symbols that the dynamic linker merges across every loaded candidate library,
// so the second candidate in a process would skip its own cudaFuncSetAttribute (seen on the H200:
// "invalid argument" at launch when two candidates were timed paired in one process).
// FA_API_PREFIX (off by default) renames the C API: -DFA_API_PREFIX=k3_ exports k3_fa_fwd and so on.
// `export --dispatch` compiles several configurations into one library, each inside its own
// namespace (kernels, template statics and host stubs stay apart), and only the extern "C"
// names, which no namespace separates, need a prefix.
#ifdef FA_API_PREFIX
#define FA_API_CAT2(a, b) a##b
#define FA_API_CAT(a, b) FA_API_CAT2(a, b)
#define fa_fwd FA_API_CAT(FA_API_PREFIX, fa_fwd)
#define fa_attributes FA_API_CAT(FA_API_PREFIX, fa_attributes)
#define fa_config FA_API_CAT(FA_API_PREFIX, fa_config)
#define fa_error_string FA_API_CAT(FA_API_PREFIX, fa_error_string)
#endif
#define FA_API __attribute__((visibility("default")))
extern "C" {
// Launch on `stream` (a CUstream/cudaStream_t handle); returns 0 or an error code.
FA_API int fa_fwd(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv, int N,
           int D, int dtype, int causal, float scale, void* stream) {
  if (B <= 0 || H <= 0 || N <= 0 || Hkv <= 0 || H % Hkv) return FA_BAD_ARG;
  return fa_dispatch(dtype, D, causal, [&](auto inst) {
    return decltype(inst)::launch(q, k, v, o, lse, B, H, Hkv, N, scale, (cudaStream_t)stream);
  });
}
// out[6] = registers/thread, local (spill) bytes/thread, static smem, dynamic smem/CTA,
// threads/CTA, resident CTAs/SM as the driver computes it for this device.
FA_API int fa_attributes(int dtype, int D, int causal, int* out) {
  return fa_dispatch(dtype, D, causal, [&](auto inst) { return decltype(inst)::attrs(out); });
}
// The knobs this library was built with (27 ints, one per knob), so a loaded library can be checked against its key.
FA_API void fa_config(int* out) {
  out[0] = FA_COMPUTE; out[1] = FA_LAYOUT; out[2] = FA_STAGING; out[3] = FA_EXP;
  out[4] = FA_BR; out[5] = FA_BC; out[6] = FA_WARPS;
  out[7] = FA_KV_STAGES; out[8] = FA_Q_IN; out[9] = FA_RESCALE_SKIP; out[10] = FA_CAUSAL_MASK;
  out[11] = FA_CTA_ORDER; out[12] = FA_MIN_CTAS; out[13] = FA_STORE;
  out[14] = FA_V_LOAD; out[15] = FA_PERSISTENT; out[16] = FA_SPLIT_KV;
  out[17] = FA_SOFTMAX; out[18] = FA_KV_OVERLAP; out[19] = FA_EPILOGUE; out[20] = FA_RESCALE_LAZY;
  out[21] = FA_PIPELINE; out[22] = FA_KV_RELEASE; out[23] = FA_PINGPONG; out[24] = FA_COPIES; out[25] = FA_EXP_POLY;
  out[26] = FA_PV_SLAB;
}
FA_API const char* fa_error_string(int code) {
  if (code == FA_NOT_BUILT) return "this (dtype, head dim, causal) instantiation was not built into the library";
  if (code == FA_BAD_ARG) return "bad argument: dtype must be fp16/bf16, D 64 or 128, B, H, N > 0, Hkv dividing H";
  return cudaGetErrorString((cudaError_t)code);
}
}
