// fa5090-search: FlashAttention forward, one kernel, every lever a compile-time knob.
//
// O = softmax(Q K^T * scale) V per (batch, head), Q/K/V/O [B, H, N, D] (contiguous, or any strides for the
// operands a build reaches by TMA: fa_fwd_strided),
// fp16 or bf16 in, fp32 accumulate, O in the input dtype, LSE = log(sum exp) in fp32 [B, H, N].
// Any N (tails are masked), D in {64, 128}, causal (top-left aligned) or not.
// Grouped-query attention is a problem dimension, not a knob: K/V have Hkv heads, Hkv | H.
//
// This file is the entry and the ABI: the kernel's entry point, one Instance per (dtype, head dim,
// causal), its launch, and the extern "C" API the tool loads. The kernel itself is built from
// components, one job each (FlashAttention-3 composes FlashAttnFwdSm90<Mainloop, Epilogue, TileScheduler>
// the same way):
//   knobs_gen.cuh        generated from knob_table.py: the knobs' defaults, the enums of their values, the
//                        lists of Knobs<...>, the rules as static_asserts, fa_config's body and count
//   config.cuh           Knobs<...>, the compile-time record of the build's knobs, and what they imply
//   target.cuh           mma.cuh always; wgmma.cuh (warpgroup MMA, TMA, mbarriers) only on sm_90a builds
//   defects.cuh          the defect battery's hooks (FA_DEFECT), every place that reads it
//   tile.cuh             shared-memory tile layouts, the dtype's packing, the CTA's shared-memory size
//   copy.cuh             global -> shared staging (scalar, cp.async, unrolled), ldmatrix, the proxy fence,
//                        TMA's tile loads and barriers
//   softmax.cuh          the exponentials, scale and mask, the running max and its rescale rules
//   gemm_sm80.cuh        QK^T and PV by mma.sync (compute=mma)
//   gemm_sm90.cuh        QK^T and PV by warpgroup MMA, ping-pong's turns (compute=wgmma, sm_90a builds only)
//   mainloop_scalar.cuh  the mainloop of compute=scalar
//   mainloop_mma.cuh     the mainloop of compute=mma and compute=wgmma: the K/V ring's schedule and the
//                        softmax update between the components' steps, per key block
//   epilogue.cuh         the output stores, split-KV's partials and their combine kernel
//   scheduler.cuh        work items, their order, the persistent grid
// and here, run_item: which mainloop an item runs, with the item's addresses.
//
// A new mainloop (e.g. a warp-specialised wgmma one) is a header of its own, mainloop_<name>.cuh, with a
// function of mainloop_mma's signature built from these components (the staging and ring primitives, the
// softmax's functions, gemm_sm90.cuh's GEMMs and PingPong, epilogue.cuh's store_item); it is included
// below (under #if FA_COMPUTE == 2 if it issues wgmma), chosen in run_item by its knob (one row of
// kernel_src/knob_table.py, see its docstring), and, if its CTA differs (threads, roles, setmaxnreg, shared
// memory), described in config.cuh (CTA_THREADS), tile.cuh (smem_bytes, with kernel_src/knobs.py's copy)
// and the role split of fa_fwd_kernel. knobs.HEADERS, the build's dependencies and export pick the header up.
//
// The build defines the knobs, FA_<NAME> for each knob of kernel_src/knob_table.py (knobs_gen.cuh lists them with
// their values and defaults; kernel_src/knobs.py validates a combination before anything builds),
// and which instantiations to emit: FA_DTYPES (bit0 fp16, bit1 bf16), FA_DIMS (bit0 D=64,
// bit1 D=128), FA_CAUSALS (bit0 non-causal, bit1 causal). Only what a run needs is compiled.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "config.cuh"
#include "defects.cuh"
#include "epilogue.cuh"
#include "mainloop_mma.cuh"
#include "mainloop_scalar.cuh"
#include "scheduler.cuh"
#include "target.cuh"
#include "tile.cuh"
#include "trace.cuh"
#if FA_MAINLOOP == 1
#include "mainloop_sm90_ws.cuh"  // (FA_MAINLOOP=1 implies compute=wgmma, an sm_90a build)
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

// FA_MIN_CTAS: a minimum of CTAs/SM makes ptxas cap registers (3 on 4 warps: 168). H200 from the
// padded kernel (174/179 registers, 2 CTAs/SM): 3 -> 1.158x at N=8192 fp16, 1.124x at causal
// N=32768 bf16, results/2026-11-30_h200_margins.
// FA_KV_RELEASE=2's register reallocation (setmaxnreg; counts are multiples of 8 in 24..256). ptxas
// applies it only when the register count at entry is fixed (C7508 otherwise): every thread starts with
// its share of the file for the CTAs/SM asked (one, or FA_MIN_CTAS), at most 248; then the producer
// warpgroup keeps PRODUCER_REGS and the consumers take what is left, at most 256.
#if FA_KV_RELEASE == 2
[[maybe_unused]] constexpr int PRODUCER_REGS = 40;
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
// reads them in), and FA_Q_LOAD=1 Q's; no other build changes its signature.
// FA_O_STORE=1 or 2 adds O's map after them.
#if FA_STAGING == 2 && FA_Q_LOAD == 1
#define FA_TMA_PARAMS_KVQ , const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV, \
                      const __grid_constant__ CUtensorMap tmQ
#elif FA_STAGING == 2
#define FA_TMA_PARAMS_KVQ , const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV
#else
#define FA_TMA_PARAMS_KVQ
#endif
#if FA_STAGING == 2 && FA_O_STORE >= 1
#define FA_TMA_PARAMS FA_TMA_PARAMS_KVQ, const __grid_constant__ CUtensorMap tmO
#else
#define FA_TMA_PARAMS FA_TMA_PARAMS_KVQ
#endif
// FA_ORDER_SECTIONS=1 passes the heads of one section of the heaviest-first order (scheduler.cuh)
#if FA_ORDER_SECTIONS == 1
#define FA_ORDER_PARAMS , int sect
#else
#define FA_ORDER_PARAMS
#endif
// A build with a work list (scheduler.cuh) passes the index of its stream's list in g_work
#if FA_WORK_LIST
#define FA_WORK_PARAMS , int work_list
#else
#define FA_WORK_PARAMS
#endif
// FA_LAST_ROUND=1 passes the split items at the end of the list and log2 of their pieces (mainloop_sm90_ws.cuh)
#if FA_LAST_ROUND
#define FA_PIECE_PARAMS , int split_items, int split_shift
#else
#define FA_PIECE_PARAMS
#endif

#define FA_BAD_LAYOUT -4
// An operand's strides in elements: batch, head, row (its columns are contiguous). SDPA's q.transpose(1, 2) of a
// [B, N, H, D] tensor is (N H D, D, H D); the contiguous [B, H, N, D] layout is contiguous_layout's.
struct Layout {
  long long b, h, n;
};
inline Layout contiguous_layout(int heads, int N, int D) {
  return Layout{(long long)heads * N * D, (long long)N * D, (long long)D};
}
// FA_MAINLOOP=1 reaches Q (its cp.async rows) and O (its direct stores) by pointer with these strides, so that
// every operand takes any layout (the other operands, and FA_Q_LOAD / FA_O_STORE's, through TMA maps)
#if FA_MAINLOOP == 1
#define FA_LAYOUT_PARAMS , Layout lq, Layout lo
#else
#define FA_LAYOUT_PARAMS
#endif

#if FA_LAST_ROUND
// FA_LAST_ROUND=1 (mainloop_sm90_ws.cuh: ws_piece_range): of `items` whole items of nkv key blocks each (head dim D) on a
// grid of G CTAs, the R at the end of the list to split into 2^k pieces, k >= 1 (R = 0: none). A model of rounds: the
// CTAs take items at once, so whole items end after (items - R) / G rounds; the pieces run ceil(R 2^k / G) rounds of
// a piece's share of the blocks plus its fixed cost in blocks: 1.5 (the first QK^T alone, the last PV) and, per other
// piece its last one merges, 0.6 x D / 128 (the partials' fp32 bytes read back from L2). R fills the last round
// (items mod G) or that and one round more; a piece keeps two blocks or more, 2^k at most 32; a split only where it
// ends a quarter of a round earlier. Fitted on an H100 (results/2026-12-06_h100_last_round): 8 pieces of 4 or 8 blocks
// at D=128 cost 6-7 blocks beyond their share (0.964 at N4096, 0.991 at N8192), where the first model charged 1.5 and a
// gain of 1% of a round; halves of 32 blocks at N8192 D64 gained 1.011 (the model: 4.5%: items end out of step after
// ten rounds, so the last round is not all idle).
inline void last_round_split(long items, int G, int nkv, int D, int* R, int* k) {
  *R = 0;
  *k = 0;
  if (G <= 0 || items <= G || nkv <= 0) return;
  const double plain = (double)((items + G - 1) / G);
  double best = plain - 0.25;
  for (long r = items % G; r <= items && r <= items % G + G && r <= WS_PIECE_ITEMS; r += G) {
    for (int kk = 1; kk <= 5 && (nkv >> kk) >= 2; ++kk) {
      const long pieces = r << kk;
      const double fixed = 1.5 + 0.6 * ((1 << kk) - 1) * D / 128.0;
      const double t = (double)((items - r) / G) + (double)((pieces + G - 1) / G) * (1.0 / (1 << kk) + fixed / nkv);
      if (r > 0 && t < best) {
        best = t;
        *R = (int)r;
        *k = kk;
      }
    }
  }
}
// FA_LAST_ROUND=2 (mainloop_sm90_ws.cuh: ws_stream_piece): of `items` whole items of nkv key blocks (head dim D) on a
// grid of G CTAs, the R = items mod G that leave the last round short, streamed in shares of q = ceil(R nkv / G) blocks
// (R = 0: none). A share's time in blocks: q and, as the key split's pieces, 1.5 per piece (two) and 0.6 x D / 128 per
// partial merged (one), and 2 for the merge's wait; a stream only where it ends 15% of a round earlier than the last
// round of whole items.
inline void last_round_stream(long items, int G, int nkv, int D, int* R, int* q) {
  *R = 0;
  *q = 0;
  const long r = G > 0 ? items % G : 0;
  if (G <= 0 || items <= G || nkv <= 0 || r == 0 || r > WS_PIECE_ITEMS) return;
  const long share = (r * nkv + G - 1) / G;
  if (share + 3.0 + 0.6 * D / 128.0 + 2.0 <= 0.85 * nkv) {
    *R = (int)r;
    *q = (int)share;
  }
}
#endif

// Which mainloop runs a work item: the one place a compute path's mainloop is chosen (a new mainloop is
// a component header of its own and a branch here), and the item's addresses it is given: its head,
// grouped-query attention's K/V head, split-KV's partials. run_item_at takes the item's batch b and K/V head kvh
// already worked out (FA_SLOT_ITEM=1: by the producer, WsSlotItem); run_item works them out.
template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void run_item_at(Item it, int b, int kvh, const T* Q, const T* Kp, const T* V, T* O, float* L,
                                            float* Opart, float* Lpart, int N, int H, int Hkv, int BH, float scale,
                                            T* Qs, T* Ks,
                                            T* Vs, const void* tmk, const void* tmv, uint32_t* phase,
                                            uint32_t* fills, const void* tmq, const void* tmo, const Layout& lq,
                                            const Layout& lo) {
  using TL = Tile<D, K::LAYOUT>;
  const size_t head = (size_t)it.bh * N, kv_head = ((size_t)b * Hkv + kvh) * N;
  const size_t part = ((size_t)it.split * BH + it.bh) * N;
  const int q0 = it.qt * K::BR;
  if constexpr (K::COMPUTE != SCALAR) {
    Dest<T> dst{O + head * D, L + head, K::SPLITS > 1 ? Opart + part * D : nullptr,
                K::SPLITS > 1 ? Lpart + part : nullptr};
#if FA_MAINLOOP == 1
    if constexpr (K::MAINLOOP) {
      const int h = it.bh - b * H;
      // (FA_LAST_ROUND=1: it.split is the slot's piece word, Opart the launch's workspace)
      const Dest<T> ws_dst{O + b * lo.b + h * lo.h, L + head, K::LAST_ROUND ? Opart : nullptr, nullptr, (int)lo.n};
      if constexpr (ROLE == ROLE_CONSUMER) trace_item(TRACE_BEGIN, it.qt, it.bh);  // (FA_ITEM_TRACE=1 alone: trace.cuh)
      ws_item<K, T, D, CAUSAL, ROLE>(Q + b * lq.b + h * lq.h, (int)lq.n, ws_dst, N, scale, Qs, Ks, Vs, q0,
                                     TmaSrc{tmk, tmv, tma_z(b, kvh), phase, fills}, tmq, tma_z(b, h), tmo,
                                     K::LAST_ROUND ? it.split : 0);
      if constexpr (ROLE == ROLE_CONSUMER) trace_item(TRACE_END, 0, 0);
    } else
#endif
    mainloop_mma<K, T, D, CAUSAL, ROLE>(Q + head * D, Kp + kv_head * D, V + kv_head * D, dst, N, scale, Qs, Ks, Vs, q0,
                              it.split, TmaSrc{tmk, tmv, tma_z(b, kvh), phase, fills});
  } else {
    mainloop_scalar<K, T, D, CAUSAL>(Q + head * D, Kp + kv_head * D, V + kv_head * D, O + head * D, L + head, N, scale,
                                 Qs, Ks, Vs, reinterpret_cast<float*>(Vs + K::BC * K::KV_STAGES * TL::STRIDE), q0);
  }
}
template <class K, typename T, int D, bool CAUSAL, int ROLE = ROLE_ALL>
__device__ __forceinline__ void run_item(Item it, const T* Q, const T* Kp, const T* V, T* O, float* L, float* Opart,
                                         float* Lpart, int N, int H, int Hkv, int BH, float scale, T* Qs, T* Ks,
                                         T* Vs, const void* tmk, const void* tmv, uint32_t* phase,
                                         uint32_t* fills, const void* tmq, const void* tmo, const Layout& lq,
                                         const Layout& lo) {
  // grouped-query attention: query head h reads K/V head h / (H / Hkv) of the same batch
  const int b = it.bh / H, kvh = (it.bh % H) / (H / Hkv);
  run_item_at<K, T, D, CAUSAL, ROLE>(it, b, kvh, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv,
                                     phase, fills, tmq, tmo, lq, lo);
}

template <class K, typename T, int D, bool CAUSAL>
__global__ void FA_LAUNCH_BOUNDS(K)
fa_fwd_kernel(const T* __restrict__ Q, const T* __restrict__ Kp, const T* __restrict__ V, T* __restrict__ O,
              float* __restrict__ L, float* __restrict__ Opart, float* __restrict__ Lpart, int N, int H, int Hkv,
              int BH, float scale FA_TMA_PARAMS FA_ORDER_PARAMS FA_LAYOUT_PARAMS FA_WORK_PARAMS FA_PIECE_PARAMS) {
  extern __shared__ __align__(FA_COMPUTE == 2 ? 1024 : 128) unsigned char smem[];  // wgmma: 1024-byte swizzle atoms
  using TL = Tile<D, K::LAYOUT>;
  T* Qs = reinterpret_cast<T*>(smem);
  T* Ks = Qs + K::BR * (q_tiles<K>() + (K::O_STORE == 1)) * TL::STRIDE;  // two Q tiles (q_tiles); O's
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
#if FA_O_STORE >= 1
  [[maybe_unused]] const void* tmo = &tmO;
#else
  [[maybe_unused]] const void* tmo = nullptr;
#endif
#if FA_TMA_PREFETCH
  if (threadIdx.x == 0) {  // every tensor map of the launch, before its first copy (wgmma.cuh: tma_prefetch_map)
    tma_prefetch_map(tmk);
    tma_prefetch_map(tmv);
    if (tmq) tma_prefetch_map(tmq);
    if (tmo) tma_prefetch_map(tmo);
  }
#endif
#if FA_MAINLOOP == 1
  if (threadIdx.x == 0) ws_init_barriers<K>(ws_bars_base<K, T, D>(Vs), smem + smem_bytes<K, T, D>());
  ws_fill_ones<K, T, D>(Vs);
#else
  if (threadIdx.x == 0) tma_barriers_init<K, T, D>(Vs);
#endif
#else
  const void* tmk = nullptr;
  const void* tmv = nullptr;
  [[maybe_unused]] const void* tmq = nullptr;
  [[maybe_unused]] const void* tmo = nullptr;
#endif
#if FA_MAINLOOP != 1
  const Layout lq{}, lo{};  // (read by the warp-specialised mainloop alone)
#endif
  dependent_launch_begin<K>();  // (FA_DEPENDENT_LAUNCH=1: scheduler.cuh)
  trace_cta_start();  // (FA_ITEM_TRACE=1 alone: trace.cuh)
  defect::entry_faults();
  const int tiles = (N + K::BR - 1) / K::BR;
#if FA_ORDER_SECTIONS != 1
  constexpr int sect = 0;
#endif
#if FA_WORK_LIST
  [[maybe_unused]] unsigned int* const list = g_work + 2 * work_list;  // this stream's work list
#else
  [[maybe_unused]] unsigned int* const list = nullptr;
#endif
  auto items = [&](auto role) {
    constexpr int ROLE = decltype(role)::value;
#if FA_MAINLOOP == 1
    if constexpr (K::PERSISTENT) {
      // the warp-specialised mainloop's static persistent schedule: items c, c + grid, ... in the CTA order;
      // no work counter and no block barrier between items (each role carries its barrier phases on)
      if constexpr (K::ITEM_STREAM && ROLE == ROLE_CONSUMER) {  // the consumers run the items as one stream
        ws_consume_stream<K, T, D, CAUSAL>(O, L, N, H, BH, tiles, sect, scale, Qs, Ks, Vs, tmo);
        return;
      }
#if FA_LAST_ROUND
      // FA_LAST_ROUND=1: the last split_items whole items replaced by 2^split_shift pieces each (none under the mask);
      // item_of(i): list index i as an item, a piece's with its word in Item::split (ws_piece_range)
      const int whole = tiles * BH - (CAUSAL ? 0 : split_items);
      const int total = CAUSAL || K::LAST_ROUND == LAST_ROUND_KEY_STREAM ? whole : whole + (split_items << split_shift);
      auto item_of = [&](int i) {
        if (i < whole) return decode<K>(i, tiles, BH, sect);
        const int pi = i - whole, w = pi >> split_shift;
        Item it = decode<K>(whole + w, tiles, BH, sect);
        it.split = w << 10 | (pi & ((1 << split_shift) - 1)) << 5 | split_shift;
        return it;
      };
#else
      const int total = tiles * BH;  // named before the loop (a product in the condition orders the PTX otherwise)
      auto item_of = [&](int i) { return decode<K>(i, tiles, BH, sect); };
#endif
      if constexpr (K::SCHEDULE == SCHEDULE_DYNAMIC) {
        // FA_SCHEDULE=1: CTA c runs item c first; then its producer thread claims the next item from the work list
        // (its stream's, scheduler.cuh) once it has issued this item's copies, and hands each item to the consumers through
        // the slot (WsSlot, mainloop_sm90_ws.cuh); an item past the list tells them to stop. The claim comes while
        // the consumers still have the ring's blocks of this item ahead of them, so its round trip to L2 is not
        // waited for. Hypothesis: the static schedule fixes a CTA's items at launch, and the SMs do not run alike:
        // ncu at N512 D64 (results/2026-12-04_h200_n512_policy21) put the busiest SM of the three-warpgroup kernel
        // (the final with P packed mid-wait) at 85.2 k cycles, where its items at fixed costs give 81.8 k
        // (results/2026-12-04_cpu_dynamic_schedule), and cuDNN's at 80.7 k; and under a causal mask the one-item-a-CTA
        // kernel, which the hardware's dispatch balances, beat the persistent one (results/2026-12-03_h200_round_order).
        // Same items, same arithmetic: bitwise the same output. Not yet measured.
        const WsSlot slot = WsSlot::at(smem + smem_bytes<K, T, D>());
        if constexpr (K::SLOT_ITEM == SLOT_ITEM_DECODED) {
          // FA_SLOT_ITEM=1: the producer thread decodes each item as it claims it; the consumers read it decoded
          // (WsSlotItem, mainloop_sm90_ws.cuh: the hypothesis)
          if constexpr (ROLE == ROLE_PRODUCER) {
            if (threadIdx.x != K::THREADS) return;
            int i = blockIdx.x;
            for (;;) {
              WsSlotItem at{-1, 0, 0, 0};
              Item it{};
              if (i < total) {
                it = item_of(i);
                at = {it.qt, it.bh, it.bh / H, (it.bh % H) / (H / Hkv)};
#if FA_STAGING == 2
                if constexpr (K::NEXT_PREFETCH) {
                  // FA_NEXT_PREFETCH=1: the item's Q and its first K/V blocks into L2 as it is claimed. Hypothesis:
                  // ncu's samples at N512 D64 (results/2026-12-06_h100_n512_epilogue) put 5.3% of all warp samples
                  // on the consumers' wait for an item's Q (one Q tile: the producer loads it once this item's last
                  // QK^T has released it) and 1.8% on its first K, which the producer issues after that Q; the claim
                  // comes blocks earlier. The first item's prefetch runs just ahead of its loads. H100
                  // (results/2026-12-06_h100_next_prefetch): a negative, 0.9579 on the N512 D64 kernel with the
                  // decoded slot.
                  const int zq = tma_z(at.b, at.bh - at.b * H), zkv = tma_z(at.b, at.kvh);
#pragma unroll
                  for (int h = 0; h < D / 64; ++h) tma_prefetch_box(tmq, h * 64, it.qt * K::BR, zq);
                  const int nkv = kv_blocks<K, CAUSAL>(it.qt * K::BR, N);
                  for (int kb = 0; kb < nkv && kb < K::KV_STAGES; ++kb)
#pragma unroll
                    for (int h = 0; h < D / 64; ++h) {
                      tma_prefetch_box(tmk, h * 64, kb * K::BC, zkv);
                      tma_prefetch_box(tmv, h * 64, kb * K::BC, zkv);
                    }
                }
#endif
              }
#if FA_LAST_ROUND
              ws_slot_put_item<K>(slot, WsSlotItem{at.qt, at.bh, at.b, it.split}, &phase);  // (no K/V head read there)
#else
              ws_slot_put_item<K>(slot, at, &phase);
#endif
              if (i >= total) break;
              run_item_at<K, T, D, CAUSAL, ROLE>(it, at.b, at.kvh, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs,
                                                 Ks, Vs, tmk, tmv, &phase, fills, tmq, tmo, lq, lo);
              i = (int)gridDim.x + (int)atomicAdd(&list[0], 1u);
            }
            if (atomicAdd(&list[1], 1u) == gridDim.x - 1) {  // (as below)
              list[0] = 0;
              list[1] = 0;
            }
          } else {
            for (;;) {
              const WsSlotItem at = ws_slot_take_item<K>(slot, &phase);
              if (at.qt < 0) break;
              run_item_at<K, T, D, CAUSAL, ROLE>(Item{at.qt, at.bh, K::LAST_ROUND ? at.kvh : 0}, at.b, at.kvh, Q, Kp, V, O,
                                                 L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv, &phase,
                                                 fills, tmq, tmo, lq, lo);
            }
          }
          return;
        }
        if constexpr (ROLE == ROLE_PRODUCER) {
          if (threadIdx.x != K::THREADS) return;  // the producer's issuing thread alone runs the items
          int i = blockIdx.x;
          for (;;) {
            ws_slot_put<K>(slot, i, &phase);
            if (i >= total) break;
            run_item<K, T, D, CAUSAL, ROLE>(item_of(i), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH,
                                            scale, Qs, Ks, Vs, tmk, tmv, &phase, fills, tmq, tmo, lq, lo);
            i = (int)gridDim.x + (int)atomicAdd(&list[0], 1u);
          }
          // this CTA has made its last claim; the last CTA to get here puts the list back for the next launch
          if (atomicAdd(&list[1], 1u) == gridDim.x - 1) {
            list[0] = 0;
            list[1] = 0;
          }
        } else {
          for (;;) {
            const int i = ws_slot_take<K>(slot, &phase);
            if (i >= total) break;
            run_item<K, T, D, CAUSAL, ROLE>(item_of(i), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH,
                                            scale, Qs, Ks, Vs, tmk, tmv, &phase, fills, tmq, tmo, lq, lo);
          }
        }
        return;
      }
      if constexpr (K::WARP_UNIFORM && ROLE == ROLE_PRODUCER) {
        // FA_WARP_UNIFORM=1 (mainloop_sm90_ws.cuh: ws_wg): the producer's issuing thread alone runs the items, as the
        // dynamic schedule's does, so that no branch inside the item loop leaves the other 127 behind
        if (threadIdx.x != K::THREADS) return;
      }
      if constexpr (K::ROUND_ORDER != ROUND_ORDER_IN_PLACE) {
        // FA_ROUND_ORDER: round r holds items r x grid .. r x grid + grid - 1; in place CTA c takes item c of it.
        // Turned (1), item (c + r) mod grid. Hypothesis: launch order decodes item i to query tile i mod tiles, so with
        // a grid that tiles divides (132 SMs, 3 tiles of 192 rows at N512) CTA c takes tile c mod tiles of every head,
        // and with tail_rows=skip the CTAs of the last tile end early while the others set the time (ncu at N512 D64:
        // busiest SM 87.9 k cycles, idlest 60.1 k, average cuDNN's). Turned, each CTA's items run over every tile, and
        // neighbouring CTAs still take neighbouring items (a head's tiles at once, its K/V shared in L2).
        // Snake (2), item grid - 1 - c in odd rounds. Hypothesis: in heaviest-first order under a causal mask each
        // round's items get lighter from its first CTA to its last, so in place CTA 0 takes the heaviest item of every
        // round (a model of block counts: the busiest CTA 3-6% above the average at causal N8192 and N16384, 15% at
        // causal N4096 D64 on BR 192); reversed every other round, 0.1-1.8%.
        // Model and predictions: results/2026-12-03_cpu_round_order. H200 (results/2026-12-03_h200_round_order): turned
        // with tail_rows=skip 1.012 at N512 D64, where the busiest SM fell 87.9 k -> 85.7 k cycles (the model: 82.6 k);
        // turned alone 0.978; snake 1.057 at causal N8192 D128 over in place. Only the round's first item
        // lives across an item (the order is derived from it and gridDim.x each round: ptxas sm_90a, the non-causal
        // builds spill what the rounds in place do).
        for (int first = 0; first < total; first += gridDim.x) {
          const int r = first / gridDim.x;
          const int i = first + (K::ROUND_ORDER == ROUND_ORDER_TURNED ? (int)((blockIdx.x + r) % gridDim.x)
                                 : (r & 1) ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x);
          if (i < total)
            run_item<K, T, D, CAUSAL, ROLE>(decode<K>(i, tiles, BH, sect), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH,
                                            scale, Qs, Ks, Vs, tmk, tmv, &phase, fills, tmq, tmo, lq, lo);
        }
      } else if constexpr (K::LAST_ROUND == LAST_ROUND_KEY_STREAM && !CAUSAL) {  // (under the mask: no piece)
#if FA_LAST_ROUND
        // FA_LAST_ROUND=2 (mainloop_sm90_ws.cuh: ws_stream_piece): the whole items in rounds, then this CTA's share
        // [c q, c q + q) of the last split_items items' key blocks (q = split_shift): the start of the later item
        // first (it only writes its partials), then the end of the earlier one (which merges)
        // (one call of the item's code for both: two would double the kernel's code)
        const int G = (int)gridDim.x, c = (int)blockIdx.x, mine = c < whole ? (whole - 1 - c) / G + 1 : 0;
        const int nkv = (N + K::BC - 1) / K::BC, q = split_shift;
        const int a = c * q, b = min(a + q, split_items * nkv);
        const int wb = a < b ? (b - 1) / nkv : 0, units = mine + (a < b ? wb - a / nkv + 1 : 0);
        for (int u = 0; u < units; ++u) {
          Item it;
          if (u < mine) {
            it = decode<K>(c + u * G, tiles, BH, sect);
          } else {
            const int w = wb - (u - mine);
            it = decode<K>(whole + w, tiles, BH, sect);
            it.split = (w + 1) | q << 16;
          }
          run_item<K, T, D, CAUSAL, ROLE>(it, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv,
                                          &phase, fills, tmq, tmo, lq, lo);
        }
#endif
      } else {
        // (FA_LAST_ROUND=1: the list's pieces too, each CTA's in increasing index, so a piece's merge waits only on
        // pieces of lower index, which CTAs resident at once reach first)
        for (int i = blockIdx.x; i < total; i += gridDim.x)
          run_item<K, T, D, CAUSAL, ROLE>(item_of(i), Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk,
                                          tmv, &phase, fills, tmq, tmo, lq, lo);
      }
      return;
    }
#endif
    for_each_item<K>(smem + smem_bytes<K, T, D>() - 16, list, tiles, BH, [&](Item it) {
      run_item<K, T, D, CAUSAL, ROLE>(it, Q, Kp, V, O, L, Opart, Lpart, N, H, Hkv, BH, scale, Qs, Ks, Vs, tmk, tmv,
                                      &phase, fills, tmq, tmo, lq, lo);
    }, sect);
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
      setmaxnreg_dec<ws_producer_regs<K>()>();
#else
      setmaxnreg_dec<PRODUCER_REGS>();
#endif
      items(std::integral_constant<int, ROLE_PRODUCER>{});
    } else {
#if FA_MAINLOOP == 1
      static_assert(128 * ws_producer_regs<K>() + K::THREADS * ws_consumer_regs<K>(entry_regs<K>()) <=
                        entry_regs<K>() * K::CTA_THREADS, "setmaxnreg asks for more than the CTA holds");
      setmaxnreg_inc<ws_consumer_regs<K>(entry_regs<K>())>();
#else
      setmaxnreg_inc<consumer_regs<K>()>();
#endif
      items(std::integral_constant<int, ROLE_CONSUMER>{});
#if FA_O_STORE >= 1
      if (threadIdx.x % 128 == 0) bulk_wait<0, false>();  // this warpgroup's O stores have completed
#endif
    }
    return;
  }
#endif
  items(std::integral_constant<int, ROLE_ALL>{});
}

using Cfg = Knobs<FA_CFG_ARGS>;  // the build's knobs (knobs_gen.cuh)


constexpr long MAX_GRID_Y = 65535;  // CUDA's limit on gridDim.y (and z) on every arch

template <typename T, int D, bool CAUSAL>
struct Instance {
  static constexpr int SMEM = smem_bytes<Cfg, T, D>();
  // What a launch reads off the current device, once per device (streams.cuh): the kernel's dynamic shared memory
  // allowed (an attribute of the kernel on one device), the persistent grid (resident CTAs per SM as the driver
  // computes it x SMs) and the L2's size.
  struct OnDevice {
    cudaError_t err;
    int resident, l2;
  };
  static const OnDevice* on_device(cudaError_t* e) {
    static std::atomic<const OnDevice*> cache[MAX_DEVICES];
    const OnDevice* d = per_device(cache, e, [] {
      OnDevice o{cudaSuccess, 0, 0};
      int dev = 0, sms = 0, per = 0;
      o.err = cudaGetDevice(&dev);
      if (o.err == cudaSuccess)
        o.err = cudaFuncSetAttribute(fa_fwd_kernel<Cfg, T, D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
      if (o.err == cudaSuccess) {
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&o.l2, cudaDevAttrL2CacheSize, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fa_fwd_kernel<Cfg, T, D, CAUSAL>, Cfg::CTA_THREADS, SMEM);
        o.resident = sms * per;
      }
      return o;
    });
    if (d && d->err != cudaSuccess) *e = d->err;
    return *e == cudaSuccess ? d : nullptr;
  }
#if FA_ORDER_SECTIONS == 1
  // the heads of one section of the heaviest-first order: whole K/V groups, as many as fill a quarter of the
  // device's L2 (the rest for Q, O and the other partition's copies), at least one group
  static int section_heads(int l2, int N, int H, int Hkv, int BH) {
    const long group = 2L * N * D * (long)sizeof(T);  // one K/V head's K and V
    const long groups = std::max<long>(1, (long)l2 / 4 / group);
    return (int)std::min<long>(groups * (H / Hkv), BH);
  }
#endif
#if FA_STAGING == 2
  // One 4-D map per operand: (D, N, heads, B) with the operand's strides, box (64 columns, BC rows, 1 head,
  // 1 batch), the 128-byte swizzle; a box reaching past N is zero-filled there (loads) or not written (stores),
  // never the next head's rows, whatever the layout. FA_Q_LOAD=1's map of Q: box (64 columns, BR rows, ...).
  // The encoder is the driver's, found through the runtime (no -lcuda at build time).
  static cudaError_t tensor_map(CUtensorMap* m, const void* base, int N, int heads, int B, Layout l, int rows = Cfg::BC) {
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
    const cuuint64_t dims[4] = {(cuuint64_t)D, (cuuint64_t)N, (cuuint64_t)heads, (cuuint64_t)B};
    const cuuint64_t strides[3] = {(cuuint64_t)l.n * sizeof(T), (cuuint64_t)l.h * sizeof(T), (cuuint64_t)l.b * sizeof(T)};
    const cuuint32_t box[4] = {64, (cuuint32_t)rows, 1, 1}, step[4] = {1, 1, 1, 1};
    const CUresult r = encode(m, std::is_same<T, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                              4, const_cast<void*>(base), dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
  }
#endif
  // The operands this build takes in any layout (bits: 1 q, 2 k, 4 v, 8 o): those it reaches through TMA maps, and
  // the warp-specialised mainloop's Q and O by pointer with strides (not O of its item stream's direct stores); the
  // others it addresses as the contiguous [B, H, N, D] (K and V: [B, Hkv, N, D]) layout.
  static constexpr int STRIDED = (Cfg::STAGING == STAGE_TMA ? 2 | 4 : 0) | (Cfg::MAINLOOP ? 1 : 0) |
                                 (Cfg::MAINLOOP && (Cfg::O_STORE != O_STORE_DIRECT || !Cfg::ITEM_STREAM) ? 8 : 0);
  // lay: q, k, v, o, each normalised (a stride of a size-1 dimension is the contiguous one). FA_BAD_LAYOUT when an
  // operand this build addresses by pointer is not contiguous, or a TMA operand's base or strides are not 16-byte
  // multiples (what a tensor map needs).
  static int layouts_ok(const void* const* ptr, const Layout* lay, int H, int Hkv, int N) {
    for (int i = 0; i < 4; ++i) {
      const Layout c = contiguous_layout(i == 1 || i == 2 ? Hkv : H, N, D);
      if (!(STRIDED & (1 << i))) {
        if (lay[i].b != c.b || lay[i].h != c.h || lay[i].n != c.n) return FA_BAD_LAYOUT;
      } else if ((uintptr_t)ptr[i] % 16 || (lay[i].n * (long long)sizeof(T)) % 16 || (lay[i].h * (long long)sizeof(T)) % 16 ||
                 (lay[i].b * (long long)sizeof(T)) % 16 || lay[i].n < D) {
        return FA_BAD_LAYOUT;
      }
    }
    return 0;
  }
  static int launch(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv, int N,
                    float scale, cudaStream_t st, const Layout* lay) {
    const void* ptrs[4] = {q, k, v, o};
    if (const int bad = layouts_ok(ptrs, lay, H, Hkv, N)) return bad;
    if (!Cfg::PERSISTENT && Cfg::CTA_ORDER != ORDER_HEAVIEST_FIRST && (long)B * H > MAX_GRID_Y) {
      // a launch-order grid holds B x H in gridDim.y, at most 65,535: past it (many short sequences of many heads),
      // whole batches a launch, one after another on the stream, each from its first batch's addresses (before,
      // the launch failed with "invalid configuration argument")
      const int per = MAX_GRID_Y / H;  // >= 1: H < 2^16
      for (int b0 = 0; b0 < B; b0 += per) {
        const int e = launch(static_cast<const T*>(q) + b0 * lay[0].b, static_cast<const T*>(k) + b0 * lay[1].b,
                             static_cast<const T*>(v) + b0 * lay[2].b, static_cast<T*>(o) + b0 * lay[3].b,
                             lse + (size_t)b0 * H * N, std::min(per, B - b0), H, Hkv, N, scale, st, lay);
        if (e) return e;
      }
      return 0;
    }
    cudaError_t e = cudaSuccess;
    const OnDevice* dev = on_device(&e);
    if (!dev) return (int)e;
    const int tiles = (N + Cfg::BR - 1) / Cfg::BR, BH = B * H;
    const long items = (long)tiles * BH * Cfg::SPLITS;
    dim3 grid = Cfg::PERSISTENT ? dim3((unsigned)std::min<long>(items, std::max(dev->resident, 1)))
                : Cfg::CTA_ORDER == ORDER_HEAVIEST_FIRST ? dim3((unsigned)items)
                                                         : dim3(tiles, BH, Cfg::SPLITS);
    if (defect::kSideStream) {  // work the caller's stream never waits for
      static cudaStream_t side = nullptr;
      if (!side) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
      st = side;
    }
    float *opart = nullptr, *lpart = nullptr;
    [[maybe_unused]] int work_list = 0;
    [[maybe_unused]] int split_items = 0, split_shift = 0;  // FA_LAST_ROUND=1 (last_round_split)
    if constexpr (Cfg::SPLITS > 1 || FA_WORK_LIST || FA_LAST_ROUND) {  // this stream's work list and workspace
      const size_t rows = (size_t)BH * N;
      size_t ws = Cfg::SPLITS > 1 ? (size_t)Cfg::SPLITS * rows * (D + 1) * sizeof(float) : 0;
#if FA_LAST_ROUND
      if constexpr (!CAUSAL) {
        const int nkv = (N + Cfg::BC - 1) / Cfg::BC;
        if constexpr (Cfg::LAST_ROUND == LAST_ROUND_KEY_STREAM)
          last_round_stream(items, (int)grid.x, nkv, D, &split_items, &split_shift);
        else
          last_round_split(items, (int)grid.x, nkv, D, &split_items, &split_shift);
        // FA_LAST_ROUND_SPLIT=R:k in the environment (the tier's checks): R items (-1: every one) into 2^k pieces;
        // key_stream: the last R items (-1: as many as the grid covers) streamed in shares of nkv / 2^k blocks
        static const char* forced = std::getenv("FA_LAST_ROUND_SPLIT");
        int fr = 0, fk = 0;
        const bool parsed = forced && std::sscanf(forced, "%d:%d", &fr, &fk) == 2;
        if (forced && !parsed) {  // a test hook: say once that a value it cannot read forces nothing
          static bool told = false;
          if (!told) std::fprintf(stderr, "fa5090: FA_LAST_ROUND_SPLIT=%s ignored (expected R:k, e.g. -1:1)\n", forced);
          told = true;
        }
        if (parsed && Cfg::LAST_ROUND == LAST_ROUND_KEY_STREAM) {  // shares of nkv / 2^k blocks (at least one)
          split_shift = std::max(1, nkv >> std::max(fk, 1));
          split_items = (int)std::min<long>(std::min<long>(fr < 0 ? items : fr, items),
                                            std::min<long>((long)grid.x * split_shift / nkv, WS_PIECE_ITEMS));
          if (split_items <= 0) split_items = split_shift = 0;
        } else if (parsed) {
          split_items = (int)std::min<long>(fr < 0 ? items : fr, std::min<long>(items, WS_PIECE_ITEMS));
          for (split_shift = 0; split_shift < fk && split_shift < 5 && (nkv >> (split_shift + 1)) >= 1;) ++split_shift;
          if (!split_shift) split_items = 0;
        }
        if (split_items)
          ws = (WS_PIECE_ITEMS * WS_PIECE_CNT + (Cfg::LAST_ROUND == LAST_ROUND_KEY_STREAM
                                                     ? (size_t)grid.x * ws_piece_floats<Cfg, D>(2)
                                                     : (size_t)split_items * ws_piece_floats<Cfg, D>(1 << split_shift))) *
               sizeof(float);
      }
#endif
      work_list = stream_slot(st, ws, &opart, &e);
      if (work_list < 0) return (int)e;
      if (Cfg::SPLITS > 1) lpart = opart + (size_t)Cfg::SPLITS * rows * D;
    }
#if FA_STAGING == 2
    CUtensorMap tk, tv;
    e = tensor_map(&tk, k, N, Hkv, B, lay[1]);
    if (e == cudaSuccess) e = tensor_map(&tv, v, N, Hkv, B, lay[2]);
#if FA_Q_LOAD == 1
    CUtensorMap tq;
    if (e == cudaSuccess) e = tensor_map(&tq, q, N, H, B, lay[0], Cfg::BR);
#define FA_TMA_ARGS_KVQ , tk, tv, tq
#else
#define FA_TMA_ARGS_KVQ , tk, tv
#endif
#if FA_O_STORE >= 1
    CUtensorMap to;  // a consumer warpgroup's 64 rows a box
    if (e == cudaSuccess) e = tensor_map(&to, o, N, H, B, lay[3], 64);
#define FA_TMA_ARGS FA_TMA_ARGS_KVQ, to
#else
#define FA_TMA_ARGS FA_TMA_ARGS_KVQ
#endif
    if (e != cudaSuccess) return (int)e;
#else
#define FA_TMA_ARGS
#endif
#if FA_ORDER_SECTIONS == 1
#define FA_ORDER_ARGS , section_heads(dev->l2, N, H, Hkv, BH)
#else
#define FA_ORDER_ARGS
#endif
#if FA_MAINLOOP == 1
#define FA_LAYOUT_ARGS , lay[0], lay[3]
#else
#define FA_LAYOUT_ARGS
#endif
#if FA_WORK_LIST
#define FA_WORK_ARGS , work_list
#else
#define FA_WORK_ARGS
#endif
#if FA_LAST_ROUND
#define FA_PIECE_ARGS , split_items, split_shift
#else
#define FA_PIECE_ARGS
#endif
#define FA_KERNEL_ARGS (const T*)q, (const T*)k, (const T*)v, (T*)o, lse, opart, lpart, N, H, Hkv, BH, scale \
    FA_TMA_ARGS FA_ORDER_ARGS FA_LAYOUT_ARGS FA_WORK_ARGS FA_PIECE_ARGS
    if constexpr (Cfg::DEPENDENT_LAUNCH) {  // scheduler.cuh: dependent_launch_begin
      cudaLaunchConfig_t lc = {};
      lc.gridDim = grid;
      lc.blockDim = dim3(Cfg::CTA_THREADS);
      lc.dynamicSmemBytes = SMEM;
      lc.stream = st;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
      lc.attrs = attr;
      lc.numAttrs = 1;
      e = cudaLaunchKernelEx(&lc, fa_fwd_kernel<Cfg, T, D, CAUSAL>, FA_KERNEL_ARGS);
      if (e != cudaSuccess) return (int)e;
    } else {
      fa_fwd_kernel<Cfg, T, D, CAUSAL><<<grid, Cfg::CTA_THREADS, SMEM, st>>>(FA_KERNEL_ARGS);
    }
#undef FA_KERNEL_ARGS
#undef FA_PIECE_ARGS
#undef FA_WORK_ARGS
#undef FA_LAYOUT_ARGS
#undef FA_ORDER_ARGS
#undef FA_TMA_ARGS
#undef FA_TMA_ARGS_KVQ
    if constexpr (Cfg::SPLITS > 1) {
      const long threads = (long)BH * N * (D / 4);
      fa_combine_kernel<Cfg, T, D><<<(unsigned)((threads + 127) / 128), 128, 0, st>>>(opart, lpart, (T*)o, lse,
                                                                                     BH * N);
    }
    return (int)cudaGetLastError();
  }
  static int attrs(int* out) {
    cudaError_t e = cudaSuccess;
    if (!on_device(&e)) return (int)e;
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
#define fa_fwd_strided FA_API_CAT(FA_API_PREFIX, fa_fwd_strided)
#define fa_strided FA_API_CAT(FA_API_PREFIX, fa_strided)
#define fa_attributes FA_API_CAT(FA_API_PREFIX, fa_attributes)
#define fa_config FA_API_CAT(FA_API_PREFIX, fa_config)
#define fa_last_round FA_API_CAT(FA_API_PREFIX, fa_last_round)
#define fa_error_string FA_API_CAT(FA_API_PREFIX, fa_error_string)
#define fa_item_trace FA_API_CAT(FA_API_PREFIX, fa_item_trace)
#endif
#define FA_API __attribute__((visibility("default")))
extern "C" {
// Launch on `stream` (a CUstream/cudaStream_t handle); returns 0 or an error code. q, o: [B, H, N, D]; k, v:
// [B, Hkv, N, D]; lse: [B, H, N] fp32, contiguous. `strides`: 12 values in elements, each operand's (batch, head,
// row) strides for q, k, v, o in turn (a row's D values contiguous), or nullptr for the contiguous layout. Which
// operands a build takes in any layout: fa_strided; the others must be contiguous (FA_BAD_LAYOUT otherwise).
FA_API int fa_fwd_strided(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv,
                          int N, int D, int dtype, int causal, float scale, void* stream, const long long* strides) {
  if (B <= 0 || H <= 0 || N <= 0 || Hkv <= 0 || H % Hkv || H >= (1 << 16) || B >= (1 << 15)) return FA_BAD_ARG;
  fa::Layout lay[4];
  for (int i = 0; i < 4; ++i) {
    const int heads = i == 1 || i == 2 ? Hkv : H;
    const fa::Layout c = fa::contiguous_layout(heads, N, D);
    lay[i] = strides ? fa::Layout{B > 1 ? strides[3 * i] : c.b, heads > 1 ? strides[3 * i + 1] : c.h,
                                  N > 1 ? strides[3 * i + 2] : c.n}
                     : c;  // a size-1 dimension's stride is never read: the contiguous one stands in
  }
  return fa_dispatch(dtype, D, causal, [&](auto inst) {
    return decltype(inst)::launch(q, k, v, o, lse, B, H, Hkv, N, scale, (cudaStream_t)stream, lay);
  });
}
FA_API int fa_fwd(const void* q, const void* k, const void* v, void* o, float* lse, int B, int H, int Hkv, int N,
           int D, int dtype, int causal, float scale, void* stream) {
  return fa_fwd_strided(q, k, v, o, lse, B, H, Hkv, N, D, dtype, causal, scale, stream, nullptr);
}
// The operands the (dtype, D, causal) kernel takes in any layout (bits: 1 q, 2 k, 4 v, 8 o), or an error code.
FA_API int fa_strided(int dtype, int D, int causal) {
  return fa_dispatch(dtype, D, causal, [&](auto inst) { return decltype(inst)::STRIDED; });
}
// out[6] = registers/thread, local (spill) bytes/thread, static smem, dynamic smem/CTA,
// threads/CTA, resident CTAs/SM as the driver computes it for this device.
FA_API int fa_attributes(int dtype, int D, int causal, int* out) {
  return fa_dispatch(dtype, D, causal, [&](auto inst) { return decltype(inst)::attrs(out); });
}
// The knobs this library was built with, FA_CONFIG_COUNT ints (one per knob of kernel_src/knob_table.py, in its
// order), so a loaded library can be checked against its key.
FA_API void fa_config(int* out) { FA_CONFIG_WRITE(out); }
// FA_LAST_ROUND=1 (last_round_split): out[0], out[1] = the items the launch splits at the end of the list and log2 of
// their pieces (FA_LAST_ROUND=2, last_round_stream: the items streamed and each CTA's share of their key blocks), for
// `items` whole items of nkv key blocks at head dim D on a grid of `grid` CTAs (no GPU needed); returns 0, or -1 in a
// build without either
FA_API int fa_last_round(long long items, int grid, int nkv, int D, int* out) {
#if FA_LAST_ROUND
  if (FA_LAST_ROUND == fa::LAST_ROUND_KEY_STREAM)
    fa::last_round_stream((long)items, grid, nkv, D, out, out + 1);
  else
    fa::last_round_split((long)items, grid, nkv, D, out, out + 1);
  return 0;
#else
  (void)items; (void)grid; (void)nkv; (void)D; (void)out;
  return -1;
#endif
}
// FA_ITEM_TRACE=1 (trace.cuh): the record slabs (fa::TRACE_CAP records of 16 bytes, fa::TraceRecord, an empty slot's
// time 0) copied into `out` (host memory, `cap` records at most), then cleared; returns the records copied, -1 in a
// build without the trace, or minus a CUDA error code.
FA_API int fa_item_trace(void* out, int cap) {
#if FA_ITEM_TRACE
  const int got = std::max(0, std::min(cap, fa::TRACE_CAP));
  cudaError_t e = cudaSuccess;
  if (got > 0) e = cudaMemcpyFromSymbol(out, fa::g_trace, got * sizeof(fa::TraceRecord));
  void* at = nullptr;
  if (e == cudaSuccess) e = cudaGetSymbolAddress(&at, fa::g_trace);
  if (e == cudaSuccess) e = cudaMemset(at, 0, sizeof(fa::g_trace));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e == cudaSuccess ? got : -(int)e;
#else
  (void)out;
  (void)cap;
  return -1;
#endif
}
FA_API const char* fa_error_string(int code) {
  if (code == FA_NOT_BUILT) return "this (dtype, head dim, causal) instantiation was not built into the library";
  if (code == FA_BAD_ARG) return "bad argument: dtype must be fp16/bf16, D 64 or 128, B, H, N > 0, Hkv dividing H";
  if (code == FA_BAD_LAYOUT)
    return "a layout this kernel cannot take: the operands it addresses by pointer (see fa_strided) must be contiguous "
           "[B, H, N, D], the others need 16-byte aligned bases and strides";
  return cudaGetErrorString((cudaError_t)code);
}
}
