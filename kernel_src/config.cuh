// The build's configuration as one type: `Knobs<...>`, the compile-time record every component reads
// (K::BR, K::STAGING, ...): one member per knob of kernel_src/knob_table.py (the macros' defaults, the
// values' enums and the parameter and member lists come from knobs_gen.cuh, generated from that table),
// what the members imply, and the rules between knobs as static_asserts. kernel_src/knobs.py is the
// validator; a configuration it accepts satisfies every assert here.
#pragma once

#include "knobs_gen.cuh"  // the knobs' macro defaults, their values' enums, Knobs<...>'s lists (generated)

namespace fa {

// Who runs an item's code: everyone (ROLE_ALL, every build but one), or with FA_KV_RELEASE=2 the consumer
// warps and the producer warpgroup on separate copies of it, so that ptxas can give each its own register
// count after setmaxnreg (a path the two share makes it ignore setmaxnreg, C7507)
enum { ROLE_ALL = 0, ROLE_CONSUMER = 1, ROLE_PRODUCER = 2 };

FA_KNOBS_TEMPLATE
struct Knobs {
  FA_KNOBS_MEMBERS
  static constexpr int THREADS = WARPS * 32;
  // FA_KV_RELEASE=2: a producer warpgroup after the WARPS consumer warps; THREADS stays the consumers'
  static constexpr bool PRODUCER = KV_RELEASE == 2;
  static constexpr int CTA_THREADS = THREADS + (PRODUCER ? 128 : 0);
  static constexpr int MT = BR / (16 * WARPS);  // 16-row m-tiles per warp
  static_assert(BR == 16 * WARPS * MT && (MT == 1 || MT == 2), "each warp owns 16 or 32 query rows");
  static_assert(MT == 1 || COMPUTE == MMA, "32 rows per warp is an mma.sync tiling");
  static_assert(COMPUTE != WGMMA || (LAYOUT == SW128 && Q_IN && STAGING != STAGE_SCALAR && WARPS % 4 == 0 && MT == 1),
                "wgmma: 128-byte swizzled tiles, Q read by descriptor, cp.async or TMA staging, whole warpgroups");
  static_assert((LAYOUT == SW128) == (COMPUTE == WGMMA), "the wgmma tile layout is for wgmma alone");
  static_assert(BC % 16 == 0, "key tile must be a multiple of 16");
  static_assert(!MAINLOOP || (COMPUTE == WGMMA && STAGING == STAGE_TMA && PRODUCER && SOFTMAX == SOFTMAX_FUSED &&
                              EXP == EXP_EX2 && SPLITS == 1 && (WARPS == 4 || WARPS == 8 || WARPS == 12) && KV_STAGES >= 2 &&
                              EPILOGUE == EPI_DIRECT && (BC == 64 || BC == 128 || BC == 176 || BC == 192)),
                "the warp-specialised mainloop: wgmma, TMA, a producer warpgroup, the fused ex2 softmax, 1-3 consumer warpgroups");
  static_assert(MAINLOOP || (WARPS != 12 && BC != 176 && BC != 192),
                "12 warps and 176- and 192-key tiles are the warp-specialised mainloop's");
  FA_KNOBS_RULES
};

}  // namespace fa
