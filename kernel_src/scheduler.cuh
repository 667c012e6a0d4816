// The tile scheduler: what a work item is and which items a CTA takes (launch order or heaviest first,
// one CTA per item or a persistent grid pulling from a work list). The launch (fa_fwd.cu) sizes the
// grid to match.
#pragma once
#include "config.cuh"
#include "streams.cuh"

namespace fa {

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
//
// FA_ORDER_SECTIONS=1: heaviest first within sections of `sect` consecutive heads (whole K/V groups, as many
// as fill a quarter of the device's L2: the launch computes it), one section after another. Across every
// head, the reuse distance of a head's K/V is every head's K/V (32 MB at B8 H32/8 N1024 D128, past what the
// L2 keeps for it: ncu read 152 MB of DRAM where cuDNN read 100, results/2026-12-01_h200_cudnn_anatomy);
// within a section it is the section's. The balance of longest-first holds inside each section, and the
// last section's light tiles still end the launch.
template <class K>
__device__ __forceinline__ Item decode(int i, int tiles, int BH, int sect = 0) {
  (void)sect;
  if constexpr (K::ORDER_SECTIONS) {
    const int per = tiles * sect;  // the items of a full section
    const int s = i / per, j = i - s * per;
    const int nb = BH - s * sect < sect ? BH - s * sect : sect;  // the heads of this section (the last: fewer)
    return {tiles - 1 - j / nb, s * sect + j % nb, 0};
  } else if constexpr (K::ITEM_ORDER == ITEM_ORDER_TILES_ASCENDING) {
    // FA_ITEM_ORDER=1 (no mask, a short last tile): every head's first query tile, then every head's second, ...; the
    // items a short last tile leaves a warpgroup short (N512 at BR 192: 128 rows, tail_rows=skip) come last, so the
    // persistent CTAs take the full items first and the short ones fill the end, longest-processing-time first. In
    // launch order (a head's tiles in turn) a full item may be claimed last and set the end. Hypothesis: ncu at N512
    // D64 on an H100 (results/2026-12-06_h100_launch_gaps/anatomy): the SMs' average active cycles level with cuDNN's
    // (78.5 k against 77.9 k), elapsed 89.4 k against 84.9 k; a model of greedy claims with the short item at 0.67-0.9
    // of a full one puts the idle end at 5.4-9.2% in launch order and 3.7% tile by tile: 1.02-1.06. Not yet measured.
    return {i / BH, i % BH, 0};
  } else if constexpr (K::ITEM_ORDER == ITEM_ORDER_SHORT_TILES_LATE) {
    // FA_ITEM_ORDER=2: launch order with each head's last query tile W = grid / 2 heads later: head h's full tiles, then
    // head h - W's last tile, ...; the last W heads' last tiles end the list. Without a mask and with a short last tile
    // (N512 at BR 192: 128 rows, tail_rows=skip) the items claimed last are short ones, as tile by tile, while the reuse
    // distance of a head's K/V stays W heads (at N512 D64 fp16, 66 heads' K, V, Q and O: 17 MB of the 50 MB L2), where
    // tile by tile it was every head's (H100: DRAM reads 50.4 -> 108.4 MB, 0.91-0.92, results/2026-12-06_h100_item_order).
    // Hypothesis: the greedy-claims model of that record, with this order (results/2026-12-06_cpu_short_tiles_late),
    // gives 1.01-1.05 at N512 D64 for a short item at 0.67-0.9 of a full one. H100 (results/2026-12-06_h100_short_tiles_late):
    // 1.0176 at N2048 D64 GQA, 1.0139 at N8192 D64, 0.9995-1.0031 at N512 D64 (1.0153 with the dependent launch);
    // DRAM reads at N512 50.4 -> 51.8 MB.
    const unsigned u = (unsigned)i, T = (unsigned)tiles, F = T - 1u, nh = (unsigned)BH;
    const unsigned W = min(max(gridDim.x / 2u, 1u), nh), lead = W * F;  // (tiles == 1: no full tile, lead 0)
    if (u < lead) return {(int)(u % F), (int)(u / F), 0};  // the first W heads' full tiles
    const unsigned j = u - lead, h = W + j / T, r = j - (h - W) * T;
    if (h >= nh) return {(int)F, (int)(nh - W + j - (nh - W) * T), 0};  // the last W heads' last tiles
    return r < F ? Item{(int)r, (int)h, 0} : Item{(int)F, (int)(h - W), 0};
  } else if constexpr (K::CTA_ORDER == ORDER_HEAVIEST_FIRST) {
    const int rest = i % (BH * K::SPLITS);
    return {tiles - 1 - i / (BH * K::SPLITS), rest % BH, rest / BH};
  } else {
    return {i % tiles, (i / tiles) % BH, i / (tiles * BH)};
  }
}

// The persistent grid's work lists: each the next item to hand out and the CTAs that have finished.
// The last CTA to finish puts both back to zero, so every launch starts from an empty list without
// a memset on the stream. Two launches of one stream run in turn and share its list; two streams'
// launches may run at once, so each stream has a list of its own (its slot, streams.cuh), passed as
// the kernel's `work_list`. The builds that keep one: the general mainloop's persistent grid
// (for_each_item) and the warp-specialised mainloop's dynamic schedule; the others declare the one
// pair they always did and never read it.
#if FA_PERSISTENT && (FA_MAINLOOP != 1 || FA_SCHEDULE == 1)
#define FA_WORK_LIST 1
#else
#define FA_WORK_LIST 0
#endif
__device__ unsigned int g_work[FA_WORK_LIST ? 2 * STREAM_SLOTS : 2];

// FA_DEPENDENT_LAUNCH=1: the launch (fa_fwd.cu) lets this kernel's CTAs start while the stream's previous kernel
// still runs (programmatic stream serialization). Each CTA, once its barriers are set up, lets the stream's next
// kernel launch (launch_dependents: that launch begins when every CTA of this one has said so or exited, and its CTAs
// take an SM as ours leave it), then waits until the previous kernel has completed and its writes are visible
// (griddepcontrol.wait) before its first global access, the work list's included (the previous launch puts it back
// last). Hypothesis: at B16 H16 N512 D64 a call is about 50 us, and the launch of the next kernel and its CTAs' start
// on SMs that the last items leave idle are 1-2 us of it; with the launch overlapped, back-to-back calls gain that
// (the kernel itself is the same: bitwise the same output). H100 (results/2026-12-06_h100_launch_gaps): gaps of 1.33 us
// between back-to-back calls of ours without it, -7.94 us with it (294 of 300 overlapping); 1.0135 at N512 D64 and
// 1.0148 at N2048 D128. A gain against our own previous call: cuDNN's SDPA launches without it.
template <class K>
__device__ __forceinline__ void dependent_launch_begin() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (K::DEPENDENT_LAUNCH) asm volatile("griddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;" ::: "memory");
#endif
}

// The items of this CTA, in order, each handed to work(Item): the one item of its launch position, or
// with FA_PERSISTENT the items it pulls from the work list `list` (its stream's pair of g_work) until
// the list is empty. slot: the 16 bytes of shared memory where thread 0 puts the item it pulled for the others.
template <class K, class Work>
__device__ __forceinline__ void for_each_item(unsigned char* slot, unsigned int* list, int tiles, int BH, Work&& work,
                                              int sect = 0) {
  if constexpr (K::PERSISTENT) {
    // Persistent grid: as many CTAs as fit on the device at once, each pulling the next item of
    // the list (in the CTA order above) until it is empty. Saves the launch and tail of one CTA per
    // item and, with heaviest first, is longest-processing-time scheduling proper; costs an atomic
    // and two barriers per item. Same items, same arithmetic: bitwise the same output. H200 from
    // the padded kernel: 0.918x at N=8192 fp16, 0.876x at causal N=32768 bf16; on top of K/V
    // double buffering at N=8192 it was KEPT at 1.024x (results/2026-11-30_h200_search_n8192).
    unsigned int* next = reinterpret_cast<unsigned int*>(slot);
    const unsigned int total = (unsigned int)tiles * BH * K::SPLITS;
    for (;;) {
      __syncthreads();  // the previous item is done with shared memory and with *next
      if (threadIdx.x == 0) *next = atomicAdd(&list[0], 1u);
      __syncthreads();
      const unsigned int i = *next;
      if (i >= total) break;
      work(decode<K>((int)i, tiles, BH, sect));
    }
    if (threadIdx.x == 0 && atomicAdd(&list[1], 1u) == gridDim.x - 1) {
      list[0] = 0;  // every CTA has taken its last item: reset the list for the next launch
      list[1] = 0;
    }
  } else {
    (void)slot;
    (void)list;
    const Item it = K::CTA_ORDER == ORDER_HEAVIEST_FIRST ? decode<K>(blockIdx.x, tiles, BH, sect)
                                                          : Item{(int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z};
    work(it);
  }
}

}  // namespace fa
