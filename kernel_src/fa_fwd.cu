// fa5090-search: FlashAttention forward, one kernel, every lever a compile-time knob.
//
// O = softmax(Q K^T * scale) V per (batch, head), Q/K/V/O laid out [B, H, N, D] contiguous,
// fp16 or bf16 in, fp32 accumulate, O in the input dtype, LSE = log(sum exp) in fp32 [B, H, N].
// Any N (tails are masked), D in {64, 128}, causal (top-left aligned) or not.
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
//   FA_MAINLOOP     0 the one body every arm shares (body_mma) | 1 the warp-specialised Hopper mainloop
//                   (mainloop_sm90_ws.cuh: a TMA producer warpgroup, 2-3 wgmma consumer warpgroups with
//                   setmaxnreg, separate K and V pipelines; FA_PIPELINE its intra-warpgroup overlap,
//                   FA_PINGPONG its turns, FA_PERSISTENT a static persistent schedule)
//   FA_Q_LOAD       0 (FA_MAINLOOP=1) each consumer warpgroup copies its Q rows by cp.async and waits for
//                   them | 1 the producer loads the Q tile by TMA on its own full/empty mbarrier pair, as
//                   soon as the previous item's last QK^T is done (so, persistent, under that item's last
//                   softmax, PV and stores)
// Grouped-query attention is a problem dimension, not a knob: K/V have Hkv heads, Hkv | H.
// and which instantiations to emit: FA_DTYPES (bit0 fp16, bit1 bf16), FA_DIMS (bit0 D=64,
// bit1 D=128), FA_CAUSALS (bit0 non-causal, bit1 causal). Only what a run needs is compiled.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>
#include <type_traits>

#include "mma.cuh"
#if FA_STAGING == 2
#include <cuda.h>  // CUtensorMap (the kernel's TMA parameters) and the driver's encoder type
#endif
#if FA_COMPUTE == 2
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "compute=wgmma needs the sm_90a target (nvcc -gencode arch=compute_90a,code=sm_90a)"
#endif
#include "wgmma.cuh"
#endif

#ifndef FA_COMPUTE
#define FA_COMPUTE 0
#endif
#ifndef FA_LAYOUT
#define FA_LAYOUT 0
#endif
#ifndef FA_STAGING
#define FA_STAGING 0
#endif
#ifndef FA_EXP
#define FA_EXP 0
#endif
#ifndef FA_BR
#define FA_BR 64
#endif
#ifndef FA_BC
#define FA_BC 64
#endif
#ifndef FA_WARPS
#define FA_WARPS 4
#endif
#ifndef FA_KV_STAGES
#define FA_KV_STAGES 1
#endif
#ifndef FA_Q_IN
#define FA_Q_IN 0
#endif
#ifndef FA_RESCALE_SKIP
#define FA_RESCALE_SKIP 0
#endif
#ifndef FA_CAUSAL_MASK
#define FA_CAUSAL_MASK 0
#endif
#ifndef FA_CTA_ORDER
#define FA_CTA_ORDER 0
#endif
#ifndef FA_MIN_CTAS
#define FA_MIN_CTAS 0
#endif
#ifndef FA_STORE
#define FA_STORE 0
#endif
#ifndef FA_V_LOAD
#define FA_V_LOAD 0
#endif
#ifndef FA_PERSISTENT
#define FA_PERSISTENT 0
#endif
#ifndef FA_SPLIT_KV
#define FA_SPLIT_KV 1
#endif
#ifndef FA_SOFTMAX
#define FA_SOFTMAX 0
#endif
#ifndef FA_KV_OVERLAP
#define FA_KV_OVERLAP 0
#endif
#ifndef FA_EPILOGUE
#define FA_EPILOGUE 0
#endif
#ifndef FA_RESCALE_LAZY
#define FA_RESCALE_LAZY 0
#endif
#ifndef FA_PIPELINE
#define FA_PIPELINE 0
#endif
#ifndef FA_KV_RELEASE
#define FA_KV_RELEASE 0
#endif
#ifndef FA_PINGPONG
#define FA_PINGPONG 0
#endif
#ifndef FA_COPIES
#define FA_COPIES 0
#endif
#ifndef FA_EXP_POLY
#define FA_EXP_POLY 0
#endif
#ifndef FA_PV_SLAB
#define FA_PV_SLAB 0
#endif
#ifndef FA_MAINLOOP
#define FA_MAINLOOP 0
#endif
#ifndef FA_Q_LOAD
#define FA_Q_LOAD 0
#endif
// The defect battery (issue 4): deliberately wrong variants that only the build's defect switch
// reaches, never a knob. The correctness tier must reject every one of them.
#ifndef FA_DEFECT
#define FA_DEFECT 0
#endif
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

enum { SCALAR = 0, MMA = 1, WGMMA = 2 };
enum { ROW_MAJOR = 0, SWIZZLE = 1, PAD = 2, SW128 = 3 };
enum { STAGE_SCALAR = 0, STAGE_CP_ASYNC = 1, STAGE_TMA = 2 };
enum { EXP_EXPF = 0, EXP_EX2 = 1 };
enum {
  DEF_NONE = 0, DEF_ONE_SIDED_SWIZZLE, DEF_MISSING_COMMIT, DEF_CAUSAL_OFF_BY_ONE, DEF_WRONG_SCALE,
  DEF_DROPPED_RESCALE, DEF_MISSING_SYNC, DEF_PARTIAL_WRITE, DEF_NO_WRITE, DEF_WRITES_INPUT,
  DEF_SIDE_STREAM, DEF_NO_TAIL_MASK,
  // faults that end the worker rather than its output (issue 11's GPU battery, experiments.defects.FAULTS):
  // a kernel that never returns and one that stores to an unmapped address
  DEF_HANG, DEF_ILLEGAL_ADDRESS
};

enum { MASK_RUNTIME = 0, MASK_PREDICATE = 1, MASK_SPLIT = 2 };
enum { ORDER_LAUNCH = 0, ORDER_HEAVIEST_FIRST = 1 };
enum { STORE_DEFAULT = 0, STORE_CS = 1, STORE_WT = 2 };
enum { V_LDMATRIX_TRANS = 0, V_LDS = 1 };
enum { SOFTMAX_SEPARATE = 0, SOFTMAX_FUSED = 1 };
enum { EPI_DIRECT = 0, EPI_SMEM = 1 };
// Who runs an item's code: everyone (ROLE_ALL, every build but one), or with FA_KV_RELEASE=2 the consumer
// warps and the producer warpgroup on separate copies of it, so that ptxas can give each its own register
// count after setmaxnreg (a path the two share makes it ignore setmaxnreg, C7507)
enum { ROLE_ALL = 0, ROLE_CONSUMER = 1, ROLE_PRODUCER = 2 };

template <int COMPUTE_, int LAYOUT_, int STAGING_, int EXP_, int BR_, int BC_, int WARPS_, int KV_STAGES_ = 1,
          int Q_IN_ = 0, int RESCALE_SKIP_ = 0, int CAUSAL_MASK_ = 0, int CTA_ORDER_ = 0, int STORE_ = 0,
          int V_LOAD_ = 0, int PERSISTENT_ = 0, int SPLITS_ = 1, int SOFTMAX_ = 0, int KV_OVERLAP_ = 0,
          int EPILOGUE_ = 0, int RESCALE_LAZY_ = 0, int PIPELINE_ = 0, int KV_RELEASE_ = 0, int PINGPONG_ = 0,
          int COPIES_ = 0, int EXP_POLY_ = 0, int PV_SLAB_ = 0, int MAINLOOP_ = 0, int Q_LOAD_ = 0>
struct Knobs {
  static constexpr int COMPUTE = COMPUTE_, LAYOUT = LAYOUT_, STAGING = STAGING_, EXP = EXP_;
  static constexpr int BR = BR_, BC = BC_, WARPS = WARPS_, THREADS = WARPS_ * 32;
  static constexpr int KV_STAGES = KV_STAGES_, Q_IN = Q_IN_, RESCALE_SKIP = RESCALE_SKIP_;
  static constexpr int CAUSAL_MASK = CAUSAL_MASK_, CTA_ORDER = CTA_ORDER_, STORE = STORE_;
  static constexpr int V_LOAD = V_LOAD_, PERSISTENT = PERSISTENT_, SPLITS = SPLITS_;
  static constexpr int SOFTMAX = SOFTMAX_, KV_OVERLAP = KV_OVERLAP_, EPILOGUE = EPILOGUE_;
  static constexpr int RESCALE_LAZY = RESCALE_LAZY_, PIPELINE = PIPELINE_, KV_RELEASE = KV_RELEASE_;
  static constexpr int PINGPONG = PINGPONG_, COPIES = COPIES_, EXP_POLY = EXP_POLY_, PV_SLAB = PV_SLAB_;
  static constexpr int MAINLOOP = MAINLOOP_;  // 1: mainloop_sm90_ws.cuh
  static constexpr int Q_LOAD = Q_LOAD_;  // 1: the ws producer loads Q by TMA
  static_assert(!Q_LOAD || MAINLOOP, "Q by TMA is the warp-specialised mainloop's producer's");
  // FA_KV_RELEASE=2: a producer warpgroup after the WARPS consumer warps; THREADS stays the consumers'
  static constexpr bool PRODUCER = KV_RELEASE == 2;
  static constexpr int CTA_THREADS = THREADS + (PRODUCER ? 128 : 0);
  static constexpr int MT = BR / (16 * WARPS);  // 16-row m-tiles per warp
  static_assert(BR == 16 * WARPS * MT && (MT == 1 || MT == 2), "each warp owns 16 or 32 query rows");
  static_assert(!MAINLOOP || (COMPUTE == WGMMA && STAGING == STAGE_TMA && PRODUCER && SOFTMAX == SOFTMAX_FUSED &&
                              EXP == EXP_EX2 && SPLITS == 1 && (WARPS == 8 || WARPS == 12) && BC >= 64 &&
                              KV_STAGES >= 2 && EPILOGUE == EPI_DIRECT && !EXP_POLY &&
                              (BC == 64 || BC == 128 || BC == 176)),
                "the warp-specialised mainloop: wgmma, TMA, a producer warpgroup, the fused ex2 softmax, 2-3 consumer warpgroups");
  static_assert(MT == 1 || COMPUTE == MMA, "32 rows per warp is an mma.sync tiling");
  static_assert(COMPUTE != WGMMA || (LAYOUT == SW128 && Q_IN && STAGING != STAGE_SCALAR && WARPS % 4 == 0 && MT == 1),
                "wgmma: 128-byte swizzled tiles, Q read by descriptor, cp.async or TMA staging, whole warpgroups");
  static_assert(STAGING != STAGE_TMA || (COMPUTE == WGMMA && !KV_OVERLAP),
                "TMA staging is the wgmma arm's, on the K/V ring or one buffer (no overlap schedule)");
  static_assert((LAYOUT == SW128) == (COMPUTE == WGMMA), "the wgmma tile layout is for wgmma alone");
  static_assert(SPLITS == 1 || SPLITS == 2 || SPLITS == 4 || SPLITS == 8, "1, 2, 4 or 8 key splits");
  static_assert(BC % 16 == 0, "key tile must be a multiple of 16");
  static_assert(KV_STAGES >= 1 && KV_STAGES <= 3, "1 to 3 K/V stages");
  static_assert(KV_STAGES == 1 || STAGING != STAGE_SCALAR, "a K/V pipeline needs asynchronous copies");
  static_assert(!KV_OVERLAP || (KV_STAGES == 1 && STAGING == STAGE_CP_ASYNC), "the overlap schedule is one-buffer cp.async");
  static_assert(EPILOGUE == EPI_DIRECT || (SPLITS == 1 && STORE == STORE_DEFAULT), "the smem epilogue: no split, default stores");
  static_assert(!RESCALE_LAZY || (EXP == EXP_EX2 && RESCALE_SKIP), "the lazy max counts in log2 units, pays through the vote");
  static_assert(!PIPELINE || KV_STAGES >= 2, "QK^T one block ahead reads the next K from the ring");
  static_assert(!KV_RELEASE || (STAGING == STAGE_TMA && KV_STAGES >= 2), "the last warp done refills the TMA ring's buffer");
  static_assert(!EXP_POLY || (EXP == EXP_EX2 && COMPUTE != SCALAR), "the cubic computes 2^x: ex2 units, tensor-core paths");
  static_assert(!PV_SLAB || (COMPUTE == MMA && !PIPELINE && !KV_OVERLAP && STAGING != STAGE_TMA),
                "P slab by slab: mma.sync's register fragments, the plain block schedule");
  static_assert(!PINGPONG || (PRODUCER && COMPUTE == WGMMA && WARPS == 8),
                "pingpong takes turns between two consumer warpgroups beside a producer warpgroup");
};

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
    if (FA_DEFECT == DEF_ONE_SIDED_SWIZZLE) return r * STRIDE + c;
    return off(r, c);
  }
};

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

// exp of a score already multiplied by the host scale. With EX2 the host folded log2(e) into
// the scale, so scores and the running max live in the log2 domain and the exponential is one
// MUFU.EX2; expf lowers to ~8 instructions of which one is MUFU (seed v4: +9% on the 5090,
// paid on the FMA/ALU pipes, not the SFU; H200 N=2048 fp16: 1.110x paired). ex2.approx(-inf) =
// +0: a masked key adds nothing.
template <int EXP>
__device__ __forceinline__ float fexp(float x) {
  if (EXP == EXP_EX2) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
  return expf(x);
}

// 2^x on the FMA pipe (FA_EXP_POLY), for a part whose MUFU pipe saturates: MUFU.EX2 issues at a
// quarter of the FMA rate, and the exponentials of P are one MUFU per score (FlashAttention-4 moves
// a share of them to a polynomial on Blackwell). Round x to the nearest integer j with the 1.5 x 2^23
// shifter (an FADD; j lands in t's low mantissa bits), f = x - j in [-0.5, 0.5], 2^f by a cubic
// (Horner, three FFMA; coefficients fitted here for minimax relative error, 7.5e-5 in fp32, under
// fp16's 4.9e-4 rounding of P), and 2^j added to the exponent field as an integer (a shift and an
// add). x below -125 (a masked score, -inf) reads 0, as ex2.approx.ftz gives. About 8 instructions
// on the FMA and ALU pipes for one MUFU: a trade for an MUFU-bound kernel, a loss for an issue-bound
// one (the H200's mma.sync kernels read issue-bound). Not bitwise: within the tier's bound. H200
// against the unrolled-copies kernel: quarter 0.955 / half 0.924 at N=8192 fp16, 0.966 / 0.903 at
// causal N=32768 bf16, all SLOWER (results/2026-11-30_h200_session8/s8b); the 5090 not measured.
__device__ __forceinline__ float ex2_poly(float x) {
  const float xc = fmaxf(x, -127.f);
  const float t = xc + 12582912.f;
  const float f = xc - (t - 12582912.f);
  float p = fmaf(fmaf(fmaf(0.05517050f, f, 0.24260852f), f, 0.69326097f), f, 0.99992824f);
  p = __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
  return x < -125.f ? 0.f : p;
}
// The exponential of the E-th of a thread's four scores of an n-tile (E = 0..3: rows g and g+8, two
// columns each): with FA_EXP_POLY=1 the fourth goes to the cubic, with 2 the second and the fourth.
template <class K, int E>
__device__ __forceinline__ float pexp(float x) {
  if constexpr ((K::EXP_POLY == 1 && E == 3) || (K::EXP_POLY == 2 && (E & 1))) return ex2_poly(x);
  return fexp<K::EXP>(x);
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

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

// Stage rows [row0, row0 + ROWS) of one head's [N, D] matrix into a shared tile; rows past N
// are zero (a zero K row scores 0 and is then masked; a zero V row adds nothing).
// Scalar: one 2-byte load per element through a register (seed v0..v2).
// cp.async: one 16-byte LDGSTS per 8 elements, no register, L1 bypassed (seed v3: 1.51x for
// the width alone on the 5090; H200 N=2048 fp16: 5.12x paired, long_scoreboard had been 71% of
// stalls). Out-of-range rows use src-size 0, which zero-fills.
// Where a staged element goes: the layout's map, or (wgmma) the 128-byte swizzle in 64-column tiles
// of ROWS rows, which depends on the tile's height.
template <class K, int D, int ROWS>
__device__ __forceinline__ int soff(int r, int c) {
#if FA_COMPUTE == 2
  if constexpr (K::LAYOUT == SW128) return sw128_el(r, c, ROWS);
#endif
  return Tile<D, K::LAYOUT>::off(r, c);
}

// Unrolled copies (FA_COPIES=1). The strided loop above compiles, per tile, to a loop whose trip
// count ptxas cannot see (it starts at threadIdx.x), each chunk with its own 64-bit address, row
// test and branch: in the sm_90 build of session 5's best kernel (t128x32w4, two stages) the key loop
// holds 1,033 SASS instructions against its 128 HMMA, 844 with the copies unrolled (IMAD 111 -> 59,
// LEA 59 -> 19; results/2026-11-30_cpu_build_checks/unrolled_copies.txt). Here a thread's chunks are a fixed
// count PER, RSTEP rows apart in one column: one address per tile and immediate offsets, no row test
// unless the tile crosses N (then src-size 0 zero-fills, as in the loop). The same bytes reach the
// same places. Hypothesis: the kernel is issue-bound (wait + short_scoreboard 68% of stalls at 2
// warps per scheduler, results/2026-11-30_h200_session5 exp 21), so the copies' issue slots and
// their address chains go back to the MMAs and the softmax: FlashAttention-2 issues its tile copies
// from pointers computed once. H200 against that kernel: 1.1234 KEPT at N=8192 fp16, 1.1188 KEPT at
// causal N=32768 bf16; with it the kernel runs 1.006-1.012x SDPA flash at N=8192 in six processes
// (results/2026-11-30_h200_session8).
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

// Key blocks this query tile must visit: all of them, or (causal) up to the diagonal.
template <class K, bool CAUSAL>
__device__ __forceinline__ int kv_blocks(int q0, int N) {
  int end = CAUSAL ? min(N, q0 + K::BR) : N;
  return (end + K::BC - 1) / K::BC;
}

template <class K, typename T, int D>
__host__ __device__ constexpr int smem_bytes() {
  return (K::BR + 2 * K::BC * K::KV_STAGES) * Tile<D, K::LAYOUT>::STRIDE * (int)sizeof(T) +
         (K::COMPUTE == SCALAR ? K::BR * K::BC * (int)sizeof(float) : 0) +
         // TMA: a K and a V mbarrier per stage, and with FA_KV_RELEASE each stage's count of warps done
         // (last_warp) or its "empty" mbarrier (producer), 8 bytes either way
         (K::STAGING == STAGE_TMA ? (K::MAINLOOP ? 32 : K::KV_RELEASE ? 24 : 16) * K::KV_STAGES : 0) +
         (K::Q_LOAD ? 16 : 0) +  // FA_Q_LOAD=1: Q's full and empty mbarriers
         (K::PERSISTENT ? 16 : 0);  // the persistent grid's item slot
}

// ---------------------------------------------------------------------------------------
// v0: scalar CUDA-core path. Lane pairs own one query row; each lane computes half the key
// tile's scores and half the output row with fp32 FMAs, P goes through shared memory.
// Hypothesis (seed 2.2): latency-bound at low occupancy, tensor pipe at 0%.
template <class K, typename T, int D, bool CAUSAL>
__device__ __forceinline__ void body_scalar(const T* Qg, const T* Kg, const T* Vg, T* Og, float* Lg,
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

// ---------------------------------------------------------------------------------------
// v1: tensor cores. Each warp owns 16 query rows; S = Q K^T and O += P V run as
// mma.sync.m16n8k16 with fp32 accumulators, operands fed by ldmatrix (V through .trans).
// S's accumulator layout is exactly P's A-operand layout, so P never leaves registers.
// Hypothesis (seed 2.3): the unit that defines the card wakes up; H200: 3.54x paired
// (results/2026-11-30_h200_run2), 6.9x on the 5090.

// Scale and mask one block's scores and return the row maxima (rows g, g+8 of the warp).
// MASK is a template argument, not a runtime flag: with FA_CAUSAL_MASK >= 1 the interior blocks
// (no key past N, none past the diagonal) are compiled without the predicate at all; seed v7
// exp10: +2.18% from deleting it from 1023 of 1024 causal blocks.
// With FA_SOFTMAX=1 the scale is not applied here (SCALE false): the scores and the row max stay in
// raw units and the exponential takes s * c - m * c as one FFMA (see body_mma).
template <class K, bool CAUSAL, bool MASK, int NT, bool SCALE = K::SOFTMAX == SOFTMAX_SEPARATE>
__device__ __forceinline__ void scale_mask(float (&s)[NT][4], float (&mx)[2], int k0, int rowa, int rowb, int t,
                                           int N, float scale, bool edge) {
  // FA_PV_SLAB=1 (see body_mma): the first masked column of each row, relative to this thread's first
  // column, computed once (a key col is masked when col >= lim: the tail, or past the diagonal), so
  // each element's test is a compile-time offset against it: fewer live values than a column and a row
  // index per element. Integer arithmetic on the same conditions: the same elements are masked.
  [[maybe_unused]] int lim[2];
  if constexpr (MASK && K::PV_SLAB) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int l = FA_DEFECT != DEF_NO_TAIL_MASK ? N : 0x3fffffff;
      if (CAUSAL) l = min(l, (h ? rowb : rowa) + 1 + (FA_DEFECT == DEF_CAUSAL_OFF_BY_ONE));
      lim[h] = edge ? l - k0 - 2 * t : 0x3fffffff;
    }
  }
#pragma unroll
  for (int j = 0; j < NT; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      [[maybe_unused]] const int col = k0 + j * 8 + 2 * t + (e & 1);  // (FA_PV_SLAB=0's test, in its order)
      [[maybe_unused]] const int row = e < 2 ? rowa : rowb;
      float v = s[j][e];
      if constexpr (SCALE) v *= (FA_DEFECT == DEF_WRONG_SCALE ? scale * 1.0625f : scale);
      if constexpr (K::PV_SLAB) {
        if (MASK && j * 8 + (e & 1) >= lim[e >> 1]) v = -INFINITY;
      } else {
        if (MASK && edge && ((FA_DEFECT != DEF_NO_TAIL_MASK && col >= N) ||
                     (CAUSAL && col > row + (FA_DEFECT == DEF_CAUSAL_OFF_BY_ONE)))) v = -INFINITY;
      }
      s[j][e] = v;
      mx[e >> 1] = fmaxf(mx[e >> 1], v);
    }
  }
}

// V's B fragments for two n-tiles (i, i+1) of one 16-key slab. ldmatrix.trans gathers them in one
// LDSM.T; the lds path reads the same 8 half-words per lane with 16-bit loads and packs them: the
// same bits reach the same mma, so the output is bitwise the same; what changes is 8 LDS.U16 +
// 4 PRMT per LDSM. Hypothesis (seed v1, the 5090 ladder's first tensor-core step): ldmatrix.trans
// is what makes the V path cheap. H200, against ldmatrix.trans: 0.827x at N=8192 fp16, 0.657x at
// causal N=32768 bf16 (results/2026-11-30_h200_margins).
template <class K, typename T, int D>
__device__ __forceinline__ void v_frag(uint32_t* b, const T* Vb, int kk, int i, int lane) {
  using TL = Tile<D, K::LAYOUT>;
  if constexpr (K::V_LOAD == V_LDMATRIX_TRANS) {
    ldmatrix_x4_trans(b, Vb + TL::rd(kk * 16 + (lane & 15), i * 8 + (lane >> 4) * 8));
  } else {
    const int g = lane >> 2, t = lane & 3;
    const uint16_t* v = reinterpret_cast<const uint16_t*>(Vb);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = kk * 16 + 8 * (j & 1) + 2 * t, col = (i + (j >> 1)) * 8 + g;
      b[j] = (uint32_t)v[TL::rd(row, col)] | ((uint32_t)v[TL::rd(row + 1, col)] << 16);
    }
  }
}

// Where one work item's result goes: the output and LSE, or (split-KV) this split's fp32 partial
// output, normalised by its own sum, and its LSE, for the combine kernel to merge.
template <typename T>
struct Dest {
  T* o;
  float* lse;
  float* part_o;  // split-KV only: [N, D] fp32 of this (split, batch x head)
  float* part_lse;  // [N]
};

// TMA staging: the tensor maps of K and V (addresses of the kernel's __grid_constant__ parameters),
// this item's K/V head as the maps' third coordinate, and the stages' barrier phases, one bit per
// stage, carried across the items of a persistent CTA (the barriers are initialised once per CTA).
struct TmaSrc {
  const void* k;
  const void* v;
  int z;
  uint32_t* phase;
  uint32_t* fills;  // FA_KV_RELEASE=2: the producer's fills of each stage so far (its thread only)
};

// The running max update. Lazy (FA_RESCALE_LAZY=1, the FlashAttention-4 idea): a row keeps its max
// until a block raises it by more than 8 in log2 units, so P = 2^(s - m) may reach 2^8 (fp16 and
// bf16 hold it; l and O accumulate in fp32) and alpha stays exactly 1, which the rescale vote then
// skips. Exact after the final division by l, and the LSE m + log2(l) is the same sum. Hypothesis:
// with exact skipping a warp of 16-32 rows still rescales in most early blocks (some row's max
// grows); lazily, after the first block almost never. H200 from the agent's N=8192 final kernel
// (t128x32w4, 2 stages, persistent): 1.0306 KEPT at N=8192 fp16, 0.9819 at causal N=32768 bf16
// (results/2026-11-30_h200_fa2_levers).
template <class K>
__device__ __forceinline__ float new_max(float m, float mx, float sc) {
  const float mnew = fmaxf(m, mx);
  if constexpr (K::RESCALE_LAZY) {
    const float grow = K::SOFTMAX == SOFTMAX_FUSED ? (mnew - m) * sc : mnew - m;  // log2 units; NaN if both -inf
    return grow <= 8.f ? m : mnew;
  }
  (void)sc;
  return mnew;
}
// The max in the exponent's units: the separate softmax keeps it there already, the fused one in raw units.
template <class K>
__device__ __forceinline__ float m_units(float m, float sc) {
  if constexpr (K::SOFTMAX == SOFTMAX_FUSED) return m * sc;
  (void)sc;
  return m;
}

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

// wgmma reads shared memory through the async proxy: what cp.async landed is fenced for it by each
// thread before the barrier that publishes the tile. Nothing for the other paths.
template <class K>
__device__ __forceinline__ void async_visible() {
#if FA_COMPUTE == 2
  if constexpr (K::COMPUTE == WGMMA) proxy_fence();
#endif
}

template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void body_mma(const T* Qg, const T* Kg, const T* Vg, Dest<T> dst, int N, float scale,
                                         T* Qs, T* Ks, T* Vs, int q0, int split, TmaSrc tma = {}) {
  using TL = Tile<D, K::LAYOUT>;
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
  const float sc = FUSED ? (FA_DEFECT == DEF_WRONG_SCALE ? scale * 1.0625f : scale) : 1.f;
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
  // Q in registers: 4 x D/16 registers per m-tile held across the whole key loop. Re-read from
  // shared memory instead (FA_Q_IN=1): D/16 more ldmatrix per m-tile per key block, 32 registers
  // back per m-tile at D=128. H200 from the padded kernel: 174 -> 166 registers, 2 -> 3 CTAs/SM,
  // 1.190x at N=8192 fp16 and 1.158x at causal N=32768 bf16 (results/2026-11-30_h200_margins).
  uint32_t qf[K::Q_IN ? 1 : MT][K::Q_IN ? 1 : D / 16][4];
  if constexpr (!K::Q_IN) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        ldmatrix_x4(qf[mt][kk], Qs + TL::rd(r0 + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
  }
  // this CTA staged Q to shared memory above and no other CTA reads these rows: the output stays
  // right, only the caller's input changes
  if (FA_DEFECT == DEF_WRITES_INPUT && threadIdx.x == 0 && q0 == 0)
    const_cast<T*>(Qg)[0] = Pack<T>::cast(0.5f);

  float o[MT][DT][4];
  float m[MT][2], l[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int i = 0; i < DT; ++i) o[mt][i][0] = o[mt][i][1] = o[mt][i][2] = o[mt][i][3] = 0.f;
    m[mt][0] = m[mt][1] = -INFINITY;
    l[mt][0] = l[mt][1] = 0.f;
  }
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
  // TMA staging (issue 10 step 2): thread 0 arms the stage's K and V barriers with a tile's bytes and
  // issues its D/64 boxes each; everyone else issues nothing (no LDGSTS, no address arithmetic), and
  // each thread waits on the barrier itself, so no block barrier publishes a landed tile. The ring's
  // order and buffers are the cp.async ring's; the barrier that frees a buffer is the same.
  // Hypothesis: the wgmma kernel is issue-bound (H200 seed t64x64, two stages: issue active 59%,
  // tensor pipe 31%, results/2026-11-30_h200_session5): the copies' issue slots go to the softmax.
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
  auto tma_tile = [&](T* dst, const void* map, uint64_t* bar, int kb) {
    mbar_expect_tx(bar, K::BC * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h) tma_load_3d(dst + h * K::BC * 64, map, bar, h * 64, kb * K::BC, tma.z);
  };
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
      stage<K, D, K::BC>(Vs + buf(kb), Vg, kb * K::BC, N, FA_DEFECT != DEF_MISSING_COMMIT);
    } else {
      cp_async_commit();
      cp_async_commit();
    }
  };
#if FA_STAGING == 2
  if constexpr (K::PRODUCER) {
    // Warp specialisation (issue 10 step 4): one thread of the producer warpgroup issues every K/V copy
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
    // bit names the phase. Not yet run on a GPU.
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
  // Hopper arm (issue 10), step 1: each warpgroup's 64 query rows x BC keys as D/16 wgmma
  // m64nBCk16, Q and K both read by descriptor from their swizzled tiles, committed as one group.
  // s_gemm waits for it before the softmax (synchronous); with FA_PIPELINE the next block's group is
  // issued here and waited for with this block's PV. Hypothesis: the same work in 1/4 of mma.sync's
  // issue slots, with no ldmatrix at all.
  //
  // Ping-pong (FA_PINGPONG=1, FlashAttention-3's overlap between warpgroups; two consumer warpgroups beside the
  // producer warpgroup): the warpgroups issue their GEMMs in turns. A turn is the issue of one wgmma group, a
  // block's QK^T or its PV: the warpgroup waits on its own named barrier (bar.sync of 256 threads: its own 128
  // and the other's 128 arrivals), issues, commits, and arrives on the other's (bar.arrive, no wait).
  // Hypothesis: running the same code on the same K/V stage, the two warpgroups drift into step, do their
  // softmax at the same time while the tensor cores idle, then queue on them together; in turns, warpgroup 1's
  // QK^T runs under warpgroup 0's softmax and warpgroup 0's PV under warpgroup 1's. Costs a wait before each
  // issue (ptxas also sinks the last few P packs and l sums past it). The same wgmma in the same order within
  // each warpgroup: bitwise equal. Built, not yet run on a GPU.
  // The bookkeeping: warpgroup 1 arrives once on warpgroup 0's barrier at the start of each item with a key
  // block, so warpgroup 0 goes first. Both take the same turns in the same order (the pipeline's first QK^T,
  // then each block's QK^T and PV; every condition on a turn is the item's, never the warp's), so turns
  // alternate 0, 1, 0, 1, ... With T turns each in an item, barrier 2 (warpgroup 0's) gets T syncs and
  // 1 + (T - 1) arrivals (warpgroup 1 does not arrive after its last turn, the last block's PV) and barrier 3
  // T syncs and T arrivals: nothing is pending when an item ends, whatever its length (causal tiles, an empty
  // split takes no turn), and the persistent grid's next item starts afresh. On each barrier the arrivals run
  // at most one turn ahead of the syncs, so no generation completes on one warpgroup alone. Data waits (K or V
  // landed) come before a turn's sync and a buffer's release (its empty barrier) after its turn, so a refill
  // never waits on a turn that waits on it. scripts/model_pingpong.py runs this protocol under random schedules.
  // Warpgroup w waits on named barrier 2 + w (0 is __syncthreads', 1 the consumers' Q barrier); the branches
  // on the warpgroup are warp-uniform.
  [[maybe_unused]] const int my_wg = warp / 4;
  auto turn_begin = [&] {
    if constexpr (K::PINGPONG) {
      if (my_wg == 0) named_sync<2, 256>();
      else named_sync<3, 256>();
    }
  };
  auto turn_end = [&](bool more) {  // more: this warpgroup takes another turn in this item
    if constexpr (K::PINGPONG) {
      if (my_wg == 0) named_arrive<3, 256>();
      else if (more) named_arrive<2, 256>();
    }
    (void)more;
  };
  if constexpr (K::PINGPONG) {
    if (my_wg == 1 && kb_lo < kb_hi) named_arrive<2, 256>();  // warpgroup 0's first turn
  }
  auto s_issue = [&](const T* Kb, float (&s)[MT][NT][4]) {
#pragma unroll
    for (int j = 0; j < NT; ++j) s[0][j][0] = s[0][j][1] = s[0][j][2] = s[0][j][3] = 0.f;
    const int wg = warp / 4;
    turn_begin();
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const uint64_t da = wg_desc(Qs + sw128_el(wg * 64, kk * 16, K::BR), 16, 1024);
      const uint64_t db = wg_desc(Kb + sw128_el(0, kk * 16, K::BC), 16, 1024);
      if constexpr (K::BC == 32) wgmma_ss_n32<0, T>(&s[0][0][0], da, db, 1);
      else if constexpr (K::BC == 64) wgmma_ss_n64<0, T>(&s[0][0][0], da, db, 1);
      else wgmma_ss_n128<0, T>(&s[0][0][0], da, db, 1);
    }
    wg_commit();
    turn_end(true);  // a PV turn follows every QK^T in the item
  };
#endif
  auto s_gemm = [&](const T* Kb, float (&s)[MT][NT][4]) {
#if FA_COMPUTE == 2
    if constexpr (K::COMPUTE == WGMMA) {
      s_issue(Kb, s);
      wg_wait<0>();
      return;
    }
#endif
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < NT; ++j) s[mt][j][0] = s[mt][j][1] = s[mt][j][2] = s[mt][j][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t qa[K::Q_IN ? MT : 1][4];
      if constexpr (K::Q_IN) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          ldmatrix_x4(qa[mt], Qs + TL::rd(r0 + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
      }
#pragma unroll
      for (int j = 0; j < NT; j += 2) {
        uint32_t b[4];
        ldmatrix_x4(b, Kb + TL::rd(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const uint32_t* a = K::Q_IN ? qa[K::Q_IN ? mt : 0] : qf[K::Q_IN ? 0 : mt][K::Q_IN ? 0 : kk];
          mma16816<T>(s[mt][j], a, b);
          mma16816<T>(s[mt][j + 1], a, b + 2);
        }
      }
    }
  };
  // Software pipelining across key blocks (FA_PIPELINE=1, needs the K/V ring): block j+1's QK^T is
  // issued before block j's softmax, so the tensor pipe works on S(j+1) while the FMA and MUFU pipes
  // work on P(j) (the intra-warp form of FlashAttention-3's overlap; the issue-bound diagnosis at 2
  // warps per scheduler is a chain of waits this interleaving can fill). Costs a second set of score
  // accumulators (MT x BC/2 registers), and K(j+1) must have landed one block earlier: with two
  // stages its load is exposed, with three it has a block to arrive. Same arithmetic, bitwise equal.
  // H200 on t128x32w4 (255 registers, 116 B spilled): 0.848 at N=8192 fp16, 0.866 at causal
  // N=32768 bf16; not measured on the BR 64 tiles where it does not spill. On the wgmma arm (session
  // 5, built, not yet run) the next block's QK^T is an asynchronous wgmma group issued before the
  // softmax and waited for with this block's PV: the tensor cores run under the softmax inside one
  // warpgroup; ptxas serialises nothing (results/2026-11-30_cpu_build_checks/wgmma_pipeline_build.txt).
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
      stage<K, D, K::BC>(Vs, Vg, k0, N, FA_DEFECT != DEF_MISSING_COMMIT);
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
    if (FA_DEFECT != DEF_MISSING_SYNC && !OVERLAP && !TMA) __syncthreads();

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
      // wgmma (issue 10 step 3, FlashAttention-3's overlap inside a warpgroup): the next block's QK^T
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
    bool rescale = true;
    if constexpr (K::RESCALE_SKIP) rescale = __any_sync(0xffffffff, changed);
    (void)changed;
    if (rescale) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int i = 0; i < DT; ++i) {
          if (FA_DEFECT == DEF_DROPPED_RESCALE) break;
          o[mt][i][0] *= alpha[mt][0]; o[mt][i][1] *= alpha[mt][0];
          o[mt][i][2] *= alpha[mt][1]; o[mt][i][3] *= alpha[mt][1];
        }
    }
    // P of n-tile j of m-tile mt: its four exponentials, added to the row sums, packed two to a register
    auto p_tile = [&](int mt, int j, uint32_t* out) {
        float p0, p1, p2, p3;
        if constexpr (FUSED) {
          const float n0 = -meff[mt][0] * sc, n1 = -meff[mt][1] * sc;  // hoisted out of j by the compiler
          p0 = pexp<K, 0>(fmaf(s[mt][j][0], sc, n0)); p1 = pexp<K, 1>(fmaf(s[mt][j][1], sc, n0));
          p2 = pexp<K, 2>(fmaf(s[mt][j][2], sc, n1)); p3 = pexp<K, 3>(fmaf(s[mt][j][3], sc, n1));
        } else {
          p0 = pexp<K, 0>(s[mt][j][0] - meff[mt][0]); p1 = pexp<K, 1>(s[mt][j][1] - meff[mt][0]);
          p2 = pexp<K, 2>(s[mt][j][2] - meff[mt][1]); p3 = pexp<K, 3>(s[mt][j][3] - meff[mt][1]);
        }
        l[mt][0] += p0 + p1;
        l[mt][1] += p2 + p3;
        out[0] = Pack<T>::two(p0, p1);
        out[1] = Pack<T>::two(p2, p3);
    };
    // P slab by slab (FA_PV_SLAB=1, issue 9 item 2). Hypothesis: in a two-m-tile warp (BR 128 on 4 warps)
    // at D=128, O (128 fp32) and S (MT x BC/2) are live together, and packing the whole block's P before
    // the first PV MMA keeps P's MT x BC/4 registers live beside them: ptxas spills 16-120 B at 128 x 64
    // (results/2026-11-30_cpu_build_checks/bc64_spill_scan.txt). Made one 16-key slab at a time and
    // multiplied in at once, each slab's S dies as its P is packed and P's live range is one slab (MT x 4
    // registers), so FA2's 128 x 64 tile on 4 warps fits in 255 registers without spilling (sm_80/sm_90).
    // The cost: this block's V is waited for before its exponentials, not under them. Each row's sum and
    // each accumulator add the same terms in the same order: bitwise equal.
    constexpr bool SLAB = K::PV_SLAB;
    if constexpr (SLAB && NS > 1) {
      cp_async_wait<2 * NS - 2>();  // this block's V, before any P
      async_visible<K>();
      if (FA_DEFECT != DEF_MISSING_SYNC) __syncthreads();
    }
    if constexpr (SLAB) {  // the PV MMAs of the block path below, one slab's P at a time (a copy of that loop, so
                           // that pv_slab=off keeps the PTX it had: pv_slab_off_identical.txt)
#pragma unroll
      for (int kk = 0; kk < K::BC / 16; ++kk) {
        uint32_t a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          p_tile(mt, 2 * kk, a[mt]);
          p_tile(mt, 2 * kk + 1, a[mt] + 2);
        }
#pragma unroll
        for (int i = 0; i < DT; i += 2) {
          uint32_t b[4];
          v_frag<K, T, D>(b, Vb, kk, i, lane);
#pragma unroll
          for (int mt = 0; mt < MT; ++mt) {
            mma16816<T>(o[mt][i], a[mt], b);
            mma16816<T>(o[mt][i + 1], a[mt], b + 2);
          }
        }
      }
    }
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
      if (FA_DEFECT != DEF_MISSING_SYNC) __syncthreads();
    }
    }  // !SLAB
    if constexpr (OVERLAP) {
      cp_async_wait<0>();  // V(kb)
      async_visible<K>();
      __syncthreads();     // V visible; every warp is past QK^T(kb), so K's tile is free
      if (kb + 1 < kb_hi) stage<K, D, K::BC>(Ks, Kg, (kb + 1) * K::BC, N);
    }
#if FA_COMPUTE == 2
    if constexpr (K::COMPUTE == WGMMA) {
      // O += P V: P from registers (the A-fragment the softmax just packed), V by descriptor from
      // its swizzled tile read transposed (MN-major), one 64-column tile of O per wgmma m64n64k16.
      turn_begin();  // (FA_PINGPONG) after this block's V has landed
      wg_fence();
#pragma unroll
      for (int kk = 0; kk < K::BC / 16; ++kk) {
        const uint32_t a[4] = {pf[0][2 * kk][0], pf[0][2 * kk][1], pf[0][2 * kk + 1][0], pf[0][2 * kk + 1][1]};
#pragma unroll
        for (int h = 0; h < D / 64; ++h)
          wgmma_rs_n64<1, T>(&o[0][h * 8][0], a, wg_desc(Vb + h * K::BC * 64 + kk * 16 * 64, K::BC * 128, 1024), 1);
      }
      wg_commit();
      turn_end(kb + 1 < kb_hi);  // the item's last PV is warpgroup 1's last turn: no arrival after it
      wg_wait<0>();
    }
#endif
    // O += P V, each V fragment feeding MT m-tiles
    if constexpr (K::COMPUTE != WGMMA && !SLAB) {
#pragma unroll
    for (int kk = 0; kk < K::BC / 16; ++kk) {
#pragma unroll
      for (int i = 0; i < DT; i += 2) {
        uint32_t b[4];
        v_frag<K, T, D>(b, Vb, kk, i, lane);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const uint32_t a[4] = {pf[mt][2 * kk][0], pf[mt][2 * kk][1], pf[mt][2 * kk + 1][0], pf[mt][2 * kk + 1][1]};
          mma16816<T>(o[mt][i], a, b);
          mma16816<T>(o[mt][i + 1], a, b + 2);
        }
      }
    }
    }
    if constexpr (NS > 1 && K::KV_RELEASE) {
#if FA_STAGING == 2
      // Issue 10 step 4's first half: no block barrier. The warp is done with this buffer (its wgmma
      // groups waited for), so it adds itself to the stage's count and goes on to the next block; the
      // warp that completes the count issues the refill, so no warp waits for another, and a warp
      // runs at most NS - 1 blocks ahead of the slowest (the next block's data waits for that refill).
      // Hypothesis: the TMA kernel with two consumer warpgroups is barrier-bound (H200 causal N8192,
      // t128x64w8: barrier 26-30% of stall weight, results/2026-11-30_h200_session6/tma_c8192.txt) and
      // one warpgroup no longer waits for the other at every block. Same arithmetic in the same order:
      // bitwise equal. The count is an acq_rel atomic: each warp's release publishes that its reads are
      // done, and the last warp's acquire sees every one before its TMA overwrites the buffer (CUTLASS
      // orders a consumer's release and a producer's copy the same way through an mbarrier; thread 0
      // waiting on one here cost 11 registers at t128x64w8, 127 -> 138, a CTA/SM at 256 threads).
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

  constexpr float LN2 = 0.69314718055994531f;
  if constexpr (MT == 1 && K::SPLITS == 1) {  // the measured statement order (see the softmax above)
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
      if (FA_DEFECT == DEF_NO_WRITE || (FA_DEFECT == DEF_PARTIAL_WRITE && i == DT - 1)) continue;
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
        if (FA_DEFECT == DEF_NO_WRITE || (FA_DEFECT == DEF_PARTIAL_WRITE && i == DT - 1)) continue;
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

// A work item is (query tile, batch x head, key split). One CTA per item: launch order makes
// blockIdx.x the query tile, so each head's cheapest causal tile is dispatched first and its
// heaviest last. Heaviest first (seed v5: 1.349x at causal N=2048 on the 5090): a 1-D grid whose
// item i takes the heaviest remaining tile (tile T-1-i/(BH*S)): the same work, reordered, bitwise
// the same output. H200, causal N=32768 bf16 (16,384 CTAs, no tail worth shortening): 0.870x;
// consecutive CTAs no longer share a head's K/V: L2 hit 99.4% -> 86.7%, DRAM 0.6% -> 8.7% of peak
// (ncu, results/2026-11-30_h200_profile_n32768_causal).
struct Item {
  int qt, bh, split;
};
template <class K>
__device__ __forceinline__ Item decode(int i, int tiles, int BH) {
  if constexpr (K::CTA_ORDER == ORDER_HEAVIEST_FIRST) {
    const int rest = i % (BH * K::SPLITS);
    return {tiles - 1 - i / (BH * K::SPLITS), rest % BH, rest / BH};
  } else {
    return {i % tiles, (i / tiles) % BH, i / (tiles * BH)};
  }
}

// The persistent grid's work list: the next item to hand out and the CTAs that have finished.
// The last CTA to finish puts both back to zero, so every launch starts from an empty list without
// a memset on the stream (two launches of one library on concurrent streams would share it: the
// tool launches on one stream).
__device__ unsigned int g_work[2];

}  // namespace fa
#if FA_MAINLOOP == 1
#include "mainloop_sm90_ws.cuh"
#endif
namespace fa {

template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void run_item(Item it, const T* Q, const T* Kp, const T* V, T* O, float* L, float* Opart,
                                         float* Lpart, int N, int H, int Hkv, int BH, float scale, T* Qs, T* Ks,
                                         T* Vs, const void* tmk, const void* tmv, uint32_t* phase,
                                         uint32_t* fills, const void* tmq = nullptr) {
  using TL = Tile<D, K::LAYOUT>;
  // grouped-query attention: query head h reads K/V head h / (H / Hkv) of the same batch
  const int b = it.bh / H, kvh = (it.bh % H) / (H / Hkv);
  const size_t head = (size_t)it.bh * N, kv_head = ((size_t)b * Hkv + kvh) * N;
  const size_t part = ((size_t)it.split * BH + it.bh) * N;
  const int q0 = it.qt * K::BR;
  if constexpr (K::COMPUTE != SCALAR) {
    Dest<T> dst{O + head * D, L + head, K::SPLITS > 1 ? Opart + part * D : nullptr,
                K::SPLITS > 1 ? Lpart + part : nullptr};
#if FA_MAINLOOP == 1
    if constexpr (K::MAINLOOP) {
      ws_item<K, T, D, CAUSAL, ROLE>(Q + head * D, dst, N, scale, Qs, Ks, Vs, q0, TmaSrc{tmk, tmv, b * Hkv + kvh, phase, fills},
                                     tmq, it.bh);
    } else
#endif
    body_mma<K, T, D, CAUSAL, ROLE>(Q + head * D, Kp + kv_head * D, V + kv_head * D, dst, N, scale, Qs, Ks, Vs, q0,
                              it.split, TmaSrc{tmk, tmv, b * Hkv + kvh, phase, fills});
  } else {
    body_scalar<K, T, D, CAUSAL>(Q + head * D, Kp + kv_head * D, V + kv_head * D, O + head * D, L + head, N, scale,
                                 Qs, Ks, Vs, reinterpret_cast<float*>(Vs + K::BC * K::KV_STAGES * TL::STRIDE), q0);
  }
}

// TMA staging passes the K and V tensor maps by value as __grid_constant__ parameters (the form TMA
// reads them in); no other build changes its signature.
#if FA_STAGING == 2 && FA_Q_LOAD == 1
#define FA_TMA_PARAMS , const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV, \
                      const __grid_constant__ CUtensorMap tmQ
#elif FA_STAGING == 2
#define FA_TMA_PARAMS , const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV
#else
#define FA_TMA_PARAMS
#endif

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
#if FA_Q_LOAD == 1
  [[maybe_unused]] const void* tmq = &tmQ;
#else
  [[maybe_unused]] const void* tmq = nullptr;
#endif
#if FA_MAINLOOP == 1
  if (K::MAINLOOP && threadIdx.x == 0) ws_init_barriers<K>(Vs + K::BC * K::KV_STAGES * TL::STRIDE);
  if (!K::MAINLOOP && threadIdx.x == 0) {
#else
  if (threadIdx.x == 0) {  // once per CTA; every thread's first wait comes after a block barrier
#endif
    uint64_t* bars = reinterpret_cast<uint64_t*>(Vs + K::BC * K::KV_STAGES * TL::STRIDE);
    for (int i = 0; i < 2 * K::KV_STAGES; ++i) mbar_init(bars + i, 1);
    // FA_KV_RELEASE=1's counts of warps done with each stage's buffer
    for (int i = 0; i < (K::KV_RELEASE == 1 ? K::KV_STAGES : 0); ++i) reinterpret_cast<unsigned int*>(bars + 2 * K::KV_STAGES)[i] = 0;
    // FA_KV_RELEASE=2's empty barriers: one arrival per consumer warp completes a phase
    for (int i = 0; i < (K::PRODUCER ? K::KV_STAGES : 0); ++i) mbar_init(bars + 2 * K::KV_STAGES + i, K::WARPS);
    mbar_init_fence();
  }
#else
  const void* tmk = nullptr;
  const void* tmv = nullptr;
  [[maybe_unused]] const void* tmq = nullptr;
#endif
  // never returns (the cycle counter turns negative after about 146 years at 2 GHz): only the worker's
  // deadline ends it. clock64() is a volatile read, so the loop cannot be optimised away.
  if (FA_DEFECT == DEF_HANG)
    while (clock64() >= 0) {
    }
  // a store to address 64, which no allocation maps: a sticky illegal-address fault in the context
  if (FA_DEFECT == DEF_ILLEGAL_ADDRESS && threadIdx.x == 0) *reinterpret_cast<volatile int*>(uintptr_t{64}) = 1;
  const int tiles = (N + K::BR - 1) / K::BR;
  auto items = [&](auto role) {
  constexpr int ROLE = decltype(role)::value;
#if FA_MAINLOOP == 1
  if constexpr (K::MAINLOOP && K::PERSISTENT) {
    // the warp-specialised mainloop's static persistent schedule: items c, c + grid, ... in the CTA order;
    // no counter and no block barrier between items (each role carries its barrier phases on)
    const int total = tiles * BH;
    for (int i = blockIdx.x; i < total; i += gridDim.x)
      run_item<K, T, D, CAUSAL, ROLE>(decode<K>(i, tiles, BH), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale,
                                      Qs, Ks, Vs, tmk, tmv, &phase, fills, tmq);
  } else
#endif
  if constexpr (K::PERSISTENT) {
    // Persistent grid: as many CTAs as fit on the device at once, each pulling the next item of
    // the list (in the CTA order above) until it is empty. Saves the launch and tail of one CTA per
    // item and, with heaviest first, is longest-processing-time scheduling proper; costs an atomic
    // and two barriers per item. Same items, same arithmetic: bitwise the same output. H200 from
    // the padded kernel: 0.918x at N=8192 fp16, 0.876x at causal N=32768 bf16; on top of K/V
    // double buffering at N=8192 it was KEPT at 1.024x (results/2026-11-30_h200_search_n8192).
    unsigned int* next = reinterpret_cast<unsigned int*>(smem + smem_bytes<K, T, D>() - 16);
    const unsigned int total = (unsigned int)tiles * BH * K::SPLITS;
    for (;;) {
      __syncthreads();  // the previous item is done with shared memory and with *next
      if (threadIdx.x == 0) *next = atomicAdd(&g_work[0], 1u);
      __syncthreads();
      const unsigned int i = *next;
      if (i >= total) break;
      run_item<K, T, D, CAUSAL, ROLE>(decode<K>((int)i, tiles, BH), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale,
                                Qs, Ks, Vs, tmk, tmv, &phase, fills);
    }
    if (threadIdx.x == 0 && atomicAdd(&g_work[1], 1u) == gridDim.x - 1) {
      g_work[0] = 0;  // every CTA has taken its last item: reset the list for the next launch
      g_work[1] = 0;
    }
  } else {
    const Item it = K::CTA_ORDER == ORDER_HEAVIEST_FIRST ? decode<K>(blockIdx.x, tiles, BH)
                                                          : Item{(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
    run_item<K, T, D, CAUSAL, ROLE>(it, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv,
                                    &phase, fills, tmq);
  }
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
#if FA_MAINLOOP == 1
      setmaxnreg_dec<K::MAINLOOP ? ws_producer_regs<K>() : PRODUCER_REGS>();
#else
      setmaxnreg_dec<PRODUCER_REGS>();
#endif
      items(std::integral_constant<int, ROLE_PRODUCER>{});
    } else {
#if FA_MAINLOOP == 1
      static_assert(!K::MAINLOOP || 128 * ws_producer_regs<K>() + K::THREADS * ws_consumer_regs<K>(entry_regs<K>()) <=
                                       entry_regs<K>() * K::CTA_THREADS, "setmaxnreg asks for more than the CTA holds");
      setmaxnreg_inc<K::MAINLOOP ? ws_consumer_regs<K>(entry_regs<K>()) : consumer_regs<K>()>();
#else
      setmaxnreg_inc<consumer_regs<K>()>();
#endif
      items(std::integral_constant<int, ROLE_CONSUMER>{});
    }
    return;
  }
#endif
  items(std::integral_constant<int, ROLE_ALL>{});
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

// Split-KV's partials live in one device buffer per library, grown on demand and never shrunk
// (the first call at a larger shape pays a cudaMalloc, which synchronises the device).
static float* workspace(size_t bytes, cudaError_t* err) {
  static float* ws = nullptr;
  static size_t cap = 0;
  *err = cudaSuccess;
  if (bytes > cap) {
    if (ws) cudaFree(ws);
    ws = nullptr;
    cap = 0;
    *err = cudaMalloc(&ws, bytes);
    if (*err != cudaSuccess) return nullptr;
    cap = bytes;
  }
  return ws;
}

using Cfg = Knobs<FA_COMPUTE, FA_LAYOUT, FA_STAGING, FA_EXP, FA_BR, FA_BC, FA_WARPS, FA_KV_STAGES, FA_Q_IN,
                  FA_RESCALE_SKIP, FA_CAUSAL_MASK, FA_CTA_ORDER, FA_STORE, FA_V_LOAD, FA_PERSISTENT, FA_SPLIT_KV,
                  FA_SOFTMAX, FA_KV_OVERLAP, FA_EPILOGUE, FA_RESCALE_LAZY, FA_PIPELINE, FA_KV_RELEASE, FA_PINGPONG,
                  FA_COPIES, FA_EXP_POLY, FA_PV_SLAB, FA_MAINLOOP, FA_Q_LOAD>;

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
  // FA_Q_LOAD=1's map of Q: (D, N, B x H), box (64 columns, BR rows, 1 head).
  // The encoder is the driver's, found through the runtime (no -lcuda at build time).
  static cudaError_t tensor_map(CUtensorMap* m, const void* base, int N, int heads, int rows = Cfg::BC) {
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
    const cuuint32_t box[3] = {64, (cuuint32_t)rows, 1}, step[3] = {1, 1, 1};
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
    if (FA_DEFECT == fa::DEF_SIDE_STREAM) {  // work the caller's stream never waits for
      static cudaStream_t side = nullptr;
      if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
      st = side;
    }
#if FA_STAGING == 2
    CUtensorMap tk, tv;
    e = tensor_map(&tk, k, N, B * Hkv);
    if (e == cudaSuccess) e = tensor_map(&tv, v, N, B * Hkv);
#if FA_Q_LOAD == 1
    CUtensorMap tq;
    if (e == cudaSuccess) e = tensor_map(&tq, q, N, B * H, Cfg::BR);
#define FA_TMA_ARGS , tk, tv, tq
#else
#define FA_TMA_ARGS , tk, tv
#endif
    if (e != cudaSuccess) return (int)e;
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
// The knobs this library was built with (29 ints), so a loaded library can be checked against its key.
FA_API void fa_config(int* out) {
  out[0] = FA_COMPUTE; out[1] = FA_LAYOUT; out[2] = FA_STAGING; out[3] = FA_EXP;
  out[4] = FA_BR; out[5] = FA_BC; out[6] = FA_WARPS;
  out[7] = FA_KV_STAGES; out[8] = FA_Q_IN; out[9] = FA_RESCALE_SKIP; out[10] = FA_CAUSAL_MASK;
  out[11] = FA_CTA_ORDER; out[12] = FA_MIN_CTAS; out[13] = FA_STORE;
  out[14] = FA_V_LOAD; out[15] = FA_PERSISTENT; out[16] = FA_SPLIT_KV;
  out[17] = FA_SOFTMAX; out[18] = FA_KV_OVERLAP; out[19] = FA_EPILOGUE; out[20] = FA_RESCALE_LAZY;
  out[21] = FA_PIPELINE; out[22] = FA_KV_RELEASE; out[23] = FA_PINGPONG; out[24] = FA_COPIES; out[25] = FA_EXP_POLY;
  out[26] = FA_PV_SLAB; out[27] = FA_MAINLOOP; out[28] = FA_Q_LOAD;
}
FA_API const char* fa_error_string(int code) {
  if (code == FA_NOT_BUILT) return "this (dtype, head dim, causal) instantiation was not built into the library";
  if (code == FA_BAD_ARG) return "bad argument: dtype must be fp16/bf16, D 64 or 128, B, H, N > 0, Hkv dividing H";
  return cudaGetErrorString((cudaError_t)code);
}
}
