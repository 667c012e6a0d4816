// The warpgroup-MMA GEMMs of the tensor-core mainloop (compute=wgmma, sm_90a only; included only in a
// compute=wgmma build): S = Q K^T from two shared-memory descriptors, O += P V with P from registers,
// asynchronous groups, and ping-pong's turns between two consumer warpgroups.
//
// Each warpgroup's 64 query rows x BC keys as D/16 wgmma m64nBCk16, Q and K both read by descriptor
// from their swizzled tiles, committed as one group. qk() waits for it before the softmax
// (synchronous); with FA_PIPELINE the next block's group is issued by qk_ahead() and waited for with
// this block's PV. Hypothesis: the same work in 1/4 of mma.sync's issue slots, with no ldmatrix at
// all. H200, t128x64w8 with TMA, two stages, from the mma.sync kernel at N=8192: KEPT 2.0144
// (221.8 -> 447.0 TFLOP/s, results/2026-11-30_h200_kv_release_ws).
#pragma once
#include <stdint.h>

#include "config.cuh"
#include "target.cuh"
#include "tile.cuh"

namespace fa {

// Ping-pong (FA_PINGPONG=1, FlashAttention-3's overlap between warpgroups; two consumer warpgroups beside the
// producer warpgroup): the warpgroups issue their GEMMs in turns. A turn is the issue of one wgmma group, a
// block's QK^T or its PV: the warpgroup waits on its own named barrier (bar.sync of 256 threads: its own 128
// and the other's 128 arrivals), issues, commits, and arrives on the other's (bar.arrive, no wait).
// Hypothesis: running the same code on the same K/V stage, the two warpgroups drift into step, do their
// softmax at the same time while the tensor cores idle, then queue on them together; in turns, warpgroup 1's
// QK^T runs under warpgroup 0's softmax and warpgroup 0's PV under warpgroup 1's. Costs a wait before each
// issue (ptxas also sinks the last few P packs and l sums past it). The same wgmma in the same order within
// each warpgroup: bitwise equal. H200 on the producer kernel (t128x64w8, TMA, two stages, lazy rescale) at
// N=8192: KEPT 1.0336, replicate 1.0407 (results/2026-11-30_h200_kv_release_ws/call2), still about 0.76x of the
// kernel without warp specialisation.
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
template <class K>
struct PingPong {
  // before a turn's issue: wait for this warpgroup's turn (my_wg: 0 or 1)
  __device__ __forceinline__ static void begin(int my_wg) {
    if constexpr (K::PINGPONG) {
      if (my_wg == 0) named_sync<2, 256>();
      else named_sync<3, 256>();
    }
    (void)my_wg;
  }
  // after it: hand the turn over; more: this warpgroup takes another turn in this item
  __device__ __forceinline__ static void end(int my_wg, bool more) {
    if constexpr (K::PINGPONG) {
      if (my_wg == 0) named_arrive<3, 256>();
      else if (more) named_arrive<2, 256>();
    }
    (void)my_wg;
    (void)more;
  }
};

// The GEMMs, functions of their operands alone (as gemm_sm80.cuh's); turn_begin() and turn_end(more) are
// the mainloop's lambdas around PingPong.
template <class K, typename T, int D>
struct GemmSm90 {
  static constexpr int MT = K::MT, NT = K::BC / 8, DT = D / 8;

  // S = Q K^T issued as one asynchronous group, not waited for
  template <class Begin, class End>
  __device__ __forceinline__ static void qk_issue(const T* Kb, float (&s)[MT][NT][4], const T* Qs, int warp,
                                                  Begin& turn_begin, End& turn_end) {
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
  }

  // O += P V: P from registers (the A-fragment the softmax just packed), V by descriptor from
  // its swizzled tile read transposed (MN-major), one 64-column tile of O per wgmma m64n64k16.
  // more(): whether this warpgroup takes another turn in the item (FA_PINGPONG), asked after the commit. A
  // callable, not a bool: a bool is computed at the call, before the turn's bar.sync, and nvcc then places
  // the comparison's add there (other PTX for the same kernel); asked here, it stays after the issue.
  template <class Begin, class End, class More>
  __device__ __forceinline__ static void pv(const uint32_t (&pf)[MT][NT][2], const T* Vb, float (&o)[MT][DT][4],
                                            Begin& turn_begin, End& turn_end, More&& more) {
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
    turn_end(more());  // the item's last PV is warpgroup 1's last turn: no arrival after it
    wg_wait<0>();
  }
};

}  // namespace fa
