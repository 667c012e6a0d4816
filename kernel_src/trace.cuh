// The item trace: an instrument, never a knob (like defects.cuh's switch). Built with FA_ITEM_TRACE=1
// (experiments/build.py: BuildSpec.trace; scripts/device_anatomy.py --items; read by profiler/item_trace.py), every
// consumer warpgroup of the warp-specialised mainloop writes a record when it begins a work item (with the item's query
// tile and head) and one when it is done with it, each with the global timer, its CTA, SM and warpgroup; thread 0
// writes one more when its CTA begins. fa_item_trace (fa_fwd.cu) copies the records out and clears them.
// Why: at B16 H16 N512 D64 our kernels do cuDNN's work per SM (ncu: average active cycles level) and idle 11-12% of the
// elapsed cycles against its 8% (results/2026-12-06_h100_launch_gaps); ncu gives the SMs' totals, not when in the
// kernel each SM idles (the start, between items, the end) nor what an item of each kind costs.
// A record costs the writing warp about 0.2 us (H100: two marks with nothing between them read 0.16-0.22 us apart,
// results/2026-12-06_h100_item_phases), so a phase shorter than that is not resolved.
// Nothing is kept in registers across an item (a begin time kept there spilled 8 B on the three-warpgroup N512 kernel).
// With FA_ITEM_TRACE=0 (every build the tool makes) nothing here is compiled into the kernel.
#pragma once

#include <stdint.h>

#ifndef FA_ITEM_TRACE
#define FA_ITEM_TRACE 0
#endif

namespace fa {

// one record: t from %globaltimer (ns, 0: an empty slot); who = CTA (bits 16-31), SM (bits 8-15), warpgroup (bits 2-3),
// event (bits 0-1: 0 an item begun, 1 an item done, 2 the CTA begun, 3 a mark inside the item); what = the begun item's
// query tile (bits 16-31) and head (bits 0-15), or the mark
struct TraceRecord {
  unsigned long long t;
  unsigned int who, what;
};
enum { TRACE_BEGIN = 0, TRACE_END = 1, TRACE_CTA = 2, TRACE_MARK = 3 };
// the marks inside an item (event TRACE_MARK, `what` = the mark): its Q has arrived, its first K block has arrived,
// its last PV is done (the epilogue follows)
enum { MARK_Q_READY = 1, MARK_K0_READY = 2, MARK_MAIN_DONE = 3 };

#if FA_ITEM_TRACE
constexpr int TRACE_CAP = 1 << 18;
// each consumer warpgroup's records in a slab of its own, TRACE_SLAB records for warpgroup w of CTA c from record
// (4 c + w) TRACE_SLAB, counted in shared memory: no atomic, so no round trip to L2 between two items (a first build
// took each record's slot from one global counter, and the trace cost 8.6% of the N512 kernel's time)
constexpr int TRACE_SLAB = 64;
__device__ TraceRecord g_trace[TRACE_CAP];

__device__ __forceinline__ unsigned int* trace_counts() {
  __shared__ unsigned int n[4];
  return n;
}
__device__ __forceinline__ void trace_put(unsigned int wg, unsigned int event, unsigned int what) {
  unsigned long long t;
  unsigned int sm;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  const unsigned int i = trace_counts()[wg]++;
  const unsigned int at = (blockIdx.x * 4u + wg) * TRACE_SLAB + i;
  if (i < TRACE_SLAB && at < TRACE_CAP)
    g_trace[at] = TraceRecord{t, (blockIdx.x << 16) | ((sm & 0xffu) << 8) | (wg << 2) | event, what};
}
#endif

// a consumer warpgroup's item begun / done (its first thread writes)
__device__ __forceinline__ void trace_item(unsigned int event, int qt, int bh) {
#if FA_ITEM_TRACE
  if (threadIdx.x % 128 == 0)
    trace_put(threadIdx.x / 128, event, ((unsigned int)qt << 16) | ((unsigned int)bh & 0xffffu));
#else
  (void)event, (void)qt, (void)bh;
#endif
}

// a mark inside a consumer warpgroup's item (its first thread writes)
__device__ __forceinline__ void trace_mark(unsigned int mark) {
#if FA_ITEM_TRACE
  if (threadIdx.x % 128 == 0) trace_put(threadIdx.x / 128, TRACE_MARK, mark);
#else
  (void)mark;
#endif
}
// the CTA begun, by its thread 0 (in the slab of warpgroup 3, which no consumer of a 3-warpgroup kernel uses before
// it: the counts start at 0 here, ordered before every item by the block barrier that follows the barriers' set-up)
__device__ __forceinline__ void trace_cta_start() {
#if FA_ITEM_TRACE
  if (threadIdx.x == 0) {
    unsigned int* n = trace_counts();
    n[0] = n[1] = n[2] = n[3] = 0;
    trace_put(3, TRACE_CTA, 0u);
  }
#endif
}

}  // namespace fa
