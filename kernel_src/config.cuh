// The build's configuration as one type: the knobs (macros the build defines, defaults below), the
// enums that name their values, and `Knobs<...>`, the compile-time record every component reads
// (K::BR, K::STAGING, ...), with the rules between knobs as static_asserts. kernel_src/knobs.py is the
// schema and the validator; a configuration it accepts satisfies every assert here.
#pragma once

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

namespace fa {

enum { SCALAR = 0, MMA = 1, WGMMA = 2 };
enum { ROW_MAJOR = 0, SWIZZLE = 1, PAD = 2, SW128 = 3 };
enum { STAGE_SCALAR = 0, STAGE_CP_ASYNC = 1, STAGE_TMA = 2 };
enum { EXP_EXPF = 0, EXP_EX2 = 1 };
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
          int COPIES_ = 0, int EXP_POLY_ = 0, int PV_SLAB_ = 0>
struct Knobs {
  static constexpr int COMPUTE = COMPUTE_, LAYOUT = LAYOUT_, STAGING = STAGING_, EXP = EXP_;
  static constexpr int BR = BR_, BC = BC_, WARPS = WARPS_, THREADS = WARPS_ * 32;
  static constexpr int KV_STAGES = KV_STAGES_, Q_IN = Q_IN_, RESCALE_SKIP = RESCALE_SKIP_;
  static constexpr int CAUSAL_MASK = CAUSAL_MASK_, CTA_ORDER = CTA_ORDER_, STORE = STORE_;
  static constexpr int V_LOAD = V_LOAD_, PERSISTENT = PERSISTENT_, SPLITS = SPLITS_;
  static constexpr int SOFTMAX = SOFTMAX_, KV_OVERLAP = KV_OVERLAP_, EPILOGUE = EPILOGUE_;
  static constexpr int RESCALE_LAZY = RESCALE_LAZY_, PIPELINE = PIPELINE_, KV_RELEASE = KV_RELEASE_;
  static constexpr int PINGPONG = PINGPONG_, COPIES = COPIES_, EXP_POLY = EXP_POLY_, PV_SLAB = PV_SLAB_;
  // FA_KV_RELEASE=2: a producer warpgroup after the WARPS consumer warps; THREADS stays the consumers'
  static constexpr bool PRODUCER = KV_RELEASE == 2;
  static constexpr int CTA_THREADS = THREADS + (PRODUCER ? 128 : 0);
  static constexpr int MT = BR / (16 * WARPS);  // 16-row m-tiles per warp
  static_assert(BR == 16 * WARPS * MT && (MT == 1 || MT == 2), "each warp owns 16 or 32 query rows");
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

}  // namespace fa
