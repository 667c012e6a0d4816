// fa5090-search: the warp-specialised Hopper mainloop (FA_MAINLOOP=1, sm_90a): one producer warpgroup
// issues every K and V copy by TMA on separate K and V pipelines, and 2-3 consumer warpgroups (64 query
// rows each) run wgmma with registers reallocated to them (setmaxnreg), so that the key tile reaches 128
// at D=128 without spilling. Built from the components: the staging primitives (copy.cuh), the softmax's
// exponential and max rules (softmax.cuh), the output store (epilogue.cuh), the wgmma and mbarrier wrappers
// (wgmma.cuh, through target.cuh); fa_fwd.cu's run_item chooses it by FA_MAINLOOP.
//
// Levers of this component, each a knob, each with its hypothesis (figures: results/, see the README's
// index; "not measured" until a record says otherwise):
//   FA_PIPELINE=1  intra-warpgroup overlap (FlashAttention-3): block j's QK^T is issued as an asynchronous
//                  wgmma group together with block j-1's PV, and the softmax of block j runs while PV j-1 is
//                  on the tensor cores (wgmma.wait_group 1, then 0 before O is rescaled). Costs S's second
//                  set of accumulators beside P: at D=128, BC=128: O 64 + S 64 + P 32 registers.
//   FA_PINGPONG=1  two consumer warpgroups take the tensor cores in turns (named barriers 2 and 3): one
//                  warpgroup's GEMMs run under the other's softmax. One turn is a warpgroup's GEMM issue of
//                  one step (its first QK^T; then each block's QK^T with the previous PV; then the last PV).
//   FA_TURN_CYCLE=1  the same on three consumer warpgroups (BR 192, D=64's tile), in a fixed cycle on named barriers
//                  2, 3 and 8 (FlashAttention-3 runs its scheduler barrier so at D=64). Hypothesis: without turns the
//                  three warpgroups drift into step, so their softmaxes run at once with the tensor cores idle (ncu at
//                  N8192 D64 on the suite's best: tensor pipe 62% of the active cycles, issue 45%, the largest stall
//                  `wait`); in a cycle each warpgroup's softmax runs under the other two's GEMMs. Ping-pong on two
//                  warpgroups gained 1.088 over the overlap alone at D=128 on the H200. Predicted 1.00-1.04 at N8192
//                  D64 and N2048 D64 GQA. H100 (results/2026-12-06_h100_turn_cycle): a negative, 0.959-0.981 at N8192
//                  D64, 0.933 at N2048 D64 GQA, 0.997 at causal N4096 D64; the tensor pipe's work the same, over 4.3%
//                  more active cycles (each warpgroup waits for the slowest of the three every step).
//   FA_BC          128 at D=128 (the tile FlashAttention-3 runs there), 64 or 128 at D=64; 176 (FlashAttention-3's
//                  non-causal D=128 tile): fewer, longer key blocks, S 88 + P 44 + O 64 registers
//   FA_WARPS       8: two consumer warpgroups (BR 128), 12: three (BR 192, FlashAttention-3's D=64 tile),
//                  4: one (BR 64), meant for two or three CTAs per SM (FA_MIN_CTAS): each CTA's item boundaries
//                  (its first QK^T and softmax, last PV, stores) then run under another CTA's GEMMs, where the
//                  two warpgroups of one CTA start and end their items together. Hypothesis for short items
//                  (N <= 2048, short causal rows), where those boundaries are a large share of an item.
//   FA_PERSISTENT=1  a static persistent schedule: CTA c takes items c, c + grid, ...; no work counter and
//                  no block barrier between items, so the producer runs into the next item's K/V while the
//                  consumers finish this item's epilogue.
//   FA_Q_LOAD=1    Q by TMA from the producer (its own full/empty mbarrier pair), issued as soon as every
//                  consumer warp's last QK^T of the previous item has completed. Hypothesis: on short items
//                  (N <= 2048, short causal rows) the consumers' own Q copy, a round trip to memory they
//                  wait for with nothing else to do, is a large share of the item; persistent, the next
//                  Q then lands under this item's last softmax, PV and stores. H200, on the persistent
//                  kernel: 1.027 at N2048 D128, 1.122 at N512 D64 B16, 1.088 at causal N1024 GQA, 1.018 at
//                  N8192 D64; alone (one CTA per item) 0.975-0.999; both together 0.98-0.99 at N8192 D128
//                  and 0.91-0.95 causal there (results/2026-12-01_h200_short_shapes).
//   FA_PV_WIDE=1   at D=128, PV per 16 keys as one m64n128k16 instead of two m64n64k16 (the A fragment, P,
//                  fed to the tensor cores once, half the wgmma instructions). Hypothesis from ncu (H200,
//                  results/2026-12-01_h200_cudnn_anatomy): SDPA's cuDNN kernel issues 2/3 of our wgmma count
//                  for the same FLOPs, the PV of N=D being the difference.
//   FA_MIN_CTAS=2  (two consumer warpgroups, BC 64) two CTAs per SM: 80 registers at entry, 104 a consumer.
//                  H200 at D=64: 1.170 over three warpgroups at N512 B16, 0.890 at N8192.
//   FA_O_STORE=1   the epilogue by stmatrix into a shared-memory O tile and one TMA store per consumer warpgroup
//                  (ws_store_o). H200: 1.081 at N2048 D128, 1.110-1.179 at causal N1024 GQA, 1.055 at N4096 bf16,
//                  1.023 at N8192, 1.086 at N512 D64, 1.038-1.047 at N2048 D64 GQA (results/2026-12-01_h200_item_stream).
//   FA_O_STORE=2   the same through the warpgroup's own rows of the Q tile, dead once its last QK^T has completed:
//                  no O tile, so BC 176 at D=128 keeps its two K/V stages (one item a CTA). Not yet measured.
//   FA_EXP_POLY    a quarter or half of P's exponentials by the cubic on the FMA pipe (ws_exp). Not yet measured.
//   FA_ITEM_STREAM=1  a CTA's items as one stream of key blocks (ws_consume_stream). H200: a negative, 0.90-1.03
//                  (0.905 at N512 D64 on three warpgroups), and 0.94-1.00 together with FA_O_STORE at D=128.
//   FA_P_PACK=1    P packed to the input dtype as its exponentials are computed, in the softmax's basic block; overlapped,
//                  into the other of two P buffers (BC/4 registers more: the two-step loop in ws_consume). Hypothesis, from
//                  ncu at N512 D64 (results/2026-12-02_h200_softmax_chain): our MUFU.EX2 issue back to back and wait on each
//                  other (19.3% of the warp samples; cuDNN's, spread among FMUL, FADD and F2FP, 5.6%), because the F2FP
//                  stand after the rescale vote and the previous PV's wait. H200 (results/2026-12-03_h200_p_pack): 1.011 at
//                  N2048 D128 and 1.015 at N8192 D128 (ws_op_lazy_w_oq), 1.030 at N2048 D128 with the 40-register producer;
//                  causal 0.61-0.77x cuDNN: ptxas serialised every wgmma of the causal build (C7520; ncu barrier stalls 2.8
//                  against 0.6, results/2026-12-03_h200_agent_suite), the last PV now issued from one site (not measured);
//                  three consumer warpgroups spill 516 B and lose 0.80.
//   FA_P_PACK=2    the same with one P buffer: the overlapped loop waits for the previous PV halfway through the block's
//                  exponentials (ws_softmax's MID_WAIT) and packs P beside the second half. H200: 1.011 at causal N1024
//                  GQA, 1.013 at N2048 D64 GQA (three warpgroups), 1.016 at N512 D64 (two consumers, persistent); 0.935-0.947
//                  on the two-consumer 128-key tile at non-causal D=128.
//   FA_TAIL_ROWS=1 a consumer warpgroup whose rows all lie past N only keeps pace on the barriers (ws_idle). H200:
//                  0.995 alone at N512 D64 (results/2026-12-03_h200_tail_rows); with the items in heaviest-first (tile-
//                  major) order 1.022 there and 1.027 at N2048 D64 GQA (results/2026-12-03_h200_round_order).
//   FA_TAIL_ROWS=2 where the item's last warpgroup alone lies past N it computes the item's last key block for the
//                  others' rows (ws_tail_help), merged before their store. H200 (results/2026-12-04_h200_tail_split):
//                  0.953 at N512 D64 and 0.988 at N2048 D64 GQA against tail_rows=skip (a negative).
//   FA_ROUND_ORDER the persistent schedule's rounds turned one CTA each (1) or every other one reversed (2)
//                  (fa_fwd.cu): CTA c no longer takes tile c mod tiles of every head where the grid is a multiple of
//                  the tiles, nor the heaviest item of every heaviest-first round. H200
//                  (results/2026-12-03_h200_round_order): turned with tail_rows=skip 1.012 at N512 D64 (alone 0.978);
//                  snake 1.057 at causal N8192 D128 over heaviest first in place.
//   FA_KV_L2_HINT=1  the producer's K and V loads carry an L2 evict-last policy (FlashAttention-3 loads K and V
//                  evict-last). Hypothesis: in the tile-major (heaviest-first) order a head's K/V is read by its query
//                  tiles rounds apart, past what the L2 keeps beside Q and O: at N512 D64 ncu read 76 MB of DRAM where
//                  cuDNN read 50 (results/2026-12-04_h200_n512_policy21), at causal N1024 GQA 152 MB against 100
//                  (results/2026-12-01_h200_cudnn_anatomy); marked evict-last, the later tiles' reads hit. Not yet measured.
//   FA_SCHEDULE=1  the persistent CTAs' items claimed one at a time from a global counter by the producer thread, handed
//                  to the consumers through a shared-memory slot (WsSlot, fa_fwd.cu's loop): a CTA whose items ran long
//                  takes fewer. Hypothesis and model: fa_fwd.cu and results/2026-12-04_cpu_dynamic_schedule. Not yet
//                  measured.
//   FA_ROW_SUM=1  the rows' sums of P on the tensor cores: an m64n8k16 of P and a tile of ones beside each 16 keys'
//                  PV (ws_pv), where each thread added its exponentials in two FADD chains (64 FADD a block at BC 128);
//                  fp16 alone (bf16's rounded P moved the LSE past the tier's 1e-3). Hypothesis: at D=64 the MUFU pipe
//                  and the tensor cores are equally loaded and the softmax's instructions set the pace. H100
//                  (results/2026-12-06_h100_row_sum): 1.036-1.040 at N512 D64 on the launch-order three-warpgroup
//                  kernel with items from a counter (0.975x cuDNN with hoisted descriptors and suspended waits), within
//                  +-1% on the other D=64 kernels, 0.94-0.97 at D=128, where the m64n8k16 costs more than its FLOPs.
// The K buffer of a stage is released as soon as its QK^T has completed, the V buffer after its PV: with
// two stages the producer refills K a whole block ahead of its use.
#pragma once

#include "config.cuh"
#include "copy.cuh"
#include "defects.cuh"
#include "epilogue.cuh"
#include "softmax.cuh"
#include "target.cuh"
#include "tile.cuh"
#include "trace.cuh"

namespace fa {

// m64n176k16 from two shared-memory descriptors (FA_BC=176, the warp-specialised mainloop's wide key tile)
template <int TB, typename T>
__device__ __forceinline__ void wgmma_ss_n176(float* d, uint64_t desc_a, uint64_t desc_b, int scale_d) {
  if constexpr (std::is_same<T, __half>::value) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87}, %88, %89, p, %91, %92, %93, %94;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87}, %88, %89, p, %91, %92, %93, %94;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
  }
}

// m64n192k16 from two shared-memory descriptors (FA_BC=192, FlashAttention-3's non-causal D=64 key tile)
template <int TB, typename T>
__device__ __forceinline__ void wgmma_ss_n192(float* d, uint64_t desc_a, uint64_t desc_b, int scale_d) {
  if constexpr (std::is_same<T, __half>::value) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, p, %99, %100, %101, %102;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, p, %99, %100, %101, %102;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(0), "n"(TB));
  }
}

// Registers a thread after setmaxnreg. The CTA's pool is what it was launched with (entry registers x
// threads, 168 x 384 or 128 x 512), not the SM's 65536: consumers asking for more than the producer gave
// back wait in setmaxnreg forever (seen on the H200: a producer of 32 with consumers of 240 at 168 x 384
// hung). So the producer keeps 24 beside one or two consumer warpgroups and 32 beside three (FlashAttention-3's
// figures for two and three), and the consumers share the rest, in multiples of 8, at most 240.
// FA_WS_PRODUCER_REGS=40 (two consumer warpgroups, one CTA an SM): the producer keeps 40 and the consumers take 232.
// Hypothesis: at 24 the producer's loop lives in local memory (ptxas, sm_90a, the persistent two-consumer kernels
// with Q by TMA: 72-104 bytes of spill stores a kernel, an LDL/STL pair around each TMA issue), so each item's
// first copies wait on round trips to L1 while the consumers wait for them; short items (N <= 2048) pay that once
// per item. At 40 the same kernels spill nothing, and their consumers none at 232.
template <class K>
__host__ __device__ constexpr int ws_producer_regs() {
  return K::WS_PRODUCER_REGS ? K::WS_PRODUCER_REGS : K::WARPS == 12 ? 32 : 24;
}
template <class K>
__host__ __device__ constexpr int ws_consumer_regs(int entry) {
  return (entry * K::CTA_THREADS - 128 * ws_producer_regs<K>()) / K::THREADS / 8 * 8 > 240
             ? 240
             : (entry * K::CTA_THREADS - 128 * ws_producer_regs<K>()) / K::THREADS / 8 * 8;
}

// FA_WARP_UNIFORM=1: the consumers' warpgroup index shuffled from lane 0, so that ptxas knows every branch on it keeps
// the warp whole, and a warp's one-lane arrival as a predicated instruction rather than a branch (ws_release); the O
// store's one-thread work likewise (ws_store_o), and the static persistent producer's idle threads leave before the
// item loop (fa_fwd.cu). Hypothesis: ptxas reads `wg = threadIdx.x / 128` and `if (lane == 0)` as branches that may
// split a warp, and inside the persistent item loop, which every such branch sits in, it then keeps the loop's values
// per thread: the SASS of the persistent D=128 kernel (sm_90a) reads the shared-memory base by S2R where the one-item
// kernel's reads it by S2UR, puts all 48 of its mbarrier waits on per-thread addresses (10 of 36 one item a CTA),
// and holds 37 convergence barriers (BSSY), 26 WARPSYNCs and 25 YIELDs (8, 15 and 0 one item a CTA); ncu put its
// extra 2.2% of active cycles on the turns' waits behind WARPSYNC.ALL (results/2026-12-06_h100_turn_cycle). With the
// three changes that build reads 8 BSSY, 2 WARPSYNC and 0 YIELD (results/2026-12-06_cpu_warp_uniform). Not yet
// measured.
template <class K>
__device__ __forceinline__ int ws_wg(int warp) {
  if constexpr (K::WARP_UNIFORM) return __shfl_sync(0xffffffffu, warp / 4, 0);
  else return warp / 4;
}
// a warp's arrival on an empty barrier, by lane 0 once every lane has got here
template <class K>
__device__ __forceinline__ void ws_release(uint64_t* bar, int lane) {
  __syncwarp();
  if constexpr (K::WARP_UNIFORM) mbar_arrive_if(bar, lane == 0);
  else if (lane == 0) mbar_arrive(bar);
}

// warpgroup wg's own named barrier (ids 4, 5, 6: 0 is __syncthreads', 1 the consumers', 2 and 3 the
// ping-pong turns, 2, 3 and 8 the cycle of turns, 7 the tail split's); the id must be an immediate
__device__ __forceinline__ void named_sync_wg(int wg) {
  if (wg == 0) named_sync<4, 128>();
  else if (wg == 1) named_sync<5, 128>();
  else named_sync<6, 128>();
}

// The shared-memory barriers of the ring, after the V tiles: per stage a K-full and a V-full barrier
// (TMA's complete_tx, arrival count 1) and a K-empty and a V-empty barrier (one arrival per consumer warp).
// With FA_Q_LOAD=1 a Q-full (complete_tx) and a Q-empty barrier (one arrival per consumer warp) follow.
// where the barriers begin: after the V tiles and FA_ROW_SUM=1's tile of ones (tile.cuh: ones_bytes)
template <class K, typename T, int D>
__device__ __forceinline__ void* ws_bars_base(T* Vs) {
  return reinterpret_cast<unsigned char*>(Vs + K::BC * K::KV_STAGES * D) + ones_bytes<K>() + p_tiles_bytes<K>();
}
// FA_P_IN=1: consumer warpgroup wg's P tile, after the ones (tile.cuh: p_tile_bytes)
template <class K, typename T, int D>
__device__ __forceinline__ T* ws_p_tile(T* Vs, int wg) {
  return reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(Vs + K::BC * K::KV_STAGES * D) + ones_bytes<K>() +
                              wg * p_tile_bytes<K>());
}
// FA_ROW_SUM=1 acts on fp16 alone: P rounded to bf16 (8 significant bits) moves l by up to ~2^-9 in a row of few keys,
// and the LSE by 1.6e-3 where the tier allows 1e-3 (results/2026-12-06_h100_row_sum: fp16's worst 2.2e-4); bf16 keeps
// the FADD sums
template <class K, typename T>
__host__ __device__ constexpr bool row_sum_mma() {
  return K::ROW_SUM == ROW_SUM_MMA && std::is_same<T, __half>::value;
}
// FA_ROW_SUM=1: the tile of ones, written by the CTA's first 256 threads before the block barrier that publishes the
// ring's barriers (a 1024-byte atom: every element 1, so any swizzle reads ones)
template <class K, typename T, int D>
__device__ __forceinline__ void ws_fill_ones(T* Vs) {
  if constexpr (K::ROW_SUM == ROW_SUM_MMA) {
    static_assert(K::CTA_THREADS >= 256, "256 threads write the ones");
    if (threadIdx.x < 256) {
      const uint32_t one = Pack<T>::two(1.f, 1.f);
      reinterpret_cast<uint32_t*>(Vs + K::BC * K::KV_STAGES * D)[threadIdx.x] = one;
      proxy_fence();  // visible to wgmma's async proxy
    }
  }
  (void)Vs;
}
struct WsBars {
  uint64_t *kfull, *vfull, *kempty, *vempty, *qfull, *qempty;
  template <int NS>
  __device__ __forceinline__ static WsBars at(void* base) {
    uint64_t* b = reinterpret_cast<uint64_t*>(base);
    return {b, b + NS, b + 2 * NS, b + 3 * NS, b + 4 * NS, b + 4 * NS + 1};
  }
};
// bit 7 of a role's phase word: the parity of its Q waits (bits 0-2 are the K/V stages')
constexpr int WS_Q_BIT = 7;
// FA_ITEM_STREAM=1, the producer's phase word: bits 4-5 the K/V stage of the next item's first block (the stages
// are counted across items), bits 16-31 the items begun (item n's Q goes to tile n & 1, full/empty pair 2(n & 1))
constexpr int WS_ROT_SHIFT = 4, WS_ITEMS_SHIFT = 16;
// FA_TAIL_ROWS=2, the helping warpgroup's phase word: bit 8 the parity of its waits for the others' reads of its partials
constexpr int WS_TAIL_BIT = 8;
// FA_SCHEDULE=1, every role's phase word: bit 9 the parity of its waits on the item slot's barriers
constexpr int WS_SLOT_BIT = 9;
// FA_PINGPONG_HANDOFF=1: set in warpgroup 1's phase words once it has started the CTA's cycle of turns
constexpr int WS_HANDOFF_BIT = 10;

// FA_SCHEDULE=1: the item the producer hands the consumers, in the persistent grid's 16-byte slot at the end of shared
// memory, and the slot's full mbarrier (one arrival: the producer thread's) and empty mbarrier (one arrival per consumer
// warp) in the 16 bytes before it (tile.cuh's smem_bytes counts them). `end`: the end of the CTA's shared memory.
struct WsSlot {
  uint64_t *full, *empty;
  int* item;
  __device__ __forceinline__ static WsSlot at(unsigned char* end) {
    uint64_t* b = reinterpret_cast<uint64_t*>(end - 32);
    return {b, b + 1, reinterpret_cast<int*>(end - 16)};
  }
};
// the producer thread: item i into the slot, once every consumer warp has read the last one (a fresh barrier passes
// parity 1); the full barrier's arrival (release) orders the store before the consumers' reads
template <class K>
__device__ __forceinline__ void ws_slot_put(WsSlot s, int i, uint32_t* phase) {
  mbar_wait(s.empty, ((*phase >> WS_SLOT_BIT) & 1u) ^ 1u);
  *phase ^= 1u << WS_SLOT_BIT;
  *reinterpret_cast<volatile int*>(s.item) = i;
  mbar_arrive(s.full);
}
// a consumer thread: the next item (its wait acquires the producer's store), then its warp's arrival on the empty barrier
template <class K>
__device__ __forceinline__ int ws_slot_take(WsSlot s, uint32_t* phase) {
  mbar_wait(s.full, (*phase >> WS_SLOT_BIT) & 1u);
  *phase ^= 1u << WS_SLOT_BIT;
  const int i = *reinterpret_cast<volatile int*>(s.item);
  ws_release<K>(s.empty, threadIdx.x % 32);
  // FA_WARP_UNIFORM=1: lane 0's copy, which ptxas knows is the warp's (a load's value it reads as per thread)
  return K::WARP_UNIFORM ? __shfl_sync(0xffffffffu, i, 0) : i;
}
// FA_SLOT_ITEM=1: the item as the producer thread decoded it when it claimed it: query tile (-1: no item left), head
// (batch x heads), batch and K/V head. Hypothesis: between two items each consumer thread decoded the index itself, and
// the trace (results/2026-12-06_h100_item_trace) read 0.29-0.35 us at least between a warpgroup's end of one item and
// its start of the next at N512 D64, where the code between them is the decode and run_item's head arithmetic: five
// integer divisions by run-time values, each an I2F, a MUFU.RCP and an F2I in a dependent chain, on the pipe that the
// other warpgroups' exponentials keep busy. Here the producer divides (off the consumers' path, while they still have
// the ring's blocks of this item ahead of them) and the consumers read the four numbers with one 16-byte shared load.
// Same items, same arithmetic: bitwise the same output. H100 (results/2026-12-06_h100_slot_item): on the N512 D64 final
// the gap between items from 4.7% to 2.5% of the span (about one trace record's own cost) and 1.0192 (0.982 -> 1.000x
// cuDNN); 1.0009 at N2048 D64 GQA; 0.9929 at N8192 D64, where items are 16 times longer and ptxas schedules the
// consumers' inner loop differently.
struct WsSlotItem {
  int qt, bh, b, kvh;
};
template <class K>
__device__ __forceinline__ void ws_slot_put_item(WsSlot s, WsSlotItem it, uint32_t* phase) {
  mbar_wait(s.empty, ((*phase >> WS_SLOT_BIT) & 1u) ^ 1u);
  *phase ^= 1u << WS_SLOT_BIT;
  asm volatile("st.volatile.shared.v4.s32 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_u32(s.item)), "r"(it.qt), "r"(it.bh),
               "r"(it.b), "r"(it.kvh) : "memory");
  mbar_arrive(s.full);
}
template <class K>
__device__ __forceinline__ WsSlotItem ws_slot_take_item(WsSlot s, uint32_t* phase) {
  mbar_wait(s.full, (*phase >> WS_SLOT_BIT) & 1u);
  *phase ^= 1u << WS_SLOT_BIT;
  WsSlotItem it;
  asm volatile("ld.volatile.shared.v4.s32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(it.qt), "=r"(it.bh), "=r"(it.b), "=r"(it.kvh) : "r"(smem_u32(s.item)) : "memory");
  ws_release<K>(s.empty, threadIdx.x % 32);
  if constexpr (K::WARP_UNIFORM)  // (as ws_slot_take)
    it = {__shfl_sync(0xffffffffu, it.qt, 0), __shfl_sync(0xffffffffu, it.bh, 0), __shfl_sync(0xffffffffu, it.b, 0),
          __shfl_sync(0xffffffffu, it.kvh, 0)};
  return it;
}

// FA_LAST_ROUND=1: the last items of the dynamic schedule's list split along the keys. The launch (fa_fwd.cu,
// last_round_split) picks R, the items at the end of the list to split, and k, each into S = 2^k pieces of the key
// blocks, from the grid: the list then holds its T - R whole items and R S pieces, piece j of split item w at index
// T - R + w S + j. A piece's word, w << 10 | j << 5 | k (0 for a whole item), rides in Item::split (fa_fwd.cu: item_of);
// the decoded slot hands it to the consumers in its K/V-head field, which they do not read. Piece j covers key blocks
// [j nkv / S, (j + 1) nkv / S). Every piece but the last (j = S - 1, the last of the item's pieces claimed) writes each
// consumer warp's fp32 partials (its threads' O accumulators, row maxima and row sums, unnormalised) to the
// launch's workspace and counts itself on the warp's counter; the last piece's warp waits for the count S - 1, puts
// the counter back to zero for the next launch, merges the partials into its own accumulators as the tail split
// does, and stores the item's rows. A piece waits only on pieces claimed before it, by CTAs that run their items in
// the order they claimed them, so every wait ends.
// Hypothesis: at B2 H16 N8192 D64 (1,376 items of 192 rows on 132 SMs: 10.4 rounds) the last round holds 56 items
// and 76 SMs idle for an item's time: ncu read the SMs active 94.2% of the elapsed cycles on an H100 (cuDNN: 96.1%,
// results/2026-12-06_h100_key_tile_176/anatomy). Split in halves, the last round's 112 pieces end half an item
// earlier: 11 -> 10.5 rounds, ~4%; at N32768 D128 (4,096 items, 4 in the last round) 32 pieces each, ~3%; at N8192
// D128 8 pieces, ~1.6%. Not bitwise: the split rows' sums in another order. H100 (results/2026-12-06_h100_last_round,
// the first model): the SMs active 94.3% -> 98.2% of the elapsed at N8192 D64, but the active cycles up 3.5% (each
// merge reads its other pieces' partials back from L2, and waits): 1.0109 on the decoded-slot kernel; 1.0212 at N32768
// D128 on the persistent kernel; 0.9907 and 0.9637 with 8 pieces at N8192 and N4096 D128, which the refitted model
// (fa_fwd.cu: last_round_split) no longer splits. Without the decoded slot, on the suite's best (`_el_sl_lr`): 0.9896 at
// N8192 D64; the refit's 16 pieces at N32768 D128: 1.0206 (results/2026-12-06_h100_turn_cycle).
//
// FA_LAST_ROUND=2 (key_stream, the static schedule): the R items at the end of the list that leave the last round
// short are not items any more but one stream of R nkv key blocks, dealt out in equal shares after the whole items: CTA
// c takes blocks [c q, c q + q) of it, q = ceil(R nkv / grid) <= nkv (fa_fwd.cu: last_round_stream), so its share
// holds at most one item boundary: the end of item w (its piece with the item's last block, which merges) and the
// start of item w + 1 (a piece that only writes its partials). The CTA runs the start of w + 1 first, then the end of w,
// so a merge waits only on pieces that their CTAs run before any wait: every wait ends. The piece's word is
// (w + 1) | q << 16; its range and the CTAs holding the item's other pieces follow from blockIdx.x (ws_stream_piece).
// Each CTA has one partials slot (the piece that does not merge). Hypothesis: at B2 H16 N8192 D128 (2,048 items of 64
// blocks on 132 SMs: 15.5 rounds) the key split cannot fill the last round (halves: 136 pieces for 132 SMs; the model's
// quarters end at 15.9 rounds), and the 68 items' 4,352 blocks in shares of 33 end at 15.5 rounds and two pieces' cost.
constexpr int WS_PIECE_CNT = 16;       // a split item's counters: one per consumer warp (at most 16)
constexpr int WS_PIECE_ITEMS = 1024;   // the most split items a launch has: the workspace's counters come first
struct WsStreamPiece {
  int w, lo, hi, first;  // the item, its key blocks [lo, hi) in this piece, the first CTA holding a piece of it
};
__device__ __forceinline__ WsStreamPiece ws_stream_piece(int piece, int nkv) {
  const int w = (piece & 0xffff) - 1, q = piece >> 16, a = (int)blockIdx.x * q - w * nkv;
  return {w, max(a, 0), min(a + q, nkv), w * nkv / q};
}
template <class K, bool CAUSAL>
__device__ __forceinline__ void ws_piece_range(int piece, int nkv, int* lo, int* hi) {
  *lo = 0;
  *hi = nkv;
  if constexpr (K::LAST_ROUND == LAST_ROUND_KEY_SPLIT && !CAUSAL) {
    const int k = piece & 31, j = (piece >> 5) & 31;
    if (k) {
      *lo = (j * nkv) >> k;
      *hi = ((j + 1) * nkv) >> k;
    }
  } else if constexpr (K::LAST_ROUND == LAST_ROUND_KEY_STREAM && !CAUSAL) {
    if (piece) {
      const WsStreamPiece sp = ws_stream_piece(piece, nkv);
      *lo = sp.lo;
      *hi = sp.hi;
    }
  }
  (void)piece;
}
// the floats of one split item's partials: S - 1 pieces of every consumer warp's threads' O, maxima and sums
template <class K, int D>
__host__ __device__ constexpr size_t ws_piece_floats(int S) {
  return (size_t)(S - 1) * K::WARPS * (D / 8 * 4 + 4) * 32;
}

// FA_TAIL_ROWS=2: after the ring's barriers, the "partials read" mbarrier (one arrival per warp of the warpgroups helped;
// 16 bytes with its pad), then the helping warpgroup's partials: per warpgroup helped and per thread, O's DT x 4
// accumulators, the rows' two maxima and two sums, as floats at a stride of 128 (thread-major: no bank conflict).
// tile.cuh's smem_bytes (and kernel_src/knobs.py's) count them.
template <class K>
__device__ __forceinline__ uint64_t* ws_tail_done(WsBars bars) {
  return bars.kfull + 4 * K::KV_STAGES + (K::Q_LOAD ? 2 * q_tiles<K>() : 0);
}
template <class K>
__device__ __forceinline__ float* ws_tail_part(WsBars bars) {
  return reinterpret_cast<float*>(ws_tail_done<K>(bars) + 2);
}

template <class K>
__device__ __forceinline__ void ws_init_barriers(void* base, unsigned char* end) {
  constexpr int NS = K::KV_STAGES;
  const WsBars b = WsBars::at<NS>(base);
  for (int i = 0; i < NS; ++i) {
    mbar_init(b.kfull + i, 1);
    mbar_init(b.vfull + i, 1);
    mbar_init(b.kempty + i, K::WARPS);
    mbar_init(b.vempty + i, K::WARPS);
  }
  if constexpr (K::Q_LOAD) {
#pragma unroll
    for (int q = 0; q < q_tiles<K>(); ++q) {  // FA_ITEM_STREAM=1, FA_Q_BUFFERS=2: a pair per Q tile
      mbar_init(b.qfull + 2 * q, 1);
      mbar_init(b.qempty + 2 * q, K::WARPS);
    }
  }
  if constexpr (K::TAIL_ROWS == TAIL_ROWS_SPLIT) mbar_init(ws_tail_done<K>(b), K::WARPS - 4);
  if constexpr (K::SCHEDULE == SCHEDULE_DYNAMIC) {
    const WsSlot s = WsSlot::at(end);
    mbar_init(s.full, 1);
    mbar_init(s.empty, K::WARPS);
  }
  (void)end;
  mbar_init_fence();
}

// The producer: one thread issues the item's K and V tiles in order, each once the stage's empty barrier
// says every consumer warp is done with the buffer's previous fill (fill n of a stage waits for phase
// n - 1, parity (n & 1) ^ 1; a fresh barrier reads the phase before the first as complete). The producer
// thread's bit s of *phase is the parity of stage s's fill count across the CTA's items (a register, where
// a per-stage count array indexed at run time would live in local memory); the consumers' bits count their
// V waits the same way.
template <class K, typename T, int D>
__device__ __forceinline__ void ws_produce(T* Qs, T* Ks, T* Vs, int q0, int kb_lo, int kb_hi, const TmaSrc& tma,
                                           const void* tmq, int zq, WsBars bars, bool split = false) {
  constexpr int NS = K::KV_STAGES, KV_TILE = K::BC * D;
  if (threadIdx.x != K::THREADS) return;
  [[maybe_unused]] int rot = 0;  // FA_ITEM_STREAM=1: the stage of this item's first block
  if constexpr (K::ITEM_STREAM) {
    // this item's Q into tile n & 1, once every consumer warp is done with that tile's last fill (item n - 2's)
    const uint32_t n = *tma.phase >> WS_ITEMS_SHIFT, q = n & 1u, par = ((n >> 1) & 1u) ^ 1u;
    rot = (*tma.phase >> WS_ROT_SHIFT) & 3u;
    mbar_wait(bars.qempty + 2 * q, par);
    mbar_expect_tx(bars.qfull + 2 * q, K::BR * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h)
      tma_load_box(Qs + q * K::BR * D + h * K::BR * 64, tmq, bars.qfull + 2 * q, h * 64, q0, zq);
    const uint32_t next_rot = (uint32_t)(rot + kb_hi - kb_lo) % NS;
    *tma.phase = (*tma.phase & ((1u << WS_ROT_SHIFT) - 1u)) | (next_rot << WS_ROT_SHIFT) | ((n + 1u) << WS_ITEMS_SHIFT);
  } else if constexpr (K::Q_BUFFERS == 2) {
    // FA_Q_BUFFERS=2: item n's Q into tile n & 1 (full/empty pair 2(n & 1)) once every consumer warp is done with
    // that tile's last fill, item n - 2's: long done, so the load goes out as soon as the producer has issued the
    // previous item's K and V, blocks before that item ends. Bits 16-31 of the phase word count the items begun.
    const uint32_t n = *tma.phase >> WS_ITEMS_SHIFT, q = n & 1u, par = ((n >> 1) & 1u) ^ 1u;
    *tma.phase += 1u << WS_ITEMS_SHIFT;
    mbar_wait(bars.qempty + 2 * q, par);
    mbar_expect_tx(bars.qfull + 2 * q, K::BR * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h)
      tma_load_box(Qs + q * K::BR * D + h * K::BR * 64, tmq, bars.qfull + 2 * q, h * 64, q0, zq);
  } else if constexpr (K::Q_LOAD) {
    // this item's Q tile, once every consumer warp is done with the last one (item n waits for the
    // empty barrier's phase n - 1; rows past N land as zeros)
    const uint32_t par = ((*tma.phase >> WS_Q_BIT) & 1u) ^ 1u;
    *tma.phase ^= 1u << WS_Q_BIT;
    mbar_wait(bars.qempty, par);
    mbar_expect_tx(bars.qfull, K::BR * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h) tma_load_box(Qs + h * K::BR * 64, tmq, bars.qfull, h * 64, q0, zq);
  }
  (void)Qs; (void)q0; (void)tmq; (void)zq;
  [[maybe_unused]] uint64_t pol = 0;  // FA_KV_L2_HINT=1: the K/V loads' evict-last policy
  if constexpr (K::KV_L2_HINT) pol = l2_evict_last();
  for (int kb = kb_lo; kb < kb_hi; ++kb) {
    const int st = NS > 1 ? (K::ITEM_STREAM ? (rot + kb - kb_lo) % NS : (kb - kb_lo) % NS) : 0;
    // FA_TAIL_ROWS=2, a split item: the last block first (the helper's), then the others in order
    const int blk = split ? (kb == kb_lo ? kb_hi - 1 : kb - 1) : kb;
    const uint32_t par = ((*tma.phase >> st) & 1u) ^ 1u;  // this thread's phase bits count its fills
    *tma.phase ^= 1u << st;
    mbar_wait(bars.kempty + st, par);
    mbar_expect_tx(bars.kfull + st, K::BC * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h)
      if constexpr (K::KV_L2_HINT) {
        tma_load_box_hint(Ks + st * KV_TILE + h * K::BC * 64, tma.k, bars.kfull + st, h * 64, blk * K::BC, tma.z, pol);
      } else {
        tma_load_box(Ks + st * KV_TILE + h * K::BC * 64, tma.k, bars.kfull + st, h * 64, blk * K::BC, tma.z);
      }
    mbar_wait(bars.vempty + st, par);
    mbar_expect_tx(bars.vfull + st, K::BC * D * (int)sizeof(T));
#pragma unroll
    for (int h = 0; h < D / 64; ++h)
      if constexpr (K::KV_L2_HINT) {
        tma_load_box_hint(Vs + st * KV_TILE + h * K::BC * 64, tma.v, bars.vfull + st, h * 64, blk * K::BC, tma.z, pol);
      } else {
        tma_load_box(Vs + st * KV_TILE + h * K::BC * 64, tma.v, bars.vfull + st, h * 64, blk * K::BC, tma.z);
      }
  }
}

// One of P's exponentials, the E-th of a thread's four scores of an 8-key n-tile (E 0, 1: row rowa; 2, 3: row
// rowb): MUFU.EX2, or with FA_EXP_POLY the cubic on the FMA pipe for one in four (quarter) or one in two (half)
// (softmax.cuh: pexp). At D=64 a block's exponentials cost the MUFU pipe about as long as its two GEMMs cost the
// tensor pipe (FlashAttention-4 moves a share of them to the FMA pipe); off, the same instructions as before.
template <class K, int E>
__device__ __forceinline__ float ws_exp(float x) {
  if constexpr (K::EXP_POLY != EXP_POLY_OFF) return pexp<K, E>(x);
  else return fexp<EXP_EX2>(x);
}

// FA_ROW_MAX=1: the maximum of W values as a tree of pairwise FMNMX, in place (v[0] holds it): depth ceil(log2 W)
// where the running max is W dependent FMNMX. The maximum is exact and fmaxf is associative and commutative (a NaN
// is dropped in any order), so the result is the running max's, bit for bit.
template <int W>
struct TreeMax {
  template <int N>
  static __device__ __forceinline__ void run(float (&v)[N]) {
#pragma unroll
    for (int i = 0; i < W / 2; ++i) v[i] = fmaxf(v[i], v[i + (W + 1) / 2]);
    TreeMax<(W + 1) / 2>::run(v);
  }
};
template <>
struct TreeMax<1> {
  template <int N>
  static __device__ __forceinline__ void run(float (&)[N]) {}
};

// Mask (MASK: a block crossing N or, causal, the diagonal of the warpgroup's rows), the running max and
// the exponentials in place: s becomes the block's unnormalised P in fp32 and l gains its row sums; alpha
// is each row's factor for O before this block's PV. Rows rowa and rowb of the thread; scores in raw units,
// sc = scale x log2(e), so each exponential is one FFMA and one MUFU.EX2.
//
// FA_ROW_MAX=1 shortens the chain every exponential of the block waits for (from the block's last QK^T to its first
// MUFU): the row max as a tree (TreeMax), and the lazy test selecting between the two exponents -m*sc, both formed
// beside it, where the chain form computes the test, then selects the max, then forms its exponent. The same values
// either way (bitwise the same). Hypothesis, from a per-instruction ncu at N512 D64 (results/2026-12-02_h200_short_ncu,
// call 2): FMNMX carries 10-11% of the consumers' warp samples, a third of them `wait`, the chain's latency; at short
// N (4 key blocks an item) each item's first softmax runs under nothing of its own warpgroup.
//
// MID_WAIT (FA_P_PACK=2, overlapped): the wait for every wgmma group (the previous block's PV) halfway through the
// exponentials, so that P can be packed into its one buffer beside the second half of them.
//
// FA_RESCALE_FACTOR=1: the factors alpha = exp2((m_old - m_new) c) are 2 of a thread's BC/2 + 2 MUFU.EX2 a block (3%
// at BC=128), and after a row's first blocks its max rarely rises (with the lazy rescale, rarely by more than its
// threshold), so most blocks' factors are exactly 1. A vote (one VOTE.ANY and a warp-uniform branch) skips their
// exponentials in a warp where no row's max rose. Hypothesis: where the MUFU pipe binds (D=64: ncu at N512 read the
// XU pipe at 47% of its peak, at or above the tensor pipe, results/2026-12-03_h200_q_buffers) up to 3% of it comes
// back, 0.5-1.5% of the kernel's time; null at D=128, where the tensor pipe binds. Not measured yet.
// RS: the row sums are the tensor cores' (row_sum_mma): l is left alone
template <class K, bool CAUSAL, bool MASK, int NT, bool MID_WAIT = false, bool RS = false>
__device__ __forceinline__ void ws_softmax(float (&s)[NT][4], float (&m)[2], float (&l)[2], float (&alpha)[2], int k0,
                                           int rowa, int rowb, int t, int N, float sc) {
  float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float v = s[j][e];
      if constexpr (MASK) {
        const int col = k0 + j * 8 + 2 * t + (e & 1), row = e < 2 ? rowa : rowb;
        if ((FA_DEFECT != DEF_NO_TAIL_MASK && col >= N) || (CAUSAL && col > row + (FA_DEFECT == DEF_CAUSAL_OFF_BY_ONE)))
          v = -INFINITY;
      }
      s[j][e] = v;
      if constexpr (K::ROW_MAX == ROW_MAX_CHAIN) mx[e >> 1] = fmaxf(mx[e >> 1], v);
    }
  if constexpr (K::ROW_MAX == ROW_MAX_TREE) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float v[NT];
#pragma unroll
      for (int j = 0; j < NT; ++j) v[j] = fmaxf(s[j][2 * h], s[j][2 * h + 1]);
      TreeMax<NT>::run(v);
      mx[h] = v[0];
    }
  }
  float nm[2];
  if constexpr (K::RESCALE_FACTOR != RESCALE_FACTOR_ALWAYS) {
    // The same maxima, exponents and factors as below; the factors' two MUFU.EX2 are issued only where a row of the
    // warp raised its max (or has seen nothing but masked keys), and are 1 elsewhere, as exp2(0) is. A body of the
    // two MUFU and l's update is predicated by ptxas (when_raised_predicated: each MUFU still issued, its lanes off);
    // with the exponents formed inside too ptxas branches around it (when_raised: a BRA in the SASS,
    // tests/test_ws_mainloop.py), at the cost of m_old and the new max live across the vote.
    constexpr bool BRANCH = K::RESCALE_FACTOR == RESCALE_FACTOR_WHEN_RAISED;
    float a[2], b[2];  // when_raised: m_old and the new max (0 for a row masked so far); else m_old - that, and 0
    bool raised = false;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 2));
      float mnew;
      if constexpr (K::ROW_MAX == ROW_MAX_TREE) {
        const float up = fmaxf(m[h], mx[h]);
        mnew = lazy_keeps<K>(m[h], up, sc) ? m[h] : up;
      } else {
        mnew = new_max<K>(m[h], mx[h], sc);
      }
      const float meff = mnew == -INFINITY ? 0.f : mnew;
      if constexpr (BRANCH) {
        a[h] = m[h];
        b[h] = meff;
        raised |= mnew != m[h] || m[h] == -INFINITY;
      } else {
        a[h] = m[h] - meff;  // 0 where the max stayed, -inf in a row masked so far
        b[h] = 0.f;
        raised |= a[h] != 0.f;
      }
      nm[h] = -meff * sc;
      m[h] = mnew;
    }
    if (__any_sync(0xffffffff, raised)) {  // else every factor is exp2(0) = 1: l * 1 is l
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        alpha[h] = fexp<EXP_EX2>((a[h] - b[h]) * sc);
        if constexpr (!RS) l[h] *= alpha[h];
      }
    } else {
      alpha[0] = alpha[1] = 1.f;
    }
  } else {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 2));
      if constexpr (K::ROW_MAX == ROW_MAX_TREE) {
        // the chain form's values: both candidate exponents formed beside the lazy test, which selects last
        const float up = fmaxf(m[h], mx[h]);
        const bool keep = lazy_keeps<K>(m[h], up, sc);
        const float mnew = keep ? m[h] : up;
        const float meff = mnew == -INFINITY ? 0.f : mnew;
        alpha[h] = fexp<EXP_EX2>((m[h] - meff) * sc);
        nm[h] = keep ? -(m[h] == -INFINITY ? 0.f : m[h]) * sc : -(up == -INFINITY ? 0.f : up) * sc;
        m[h] = mnew;
      } else {
        const float mnew = new_max<K>(m[h], mx[h], sc);
        const float meff = mnew == -INFINITY ? 0.f : mnew;  // a row masked so far: no NaN
        alpha[h] = fexp<EXP_EX2>((m[h] - meff) * sc);
        m[h] = mnew;
        nm[h] = -meff * sc;
      }
      if constexpr (!RS) l[h] *= alpha[h];
    }
  }
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    if (MID_WAIT && j == NT / 2) wg_wait<0>();
    s[j][0] = ws_exp<K, 0>(fmaf(s[j][0], sc, nm[0]));
    s[j][1] = ws_exp<K, 1>(fmaf(s[j][1], sc, nm[0]));
    s[j][2] = ws_exp<K, 2>(fmaf(s[j][2], sc, nm[1]));
    s[j][3] = ws_exp<K, 3>(fmaf(s[j][3], sc, nm[1]));
    if constexpr (!RS) {  // (FA_ROW_SUM=1: the tensor cores add P up beside PV)
      l[0] += s[j][0] + s[j][1];
      l[1] += s[j][2] + s[j][3];
    }
  }
}

// The pieces of a key block every consumer loop shares (ws_consume, ws_consume_stream): S = Q K^T of one K stage into
// s, as one asynchronous wgmma group; O += P V of one V stage; O's rescale by alpha; the block's P packed to T.
// FA_DESC_MATH=1: the block's first descriptor of each operand built once, the others at a constant offset from it
// (wg_desc_at). Hypothesis: ncu at N512 D64 (results/2026-12-04_h200_n512_policy21, the three-warpgroup kernel) runs
// four to six uniform-datapath instructions before each HGMMA (UIADD3, ULOP3, USHF, ULOP3, UMOV: the address, its mask
// and shift, the layout bits), 14.6% of the instructions executed, against cuDNN's 11.2%
// (results/2026-12-02_h200_softmax_chain); a chain ahead of each HGMMA and issue slots taken from the softmax's warps.
// With the offsets constant (the start row of a warpgroup's rows is a multiple of 8, where the swizzle is the identity)
// the descriptors are the same: bitwise the same output. Not yet measured (results/2026-12-05_cpu_desc_math).
template <class K, typename T, int D>
__device__ __forceinline__ void ws_qk(float (&s)[K::BC / 8][4], const T* Qt, const T* Kb, int wg) {
  [[maybe_unused]] uint64_t da0 = 0, db0 = 0;
  if constexpr (K::DESC_MATH == DESC_MATH_HOISTED) {
    da0 = wg_desc(Qt + sw128_el(wg * 64, 0, K::BR), 16, 1024);
    db0 = wg_desc(Kb, 16, 1024);
  }
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const uint64_t da = K::DESC_MATH == DESC_MATH_HOISTED
                            ? wg_desc_at(da0, sw128_el(0, kk * 16, K::BR) * (uint32_t)sizeof(T))
                            : wg_desc(Qt + sw128_el(wg * 64, kk * 16, K::BR), 16, 1024);
    const uint64_t db = K::DESC_MATH == DESC_MATH_HOISTED
                            ? wg_desc_at(db0, sw128_el(0, kk * 16, K::BC) * (uint32_t)sizeof(T))
                            : wg_desc(Kb + sw128_el(0, kk * 16, K::BC), 16, 1024);
    if constexpr (K::BC == 64) wgmma_ss_n64<0, T>(&s[0][0], da, db, kk > 0);
    else if constexpr (K::BC == 128) wgmma_ss_n128<0, T>(&s[0][0], da, db, kk > 0);
    else if constexpr (K::BC == 176) wgmma_ss_n176<0, T>(&s[0][0], da, db, kk > 0);
    else wgmma_ss_n192<0, T>(&s[0][0], da, db, kk > 0);
  }
  wg_commit();
}
// FA_ROW_SUM=1: ls, the four accumulators of P times the tile of ones at `ones` (every column of a row is its sum of P),
// one m64n8k16 after each 16 keys' PV, in the same group
template <class K, typename T, int D>
__device__ __forceinline__ void ws_pv(float (&o)[D / 8][4], const uint32_t (&p)[K::BC / 8][2], const T* Vb,
                                      float* ls = nullptr, const T* ones = nullptr) {
  [[maybe_unused]] uint64_t dv0 = 0, d1 = 0;
  if constexpr (K::DESC_MATH == DESC_MATH_HOISTED) dv0 = wg_desc(Vb, K::BC * 128, 1024);
  if constexpr (row_sum_mma<K, T>()) d1 = wg_desc(ones, 16, 1024);  // every k step reads the same ones
  // V's descriptor at element offset e of the stage (FA_DESC_MATH=1: at a constant from the first)
  auto dv = [&](int e) {
    return K::DESC_MATH == DESC_MATH_HOISTED ? wg_desc_at(dv0, e * (uint32_t)sizeof(T)) : wg_desc(Vb + e, K::BC * 128, 1024);
  };
#pragma unroll
  for (int kk = 0; kk < K::BC / 16; ++kk) {
    const uint32_t a[4] = {p[2 * kk][0], p[2 * kk][1], p[2 * kk + 1][0], p[2 * kk + 1][1]};
    if constexpr (K::PV_WIDE && D == 128) {
      // one m64n128k16 across both 64-column slabs of V: the descriptor's leading offset (MN-major) steps
      // from one slab to the next, as it already says for the N=64 form
      wgmma_rs_n128<1, T>(&o[0][0], a, dv(kk * 16 * 64), 1);
    } else {
#pragma unroll
      for (int h = 0; h < D / 64; ++h)
        wgmma_rs_n64<1, T>(&o[h * 8][0], a, dv(h * K::BC * 64 + kk * 16 * 64), 1);
    }
    if constexpr (row_sum_mma<K, T>()) wgmma_rs_n8<T>(ls, a, d1);
  }
  (void)ls, (void)ones;
  wg_commit();
}
// FA_P_IN=1: the same PV with P read from the warpgroup's P tile (K-major, 128-byte swizzled, 64 rows) by descriptor.
// Hypothesis: with no P register live while the next block's scores accumulate, the 176-key tile keeps the QK^T
// overlap on three consumer warpgroups at D=64 without spilling (with P in registers: 364-676 B, ptxas); the cost is
// the stmatrix of P and a warpgroup barrier a block.
template <class K, typename T, int D>
__device__ __forceinline__ void ws_pv_ss(float (&o)[D / 8][4], const T* Pt, const T* Vb, float* ls = nullptr,
                                         const T* ones = nullptr) {
  const uint64_t dp0 = wg_desc(Pt, 16, 1024);
  [[maybe_unused]] uint64_t dv0 = 0, d1 = 0;
  if constexpr (K::DESC_MATH == DESC_MATH_HOISTED) dv0 = wg_desc(Vb, K::BC * 128, 1024);
  if constexpr (row_sum_mma<K, T>()) d1 = wg_desc(ones, 16, 1024);
  auto dv = [&](int e) {
    return K::DESC_MATH == DESC_MATH_HOISTED ? wg_desc_at(dv0, e * (uint32_t)sizeof(T)) : wg_desc(Vb + e, K::BC * 128, 1024);
  };
#pragma unroll
  for (int kk = 0; kk < K::BC / 16; ++kk) {
    const uint64_t dp = wg_desc_at(dp0, sw128_el(0, kk * 16, 64) * (uint32_t)sizeof(T));
    if constexpr (K::PV_WIDE && D == 128) {
      wgmma_ss_n128<1, T>(&o[0][0], dp, dv(kk * 16 * 64), 1);
    } else {
#pragma unroll
      for (int h = 0; h < D / 64; ++h) wgmma_ss_n64<1, T>(&o[h * 8][0], dp, dv(h * K::BC * 64 + kk * 16 * 64), 1);
    }
    if constexpr (row_sum_mma<K, T>()) wgmma_ss_n8<T>(ls, dp, d1);
  }
  (void)ls, (void)ones;
  wg_commit();
}
// FA_P_IN=1: P, packed, into the warpgroup's tile by stmatrix (the accumulators' layout, as ws_store_o writes O), then
// visible to the async proxy and to the warpgroup's other warps before any of them issues the PV that reads it
template <class K, typename T>
__device__ __forceinline__ void ws_store_p(T* Pt, const uint32_t (&p)[K::BC / 8][2], int wg) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, m = lane >> 3;
  const int row = (warp % 4) * 16 + (m & 1) * 8 + (lane & 7);
#pragma unroll
  for (int i = 0; i < K::BC / 16; ++i)  // key n-tiles 2i and 2i + 1: rows 0-7 and 8-15 of each
    stmatrix_x4(Pt + sw128_el(row, (2 * i + (m >> 1)) * 8, 64), p[2 * i][0], p[2 * i][1], p[2 * i + 1][0], p[2 * i + 1][1]);
  proxy_fence();
  named_sync_wg(wg);
}
template <class K, int DT, bool RS = false>
__device__ __forceinline__ void ws_rescale(float (&o)[DT][4], const float (&alpha)[2], float* ls = nullptr) {
  bool go = true;
  if constexpr (K::RESCALE_SKIP) go = __any_sync(0xffffffff, alpha[0] != 1.f || alpha[1] != 1.f);
  if (go && FA_DEFECT != DEF_DROPPED_RESCALE) {
    if constexpr (RS) {  // the row sums with O (columns 1 and 3 are never read)
      ls[0] *= alpha[0];
      ls[2] *= alpha[1];
    }
#pragma unroll
    for (int i = 0; i < DT; ++i) {
      o[i][0] *= alpha[0]; o[i][1] *= alpha[0];
      o[i][2] *= alpha[1]; o[i][3] *= alpha[1];
    }
  }
  (void)ls;
}
template <typename T, int NT>
__device__ __forceinline__ void ws_pack(uint32_t (&p)[NT][2], const float (&s)[NT][4]) {
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    p[j][0] = Pack<T>::two(s[j][0], s[j][1]);
    p[j][1] = Pack<T>::two(s[j][2], s[j][3]);
  }
}

// FA_O_STORE=1, the epilogue of one consumer warpgroup: its 64 rows of O, normalised and in the input dtype, into
// its slab of the O tile (D/64 128-byte-swizzled 64 x 64 boxes) by stmatrix, then one thread stores them by TMA
// (rows past N are not written) and the warpgroup goes on; before the slab is written again that thread waits
// until the last store has read it. Hypothesis: the direct epilogue, 2 D/8 4-byte stores a thread, is 7.8% of
// the consumers' warp-state samples at N2048 D128 (lg throttle and long scoreboard; ncu SourceCounters,
// results/2026-12-01_h200_item_stream), once per item: a per-item cost that a short item pays in full.
template <class K, typename T, int D>
__device__ __forceinline__ void ws_store_o(const float (&o)[D / 8][4], float inv0, float inv1, T* Os, const void* tmo,
                                           int q0, int zq) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wg = ws_wg<K>(warp), wt = threadIdx.x % 128;
  // FA_O_STORE=2: Os is the Q tile (D/64 boxes of BR x 64), and the warpgroup's slab its rows wg*64.. of each box
  constexpr int ROWS = K::O_STORE == 2 ? K::BR : 64;
  T* slab = Os + wg * 64 * (K::O_STORE == 2 ? 64 : D);
  if constexpr (K::WARP_UNIFORM) bulk_wait_read_if(wt == 0);  // the previous item's store has read the slab
  else if (wt == 0) bulk_wait<0, true>();
  named_sync_wg(wg);
  const int m = lane >> 3, row = (warp % 4) * 16 + (m & 1) * 8 + (lane & 7);
#pragma unroll
  for (int i = 0; i < D / 16; ++i) {  // n-tiles 2i and 2i + 1: rows 0-7 and 8-15 of each
    if (FA_DEFECT == DEF_PARTIAL_WRITE && i == D / 16 - 1) continue;
    stmatrix_x4(slab + sw128_el(row, (2 * i + (m >> 1)) * 8, ROWS), Pack<T>::two(o[2 * i][0] * inv0, o[2 * i][1] * inv0),
                Pack<T>::two(o[2 * i][2] * inv1, o[2 * i][3] * inv1),
                Pack<T>::two(o[2 * i + 1][0] * inv0, o[2 * i + 1][1] * inv0),
                Pack<T>::two(o[2 * i + 1][2] * inv1, o[2 * i + 1][3] * inv1));
  }
  proxy_fence();  // the generic proxy's writes, visible to the TMA store
  named_sync_wg(wg);
  if constexpr (K::WARP_UNIFORM) {
    const bool issue = wt == 0 && FA_DEFECT != DEF_NO_WRITE;
#pragma unroll
    for (int h = 0; h < D / 64; ++h) tma_store_box_if(tmo, slab + h * ROWS * 64, h * 64, q0 + wg * 64, zq, issue);
    bulk_commit_if(issue);
  } else if (wt == 0 && FA_DEFECT != DEF_NO_WRITE) {
#pragma unroll
    for (int h = 0; h < D / 64; ++h) tma_store_box(tmo, slab + h * ROWS * 64, h * 64, q0 + wg * 64, zq);
    bulk_commit();
  }
}

// The item's epilogue, every consumer loop's: the row sums across the quad, 1/l, O in the input dtype (4-byte stores
// from the accumulators, or FA_O_STORE=1's stmatrix and TMA store), the LSE in natural-log units.
template <class K, typename T, int D>
__device__ __forceinline__ void ws_epilogue(const float (&o)[D / 8][4], const float (&m)[2], float (&l)[2], float sc,
                                            T* out, int o_rs, float* lse, int rowa, int rowb, int t, int N, T* Qs,
                                            const void* tmo, int q0, int zq) {
  constexpr int DT = D / 8;
  if constexpr (!row_sum_mma<K, T>()) {  // (FA_ROW_SUM=1: each thread's l is its rows' whole sum)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[h] += __shfl_xor_sync(0xffffffff, l[h], 1);
      l[h] += __shfl_xor_sync(0xffffffff, l[h], 2);
    }
  }
  const float inv0 = 1.f / l[0], inv1 = 1.f / l[1];
  if constexpr (K::O_STORE) {
    ws_store_o<K, T, D>(o, inv0, inv1, K::O_STORE == 2 ? Qs : Qs + K::BR * q_tiles<K>() * D, tmo, q0, zq);
  } else {
#pragma unroll
    for (int i = 0; i < DT; ++i) {
      if (FA_DEFECT == DEF_NO_WRITE || (FA_DEFECT == DEF_PARTIAL_WRITE && i == DT - 1)) continue;
      const int c = i * 8 + 2 * t;
      if (rowa < N) store_u32<K::STORE>(out + (size_t)rowa * o_rs + c, Pack<T>::two(o[i][0] * inv0, o[i][1] * inv0));
      if (rowb < N) store_u32<K::STORE>(out + (size_t)rowb * o_rs + c, Pack<T>::two(o[i][2] * inv1, o[i][3] * inv1));
    }
  }
  (void)Qs; (void)tmo; (void)q0; (void)zq;
  constexpr float LN2 = 0.69314718055994531f;
  if (t == 0) {
    if (rowa < N) lse[rowa] = (m[0] * sc + log2f(l[0])) * LN2;
    if (rowb < N) lse[rowb] = (m[1] * sc + log2f(l[1])) * LN2;
  }
}

// The consumers: warpgroup wg owns query rows [q0 + 64 wg, q0 + 64 wg + 64); each thread rows g and g + 8
// of its warp's 16, and of every 8-key n-tile two columns (mma.sync's C map, which wgmma's accumulators use).
// FA_TAIL_ROWS=1: a consumer warpgroup whose 64 query rows all lie past N (the last item of a head when BR does not
// divide N: at N512 with three consumer warpgroups, BR 192, the third of every head's third item) keeps pace on the
// barriers the producer and the other warpgroups count on, and computes nothing: the Q-full wait, each block's K-full
// and V-full waits, each followed by its release, Q released after the last block's K, as the loops below do. Its
// rows are past N, so it has nothing to store. Hypothesis: at N512, BR 192, a ninth of the warpgroups' item work is
// rows past N, and in the items that hold it the other two warpgroups get the tensor cores and the MUFU pipe to
// themselves; three warpgroups at N512 D64 ran 0.942x cuDNN (results/2026-12-03_h200_p_pack). Not yet measured.
template <class K>
__device__ __forceinline__ void ws_idle(int kb_lo, int kb_hi, const TmaSrc& tma, WsBars bars) {
  constexpr int NS = K::KV_STAGES;
  const int lane = threadIdx.x % 32;
  auto release = [&](uint64_t* bar) { ws_release<K>(bar, lane); };
  [[maybe_unused]] uint64_t* qempty = bars.qempty;
  if constexpr (K::Q_BUFFERS == 2) {  // item n's Q tile n & 1, as ws_consume
    const uint32_t n = *tma.phase >> WS_ITEMS_SHIFT;
    *tma.phase += 1u << WS_ITEMS_SHIFT;
    qempty = bars.qempty + 2 * (n & 1u);
    mbar_wait(bars.qfull + 2 * (n & 1u), (n >> 1) & 1u);
    if (kb_lo >= kb_hi) release(qempty);
  } else if constexpr (K::Q_LOAD) {
    mbar_wait(bars.qfull, (*tma.phase >> WS_Q_BIT) & 1u);
    *tma.phase ^= 1u << WS_Q_BIT;
    if (kb_lo >= kb_hi) release(bars.qempty);
  }
  for (int kb = kb_lo; kb < kb_hi; ++kb) {
    const int st = NS > 1 ? (kb - kb_lo) % NS : 0;
    const uint32_t par = (*tma.phase >> st) & 1u;
    mbar_wait(bars.kfull + st, par);
    release(bars.kempty + st);
    if constexpr (K::Q_BUFFERS == 2) {
      if (kb + 1 >= kb_hi) release(qempty);
    } else if constexpr (K::Q_LOAD) {
      if (kb + 1 >= kb_hi) release(bars.qempty);
    }
    mbar_wait(bars.vfull + st, par);
    *tma.phase ^= 1u << st;
    release(bars.vempty + st);
  }
}

// A thread's partials of the same rows from another run over other keys merged into its own: O and l, each side times
// exp2((its max - the new max) sc). part(v): value v of the other's, in the order O's DT x 4 accumulators, the two
// maxima, the two sums (the tail split's helper through shared memory, the key split's other pieces through L2).
template <int DT, class Part>
__device__ __forceinline__ void ws_merge(float (&o)[DT][4], float (&m)[2], float (&l)[2], float sc, Part&& part) {
  float a[2], b[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float pm = part(DT * 4 + h), pl = part(DT * 4 + 2 + h);
    const float mn = fmaxf(m[h], pm), meff = mn == -INFINITY ? 0.f : mn;
    a[h] = fexp<EXP_EX2>((m[h] - meff) * sc);
    b[h] = fexp<EXP_EX2>((pm - meff) * sc);
    l[h] = l[h] * a[h] + pl * b[h];
    m[h] = mn;
  }
#pragma unroll
  for (int i = 0; i < DT; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[i][e] = o[i][e] * a[e >> 1] + part(i * 4 + e) * b[e >> 1];
}

// FA_TAIL_ROWS=2: in an item whose last consumer warpgroup alone lies past N (no mask, two key blocks or more: ws_split),
// that warpgroup (the helper) takes the item's last key block for the rows of every other warpgroup, which stop one
// block short, and hands them its unnormalised O, row max and row sum through shared memory (ws_tail_part); they merge it
// before the store (ws_consume). The producer loads that block first, into stage 0, and the others' blocks after it
// (stage (kb + 1) mod stages), so the helper starts with the others. It computes the block for each row group in turn
// from fresh state (its K released after the last QK^T, its V after the last PV), writes its partials once the previous
// split item's have been read (the "partials read" mbarrier, parity in bit WS_TAIL_BIT of its phase word), arrives on
// named barrier 7, where the others wait before their store, and keeps pace on the later stages' barriers as ws_idle
// does. (The last block in its own turn, call 2 of results/2026-12-04_h200_tail_split: 0.93 at N512 D64, the helper
// waiting for its stage.)
// Hypothesis: at B16 H16 N512 D64 (BR 192) a head's last tile is 128 rows whose item costs 0.82 of a full one
// (results/2026-12-04_cpu_n512_bound): two warpgroups doing 4 blocks each with the third idle. Split, the three share
// the 8 warpgroup-blocks (3, 3 and 2), so the tail item should cost about 2/3 of a full one; on the bound's schedule the
// busiest CTA (4 full + 2 tail items) falls ~4%. Not bitwise: the tail rows' sums in another order. H200: a negative,
// 0.953 at N512 D64 and 0.988 at N2048 D64 GQA against the idle tail (results/2026-12-04_h200_tail_split).
template <class K, bool CAUSAL>
__device__ __forceinline__ bool ws_split(int q0, int N, int kb_lo, int kb_hi) {
  constexpr int NWG = K::WARPS / 4;
  return K::TAIL_ROWS == TAIL_ROWS_SPLIT && !CAUSAL && NWG >= 2 && q0 + (NWG - 1) * 64 >= N &&
         q0 + (NWG - 2) * 64 < N && kb_hi - kb_lo >= 2;
}
template <class K, typename T, int D, bool CAUSAL>
__device__ __forceinline__ void ws_tail_help(int N, float scale, T* Qs, T* Ks, T* Vs, int q0, int kb_lo, int kb_hi,
                                             const TmaSrc& tma, WsBars bars) {
  constexpr int NT = K::BC / 8, DT = D / 8, NS = K::KV_STAGES, KV_TILE = K::BC * D, NWG = K::WARPS / 4;
  constexpr int PF = DT * 4 + 4;  // a thread's floats a warpgroup helped
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wt = threadIdx.x % 128;
  const int g = lane >> 2, t = lane & 3;
  const float sc = FA_DEFECT == DEF_WRONG_SCALE ? scale * 1.0625f : scale;
  auto release = [&](uint64_t* bar) { ws_release<K>(bar, lane); };
  [[maybe_unused]] T* Qi = Qs;
  [[maybe_unused]] uint64_t* qempty = bars.qempty;
  if constexpr (K::Q_BUFFERS == 2) {  // item n's Q tile n & 1, as ws_consume
    const uint32_t n = *tma.phase >> WS_ITEMS_SHIFT;
    *tma.phase += 1u << WS_ITEMS_SHIFT;
    Qi = Qs + (n & 1u) * K::BR * D;
    qempty = bars.qempty + 2 * (n & 1u);
    mbar_wait(bars.qfull + 2 * (n & 1u), (n >> 1) & 1u);
  } else {
    mbar_wait(bars.qfull, (*tma.phase >> WS_Q_BIT) & 1u);
    *tma.phase ^= 1u << WS_Q_BIT;
  }
  const int last = kb_hi - 1;  // the block the helper computes: the item's last, which the producer loads first
  constexpr int st = 0;
  const uint32_t par = (*tma.phase >> st) & 1u;
  mbar_wait(bars.kfull + st, par);
  mbar_wait(ws_tail_done<K>(bars), ((*tma.phase >> WS_TAIL_BIT) & 1u) ^ 1u);  // a fresh barrier passes parity 1
  *tma.phase ^= 1u << WS_TAIL_BIT;
  float* part = ws_tail_part<K>(bars);
  float o[DT][4];
  uint32_t p[NT][2];
#pragma unroll 1
  for (int rg = 0; rg < NWG - 1; ++rg) {
    float s[NT][4], alpha[2], m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    wg_fence();
    ws_qk<K, T, D>(s, K::Q_BUFFERS == 2 ? Qi : Qs, Ks + st * KV_TILE, rg);
    wg_wait<0>();
    if (rg == NWG - 2) {
      release(bars.kempty + st);
      release(qempty);
    }
    const int ra = q0 + rg * 64 + (warp % 4) * 16 + g;
    if (last * K::BC + K::BC > N) ws_softmax<K, CAUSAL, true>(s, m, l, alpha, last * K::BC, ra, ra + 8, t, N, sc);
    else ws_softmax<K, CAUSAL, false>(s, m, l, alpha, last * K::BC, ra, ra + 8, t, N, sc);
    ws_pack<T>(p, s);
    if (rg == 0) {
      mbar_wait(bars.vfull + st, par);
      *tma.phase ^= 1u << st;
    }
#pragma unroll
    for (int i = 0; i < DT; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
    wg_fence();
    ws_pv<K, T, D>(o, p, Vs + st * KV_TILE);
    wg_wait<0>();
    if (rg == NWG - 2) release(bars.vempty + st);
    float* w = part + rg * PF * 128 + wt;
#pragma unroll
    for (int i = 0; i < DT; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) w[(i * 4 + e) * 128] = o[i][e];
    w[(DT * 4) * 128] = m[0];
    w[(DT * 4 + 1) * 128] = m[1];
    w[(DT * 4 + 2) * 128] = l[0];
    w[(DT * 4 + 3) * 128] = l[1];
  }
  named_arrive<7, 128 * NWG>();  // the partials are written
  for (int kb = kb_lo + 1; kb < kb_hi; ++kb) {  // the others' blocks: pace on the barriers only
    const int sk = NS > 1 ? (kb - kb_lo) % NS : 0;
    mbar_wait(bars.kfull + sk, (*tma.phase >> sk) & 1u);
    release(bars.kempty + sk);
    mbar_wait(bars.vfull + sk, (*tma.phase >> sk) & 1u);
    *tma.phase ^= 1u << sk;
    release(bars.vempty + sk);
  }
}

template <class K, typename T, int D, bool CAUSAL>
__device__ __forceinline__ void ws_consume(const T* Qg, int q_rs, Dest<T> dst, int N, float scale, T* Qs, T* Ks, T* Vs, int q0,
                                           int kb_lo, int kb_item_hi, const TmaSrc& tma, WsBars bars,
                                           const void* tmo = nullptr, int zq = 0, int piece = 0, int kb_ofs = 0) {
  constexpr int NT = K::BC / 8, DT = D / 8, NS = K::KV_STAGES, KV_TILE = K::BC * D;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wg = ws_wg<K>(warp);
  // FA_TAIL_ROWS=2 (ws_tail_help): where the tail is split the other warpgroups stop one key block short. The test as a
  // warp vote: q0 lives in per-thread registers (the item's decode divides), and a loop bound that ptxas cannot prove
  // uniform moved every address of the key-block loop off the uniform datapath (R2UR 10 -> 32 in the loop's SASS,
  // 0.915 at N512 D64 and 0.912 at N2048 D64 GQA on the H200: results/2026-12-04_h200_tail_split call 1)
  bool split = false;
  if constexpr (K::TAIL_ROWS == TAIL_ROWS_SPLIT && !CAUSAL)
    split = __all_sync(0xffffffffu, ws_split<K, CAUSAL>(q0, N, kb_lo, kb_item_hi));
  const int kb_hi = kb_item_hi - (split ? 1 : 0), rot = split ? 1 : 0, kb0 = kb_lo;  // rot: the stage of block kb_lo
  if constexpr (K::TAIL_ROWS != TAIL_ROWS_COMPUTE) {
    if (q0 + wg * 64 >= N) {
      if constexpr (K::TAIL_ROWS == TAIL_ROWS_SPLIT) {
        if (split) {
          ws_tail_help<K, T, D, CAUSAL>(N, scale, Qs, Ks, Vs, q0, kb_lo, kb_item_hi, tma, bars);
          return;
        }
      }
      ws_idle<K>(kb_lo, kb_item_hi, tma, bars);
      return;
    }
  }
  const int g = lane >> 2, t = lane & 3;
  const int rowa = q0 + wg * 64 + (warp % 4) * 16 + g, rowb = rowa + 8;
  const float sc = FA_DEFECT == DEF_WRONG_SCALE ? scale * 1.0625f : scale;  // log2(e) folded in by the host

  // Q: this warpgroup's 64 rows, by its own 128 threads (no other warpgroup reads them), then its own
  // named barrier (4 + wg). The barrier before the copies orders them after the previous item's reads.
  // FA_Q_LOAD=1: the producer's TMA copy of the whole tile, waited for on the Q-full barrier.
  // FA_Q_BUFFERS=2: item n's Q is tile n & 1 (Qi), its full/empty pair 2(n & 1); bits 16-31 of the phase word count
  // the items begun, as the producer's.
  [[maybe_unused]] T* Qi = Qs;
  [[maybe_unused]] uint64_t* qempty = bars.qempty;
  if constexpr (K::Q_BUFFERS == 2) {
    const uint32_t n = *tma.phase >> WS_ITEMS_SHIFT;
    *tma.phase += 1u << WS_ITEMS_SHIFT;
    Qi = Qs + (n & 1u) * K::BR * D;
    qempty = bars.qempty + 2 * (n & 1u);
    mbar_wait(bars.qfull + 2 * (n & 1u), (n >> 1) & 1u);
  } else if constexpr (K::Q_LOAD) {
    mbar_wait(bars.qfull, (*tma.phase >> WS_Q_BIT) & 1u);
    *tma.phase ^= 1u << WS_Q_BIT;
  } else {
    const int wt = threadIdx.x % 128;
    constexpr int CH = D / 8, PER = 64 * CH / 128;
    if (K::PERSISTENT) named_sync_wg(wg);
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      const int idx = wt + i * 128, r = wg * 64 + idx / CH, c = (idx % CH) * 8;
      const bool ok = q0 + r < N;
      cp_async16(Qs + sw128_el(r, c, K::BR), Qg + (size_t)(ok ? q0 + r : 0) * q_rs + c, ok ? 16 : 0);
    }
    cp_async_commit();
    cp_async_wait_all();
    proxy_fence();
    named_sync_wg(wg);
  }
  trace_mark(MARK_Q_READY);  // (FA_ITEM_TRACE=1 alone: trace.cuh)

  float o[DT][4];
#pragma unroll
  for (int i = 0; i < DT; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  uint32_t p[NT][2];  // P of the block whose PV is next, packed to T, two values a register
  // FA_ROW_SUM=1: the rows' sums of P on the tensor cores (ws_pv), from the tile of ones after the V tiles
  constexpr bool RS = row_sum_mma<K, T>();
  [[maybe_unused]] float ls[4] = {0.f, 0.f, 0.f, 0.f};
  [[maybe_unused]] const T* ones = Vs + KV_TILE * NS;

  auto stage_of = [&](int kb) { return NS > 1 ? (kb - kb_lo + rot) % NS : 0; };
  auto parity = [&](int kb) { return (*tma.phase >> stage_of(kb)) & 1u; };
  auto release = [&](uint64_t* bar) { ws_release<K>(bar, lane); };
  // Ping-pong turns (see fa_fwd.cu's body_mma for the protocol's bookkeeping; the same here): warpgroup 0
  // waits on barrier 2, warpgroup 1 on 3; each arrives on the other's after its issue, except warpgroup 1
  // after its last turn of the item.
  // FA_TURN_CYCLE=1, three warpgroups: warpgroup w waits on barrier B(w) (2, 3, 8) and arrives on B(w + 1 mod 3) after
  // its issue, except warpgroup 2 after its last turn of the item, which instead arrives on B(0) as the item begins.
  // Each warpgroup takes the same number of turns an item (tail_rows=compute), so every wait is matched by one
  // arrival, and an arrival on B(w) comes only after warpgroup w has passed its previous wait there (the cycle in
  // between), so no barrier ever holds two arrivals from one warpgroup.
  auto turn_begin = [&] {
    if constexpr (K::PINGPONG) {
      if (wg == 0) named_sync<2, 256>();
      else named_sync<3, 256>();
    } else if constexpr (K::TURN_CYCLE) {
      if (wg == 0) named_sync<2, 256>();
      else if (wg == 1) named_sync<3, 256>();
      else named_sync<8, 256>();
    }
  };
  auto turn_end = [&](bool more) {
    if constexpr (K::PINGPONG) {
      if (wg == 0) named_arrive<3, 256>();
      else if (more || K::PINGPONG_HANDOFF == PINGPONG_HANDOFF_LAST_TURN) named_arrive<2, 256>();
    } else if constexpr (K::TURN_CYCLE) {
      if (wg == 0) named_arrive<3, 256>();
      else if (wg == 1) named_arrive<8, 256>();
      else if (more) named_arrive<2, 256>();
    }
    (void)more;
  };
  if constexpr (K::PINGPONG && K::PINGPONG_HANDOFF == PINGPONG_HANDOFF_LAST_TURN) {
    // FA_PINGPONG_HANDOFF=1: warpgroup 1 starts the cycle once a CTA (bit WS_HANDOFF_BIT of its phase word); after that
    // its last turn of each item hands over warpgroup 0's first turn of the next. Hypothesis: at an item's start warpgroup
    // 0 waited for warpgroup 1's epilogue (ncu at N8192 D128: the persistent kernel's extra warp samples on the turns'
    // waits, results/2026-12-06_h100_turn_cycle). H100 (results/2026-12-06_h100_pingpong_handoff): 1.0031 on the
    // persistent static kernel, 0.9999 on the dynamic one; one item a CTA 0.9732 (the last handoff left unanswered as
    // each CTA exits).
    if (wg == 1 && kb_lo < kb_hi && !((*tma.phase >> WS_HANDOFF_BIT) & 1u)) {
      named_arrive<2, 256>();
      *tma.phase |= 1u << WS_HANDOFF_BIT;
    }
  } else if constexpr (K::PINGPONG) {
    if (wg == 1 && kb_lo < kb_hi) named_arrive<2, 256>();
  } else if constexpr (K::TURN_CYCLE) {
    if (wg == 2 && kb_lo < kb_hi) named_arrive<2, 256>();
  }
  auto qk_issue = [&](int kb, float (&s)[NT][4]) {
    ws_qk<K, T, D>(s, K::Q_BUFFERS == 2 ? Qi : Qs, Ks + stage_of(kb) * KV_TILE, wg);
  };
  [[maybe_unused]] T* Pt = ws_p_tile<K, T, D>(Vs, wg);  // FA_P_IN=1: this warpgroup's P tile
  auto pv_issue = [&](int kb) {
    if constexpr (K::P_IN == P_IN_SMEM) ws_pv_ss<K, T, D>(o, Pt, Vs + stage_of(kb) * KV_TILE, ls, ones);
    else ws_pv<K, T, D>(o, p, Vs + stage_of(kb) * KV_TILE, ls, ones);
  };
  auto wait_k = [&](int kb) { mbar_wait(bars.kfull + stage_of(kb), parity(kb)); };
  // after the item's last QK^T has completed, this warp is done with Q (FA_Q_LOAD=1: the producer may load
  // the next item's)
  auto release_q = [&](int kb) {
    if constexpr (K::Q_BUFFERS == 2) {
      if (kb + 1 >= kb_hi) release(qempty);
    } else if constexpr (K::Q_LOAD) {
      if (kb + 1 >= kb_hi) release(bars.qempty);
    }
    (void)kb;
  };
  auto wait_v = [&](int kb) {  // V's wait ends the stage's use: its parity bit flips
    mbar_wait(bars.vfull + stage_of(kb), parity(kb));
    *tma.phase ^= 1u << stage_of(kb);
  };
  auto rescale = [&](const float (&alpha)[2]) { ws_rescale<K, DT, RS>(o, alpha, ls); };
  auto pack = [&](const float (&s)[NT][4]) {
    ws_pack<T>(p, s);
    if constexpr (K::P_IN == P_IN_SMEM) ws_store_p<K, T>(Pt, p, wg);  // the previous PV has completed
  };
  // this warpgroup's first row: blocks that end at or before it hold no masked score for the warpgroup
  const int wg_row0 = q0 + wg * 64;
  // FA_LAST_ROUND=1: a piece's blocks counted from 0 here, at key block kofs of the item (ws_item)
  const int kofs = K::LAST_ROUND != LAST_ROUND_WHOLE && !CAUSAL ? kb_ofs : 0;
  auto edge = [&](int kb) { return (kb + kofs) * K::BC + K::BC > N || (CAUSAL && (kb + kofs) * K::BC + K::BC - 1 > wg_row0); };
  auto run_softmax = [&](float (&s)[NT][4], int kb, float (&alpha)[2]) {
    if (edge(kb)) ws_softmax<K, CAUSAL, true, NT, false, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
    else ws_softmax<K, CAUSAL, false, NT, false, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
  };
  // FA_P_PACK=1: the softmax and P's packing in one basic block (each side of the edge test), so that ptxas can
  // place the F2FP among the exponentials; into pn, which no wgmma in flight reads
  auto softmax_pack = [&](float (&s)[NT][4], int kb, float (&alpha)[2], uint32_t (&pn)[NT][2]) {
    if (edge(kb)) {
      ws_softmax<K, CAUSAL, true, NT, false, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
      ws_pack<T>(pn, s);
    } else {
      ws_softmax<K, CAUSAL, false, NT, false, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
      ws_pack<T>(pn, s);
    }
  };
  // FA_P_PACK=2 under the overlap: the same with the previous PV's wait halfway through the exponentials, one buffer
  auto softmax_pack_mid = [&](float (&s)[NT][4], int kb, float (&alpha)[2]) {
    if (edge(kb)) {
      ws_softmax<K, CAUSAL, true, NT, true, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
      ws_pack<T>(p, s);
    } else {
      ws_softmax<K, CAUSAL, false, NT, true, RS>(s, m, l, alpha, (kb + kofs) * K::BC, rowa, rowb, t, N, sc);
      ws_pack<T>(p, s);
    }
  };
  auto pv_from = [&](int kb, const uint32_t (&pp)[NT][2]) {
    if constexpr (K::P_IN == P_IN_SMEM) ws_pv_ss<K, T, D>(o, Pt, Vs + stage_of(kb) * KV_TILE, ls, ones);
    else ws_pv<K, T, D>(o, pp, Vs + stage_of(kb) * KV_TILE, ls, ones);
  };
  // the overlapped loops' ends: the first block's QK^T alone, waited for; the last PV (from P buffer pp), waited for
  auto first_qk = [&](float (&s)[NT][4]) {
    wait_k(kb0);
    trace_mark(MARK_K0_READY);  // (FA_ITEM_TRACE=1 alone: trace.cuh)
    turn_begin();
    wg_fence();
    qk_issue(kb0, s);
    turn_end(true);
    wg_wait<0>();
    release(bars.kempty + stage_of(kb0));
    release_q(kb0);
  };
  auto last_pv = [&](const uint32_t (&pp)[NT][2]) {
    wait_v(kb_hi - 1);
    turn_begin();
    wg_fence();
    pv_from(kb_hi - 1, pp);
    turn_end(false);
    wg_wait<0>();
    release(bars.vempty + stage_of(kb_hi - 1));
  };

  if constexpr (K::TAIL_ROWS == TAIL_ROWS_SPLIT) {
    if (split) {  // stage 0 holds the item's last block, the helper's: released like every other warp's
      mbar_wait(bars.kfull, *tma.phase & 1u);
      release(bars.kempty);
      mbar_wait(bars.vfull, *tma.phase & 1u);
      *tma.phase ^= 1u;
      release(bars.vempty);
    }
  }
  if (kb_lo >= kb_hi) release_q(kb_hi);  // no block: Q is free at once
  if (kb_lo < kb_hi) {
    if constexpr (K::PIPELINE && K::P_PACK == P_PACK_WITH_EXP) {
      // the overlap with P double-buffered: block kb's softmax packs into the buffer that PV(kb-2) read (done at
      // the last step's wait for every group), while PV(kb-1) reads the other; two steps a trip, so that each
      // buffer is a fixed set of registers
      uint32_t pa[NT][2], pb[NT][2];
      {
        float s[NT][4], alpha[2];
        first_qk(s);
        softmax_pack(s, kb0, alpha, pa);
      }
      auto step = [&](int kb, const uint32_t (&pp)[NT][2], uint32_t (&pn)[NT][2]) {
        float s[NT][4], alpha[2];
        wait_k(kb);
        wait_v(kb - 1);
        turn_begin();
        wg_fence();
        qk_issue(kb, s);      // S(kb) on the tensor cores ...
        pv_from(kb - 1, pp);  // ... then O += P(kb-1) V(kb-1)
        turn_end(true);
        wg_wait<1>();  // S(kb) done; PV may still run
        release(bars.kempty + stage_of(kb));
        release_q(kb);
        softmax_pack(s, kb, alpha, pn);  // under PV(kb-1), into the other buffer
        wg_wait<0>();
        release(bars.vempty + stage_of(kb - 1));
        rescale(alpha);
      };
      int kb = kb0 + 1;
      for (; kb + 1 < kb_hi; kb += 2) {
        step(kb, pa, pb);
        step(kb + 1, pb, pa);
      }
      const bool odd = kb < kb_hi;  // one step left: its P lands in pb
      if (odd) step(kb, pa, pb);
      if constexpr (CAUSAL) {
        // the last PV from pa, where the odd step's P is moved by selects: two PV issue sites, one in a branch, make
        // ptxas serialise every wgmma of the causal build (C7520; at causal N1024 GQA ncu read barrier stalls 2.8
        // against 0.6 without the packing, 0.61-0.77x cuDNN: results/2026-12-03_h200_agent_suite). The non-causal
        // build, which ptxas does not serialise, keeps the two sites it was measured with.
#pragma unroll
        for (int i = 0; i < NT; ++i) {
          pa[i][0] = odd ? pb[i][0] : pa[i][0];
          pa[i][1] = odd ? pb[i][1] : pa[i][1];
        }
      }
      wait_v(kb_hi - 1);
      turn_begin();
      wg_fence();
      if (!CAUSAL && odd) pv_from(kb_hi - 1, pb);  // the last PV from the buffer its block's softmax wrote
      else pv_from(kb_hi - 1, pa);
      turn_end(false);
      wg_wait<0>();
      release(bars.vempty + stage_of(kb_hi - 1));
    } else if constexpr (K::PIPELINE) {
      // the first block: QK^T alone; its P waits in registers for the PV issued with the next QK^T
      {
        float s[NT][4], alpha[2];
        first_qk(s);
        if constexpr (K::P_PACK == P_PACK_MID_WAIT) {
          softmax_pack(s, kb0, alpha, p);  // no PV in flight yet
        } else {
          run_softmax(s, kb0, alpha);
          pack(s);
        }
      }
      for (int kb = kb0 + 1; kb < kb_hi; ++kb) {
        float s[NT][4], alpha[2];
        wait_k(kb);
        wait_v(kb - 1);
        turn_begin();
        wg_fence();
        qk_issue(kb, s);   // S(kb) on the tensor cores ...
        pv_issue(kb - 1);  // ... then O += P(kb-1) V(kb-1)
        turn_end(true);
        wg_wait<1>();  // S(kb) done; PV may still run
        release(bars.kempty + stage_of(kb));
        release_q(kb);
        if constexpr (K::P_PACK == P_PACK_MID_WAIT) {
          softmax_pack_mid(s, kb, alpha);  // under PV(kb-1) until halfway, then P packed beside the rest
          release(bars.vempty + stage_of(kb - 1));
          rescale(alpha);
        } else {
          run_softmax(s, kb, alpha);  // under PV(kb-1)
          wg_wait<0>();
          release(bars.vempty + stage_of(kb - 1));
          rescale(alpha);
          pack(s);
        }
      }
      last_pv(p);
    } else {
      // one block at a time: QK^T, softmax, PV, each waited for (the overlap's control)
      for (int kb = kb0; kb < kb_hi; ++kb) {
        float s[NT][4], alpha[2];
        wait_k(kb);
        turn_begin();
        wg_fence();
        qk_issue(kb, s);
        turn_end(true);
        wg_wait<0>();
        release(bars.kempty + stage_of(kb));
        release_q(kb);
        if constexpr (K::P_PACK != P_PACK_AFTER) {
          softmax_pack(s, kb, alpha, p);  // no PV in flight: P's one buffer is free
          rescale(alpha);
        } else {
          run_softmax(s, kb, alpha);
          rescale(alpha);
          pack(s);
        }
        wait_v(kb);
        turn_begin();
        wg_fence();
        pv_issue(kb);
        turn_end(kb + 1 < kb_hi);
        wg_wait<0>();
        release(bars.vempty + stage_of(kb));
      }
    }
  }

  trace_mark(MARK_MAIN_DONE);  // (FA_ITEM_TRACE=1 alone: trace.cuh)
  if constexpr (K::TAIL_ROWS == TAIL_ROWS_SPLIT) {
    if (split) {
      // the helper's partials for these rows merged: O and l, each side times exp2((its max - the new max) sc)
      named_sync<7, 128 * (K::WARPS / 4)>();
      constexpr int PF = DT * 4 + 4;
      const float* r = ws_tail_part<K>(bars) + wg * PF * 128 + threadIdx.x % 128;
      ws_merge<DT>(o, m, l, sc, [&](int v) { return r[v * 128]; });
      release(ws_tail_done<K>(bars));  // read: the helper may write the next split item's
    }
  }
  if constexpr (RS) {
    l[0] = ls[0];
    l[1] = ls[2];
  }
  if constexpr (K::LAST_ROUND != LAST_ROUND_WHOLE && !CAUSAL) {
    // a piece of a split item (ws_piece_range): its partials out, or the merge of the others' by the item's last piece
    // (key_split: the last claimed; key_stream: the one with the item's last block, ws_stream_piece)
    constexpr bool STREAM = K::LAST_ROUND == LAST_ROUND_KEY_STREAM;
    const int k = piece & 31;
    if (STREAM ? piece != 0 : k != 0) {
      constexpr int PF = DT * 4 + 4;
      int w, own, first, others;  // the item; this piece's partials slot; the item's other pieces' slots
      bool out_only;
      size_t area;  // the item's slots (key_split) or every CTA's (key_stream)
      if constexpr (STREAM) {
        const int nkv = kv_blocks<K, CAUSAL>(q0, N);
        const WsStreamPiece sp = ws_stream_piece(piece, nkv);
        w = sp.w, own = (int)blockIdx.x, first = sp.first, others = own - first, out_only = sp.hi < nkv, area = 0;
      } else {
        const int j = (piece >> 5) & 31, S = 1 << k;
        w = piece >> 10, own = j, first = 0, others = S - 1, out_only = j < S - 1;
        area = (size_t)w * ws_piece_floats<K, D>(S);
      }
      unsigned* cnt = reinterpret_cast<unsigned*>(dst.part_o) + w * WS_PIECE_CNT + warp;
      float* parts = dst.part_o + WS_PIECE_ITEMS * WS_PIECE_CNT + area + lane;
      if (out_only) {
        float* out = parts + (size_t)(own * K::WARPS + warp) * PF * 32;
#pragma unroll
        for (int i = 0; i < DT; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e) __stcg(out + (i * 4 + e) * 32, o[i][e]);
        __stcg(out + (DT * 4) * 32, m[0]);
        __stcg(out + (DT * 4 + 1) * 32, m[1]);
        __stcg(out + (DT * 4 + 2) * 32, l[0]);
        __stcg(out + (DT * 4 + 3) * 32, l[1]);
        __threadfence();
        __syncwarp();
        if (lane == 0) atomicAdd(cnt, 1u);
        return;  // the last piece stores the item's rows
      }
      if (lane == 0) {
        unsigned seen;
        do {
          asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(cnt) : "memory");
        } while (seen < (unsigned)others);
        *cnt = 0u;  // every other piece has counted: back to zero for the next launch
      }
      __syncwarp();
      __threadfence();
      for (int p = 0; p < others; ++p) {
        const float* r = parts + (size_t)((first + p) * K::WARPS + warp) * PF * 32;
        ws_merge<DT>(o, m, l, sc, [&](int v) { return __ldcg(r + v * 32); });
      }
    }
  }
  (void)piece;
  ws_epilogue<K, T, D>(o, m, l, sc, dst.o, dst.o_rs, dst.lse, rowa, rowb, t, N, Qs, tmo, q0, zq);
}

// One work item of the warp-specialised mainloop, for the caller's role.
// FA_LAST_ROUND=1: piece, the slot's word for a piece of a split item (0: the whole item), and dst.part_o the launch's
// workspace (ws_piece_range).
template <class K, typename T, int D, bool CAUSAL, int ROLE>
__device__ __forceinline__ void ws_item(const T* Qg, int q_rs, Dest<T> dst, int N, float scale, T* Qs, T* Ks, T* Vs, int q0,
                                        const TmaSrc& tma, const void* tmq, int zq, const void* tmo = nullptr,
                                        int piece = 0) {
  const WsBars bars = WsBars::at<K::KV_STAGES>(ws_bars_base<K, T, D>(Vs));
  const int nkv = kv_blocks<K, CAUSAL>(q0, N);
  if constexpr (K::LAST_ROUND != LAST_ROUND_WHOLE && !CAUSAL) {
    int lo, hi;
    ws_piece_range<K, CAUSAL>(piece, nkv, &lo, &hi);
    if constexpr (ROLE == ROLE_PRODUCER)
      ws_produce<K, T, D>(Qs, Ks, Vs, q0, lo, hi, tma, tmq, zq, bars);
    else
      ws_consume<K, T, D, CAUSAL>(Qg, q_rs, dst, N, scale, Qs, Ks, Vs, q0, 0, hi - lo, tma, bars, tmo, zq, piece, lo);
    return;
  }
  (void)piece;
  if constexpr (ROLE == ROLE_PRODUCER)
    ws_produce<K, T, D>(Qs, Ks, Vs, q0, 0, nkv, tma, tmq, zq, bars, ws_split<K, CAUSAL>(q0, N, 0, nkv));
  else
    ws_consume<K, T, D, CAUSAL>(Qg, q_rs, dst, N, scale, Qs, Ks, Vs, q0, 0, nkv, tma, bars, tmo, zq);
}


// FA_ITEM_STREAM=1, the consumers' side of the static persistent schedule: the CTA's items (c, c + grid, ...)
// run as one stream of key blocks. At an item's end the next item's first QK^T is issued with this item's last
// PV (one ping-pong turn, as any other block), the next item's first softmax runs under that PV, and this item's
// 1/l and stores come after it, under the other warpgroup's GEMMs; the next item's Q is already in the other Q
// tile (the producer loads item n's Q into tile n & 1). The K/V stages are counted across items, as the
// producer counts them, so the next item's first K is not always the stage this item's last block holds.
// Hypothesis: on short items (N <= 2048, short causal rows) the item boundary, where each consumer warpgroup
// waits for its last PV, stores, then waits for its first QK^T and runs its first softmax with the tensor
// cores idle, is several key blocks' time (N2048 D128 runs at 0.84 of N8192's TFLOP/s where cuDNN keeps
// 0.96: results/2026-12-01_h200_cudnn_anatomy). The same arithmetic per item: bitwise the same output. Measured:
// 0.90-1.03 (results/2026-12-01_h200_item_stream): the boundary moves (the stores now sit between a warpgroup's turns,
// the next item's first K is needed a block earlier from the two-stage ring) rather than going away.
template <class K, typename T, int D, bool CAUSAL>
__device__ __forceinline__ void ws_consume_stream(T* O, float* L, int N, int H, int BH, int tiles, int sect, float scale,
                                                  T* Qs, T* Ks, T* Vs, const void* tmo = nullptr) {
  constexpr int NT = K::BC / 8, DT = D / 8, NS = K::KV_STAGES, KV_TILE = K::BC * D;
  static_assert(K::PIPELINE && K::Q_LOAD && K::PERSISTENT, "the item stream is the overlapped persistent mainloop's");
  const WsBars bars = WsBars::at<NS>(Vs + KV_TILE * NS);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, wg = ws_wg<K>(warp);
  const int g = lane >> 2, t = lane & 3;
  const int r0 = wg * 64 + (warp % 4) * 16 + g;  // the thread's first row in the tile (the second: + 8)
  const float sc = FA_DEFECT == DEF_WRONG_SCALE ? scale * 1.0625f : scale;  // log2(e) folded in by the host
  const int total = tiles * BH;
  uint32_t par = 0;  // bit s: the parity of this thread's next wait on stage s (flipped by each V wait)

  struct Run {
    int q0, nkv, rot, tile, z;  // first row, key blocks, the stage of its first block, its Q tile, its head (tma_z)
    size_t head;                 // (batch x head) x N: the item's rows of O and L
  };
  auto run_of = [&](int i, int rot, int n) {
    const Item it = decode<K>(i, tiles, BH, sect);
    const int q0 = it.qt * K::BR;
    return Run{q0, kv_blocks<K, CAUSAL>(q0, N), rot, n & 1, tma_z(it.bh / H, it.bh % H), (size_t)it.bh * N};
  };
  auto stage = [&](const Run& r, int kb) { return NS > 1 ? (r.rot + kb) % NS : 0; };
  auto release = [&](uint64_t* bar) { ws_release<K>(bar, lane); };
  auto turn_begin = [&] {
    if constexpr (K::PINGPONG) {
      if (wg == 0) named_sync<2, 256>();
      else named_sync<3, 256>();
    }
  };
  auto turn_end = [&](bool more) {  // every turn of the stream hands over, except warpgroup 1's last
    if constexpr (K::PINGPONG) {
      if (wg == 0) named_arrive<3, 256>();
      else if (more) named_arrive<2, 256>();
    }
    (void)more;
  };
  auto qk_issue = [&](const Run& r, int kb, float (&s)[NT][4]) {
    ws_qk<K, T, D>(s, Qs + r.tile * K::BR * D, Ks + stage(r, kb) * KV_TILE, wg);
  };
  float o[DT][4];
  uint32_t p[NT][2];  // P of the block whose PV is next, packed to T, two values a register
  auto pv_issue = [&](const Run& r, int kb) { ws_pv<K, T, D>(o, p, Vs + stage(r, kb) * KV_TILE); };
  auto wait_q = [&](const Run& r, int n) { mbar_wait(bars.qfull + 2 * r.tile, (uint32_t)(n >> 1) & 1u); };
  auto wait_k = [&](const Run& r, int kb) { mbar_wait(bars.kfull + stage(r, kb), (par >> stage(r, kb)) & 1u); };
  auto wait_v = [&](const Run& r, int kb) {  // V's wait ends the stage's use: its parity bit flips
    mbar_wait(bars.vfull + stage(r, kb), (par >> stage(r, kb)) & 1u);
    par ^= 1u << stage(r, kb);
  };
  // after the item's last QK^T has completed, this warp is done with its Q tile
  auto release_q = [&](const Run& r, int kb) {
    if (kb + 1 >= r.nkv) release(bars.qempty + 2 * r.tile);
  };
  auto softmax = [&](const Run& r, float (&s)[NT][4], int kb, float (&m)[2], float (&l)[2], float (&alpha)[2]) {
    const int rowa = r.q0 + r0, rowb = rowa + 8, wg_row0 = r.q0 + wg * 64;
    if (kb * K::BC + K::BC > N || (CAUSAL && kb * K::BC + K::BC - 1 > wg_row0))
      ws_softmax<K, CAUSAL, true>(s, m, l, alpha, kb * K::BC, rowa, rowb, t, N, sc);
    else
      ws_softmax<K, CAUSAL, false>(s, m, l, alpha, kb * K::BC, rowa, rowb, t, N, sc);
  };
  auto rescale = [&](const float (&alpha)[2]) { ws_rescale<K>(o, alpha); };
  auto pack = [&](const float (&s)[NT][4]) { ws_pack<T>(p, s); };
  auto store = [&](const Run& r, float (&m)[2], float (&l)[2]) {
    const int rowa = r.q0 + r0;
    ws_epilogue<K, T, D>(o, m, l, sc, O + r.head * D, D, L + r.head, rowa, rowa + 8, t, N, Qs, tmo, r.q0, r.z);
  };

  int i = blockIdx.x, n = 0;  // n: the items begun
  if (i >= total) return;
  Run cur = run_of(i, 0, n);
  if constexpr (K::PINGPONG) {
    if (wg == 1) named_arrive<2, 256>();
  }
#pragma unroll
  for (int d = 0; d < DT; ++d) o[d][0] = o[d][1] = o[d][2] = o[d][3] = 0.f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  {  // the stream's first block: QK^T alone; its P waits in registers for the PV issued with the next QK^T
    float s[NT][4], alpha[2];
    wait_q(cur, n);
    wait_k(cur, 0);
    turn_begin();
    wg_fence();
    qk_issue(cur, 0, s);
    turn_end(true);
    wg_wait<0>();
    release(bars.kempty + stage(cur, 0));
    release_q(cur, 0);
    softmax(cur, s, 0, m, l, alpha);
    pack(s);
  }
  for (;;) {
    for (int kb = 1; kb < cur.nkv; ++kb) {
      float s[NT][4], alpha[2];
      wait_v(cur, kb - 1);
      wait_k(cur, kb);
      turn_begin();
      wg_fence();
      qk_issue(cur, kb, s);   // S(kb) on the tensor cores ...
      pv_issue(cur, kb - 1);  // ... then O += P(kb-1) V(kb-1)
      turn_end(true);
      wg_wait<1>();  // S(kb) done; PV may still run
      release(bars.kempty + stage(cur, kb));
      release_q(cur, kb);
      softmax(cur, s, kb, m, l, alpha);  // under PV(kb-1)
      wg_wait<0>();
      release(bars.vempty + stage(cur, kb - 1));
      rescale(alpha);
      pack(s);
    }
    const int last = cur.nkv - 1, inext = i + (int)gridDim.x;
    if (inext >= total) {  // the stream's last PV
      wait_v(cur, last);
      turn_begin();
      wg_fence();
      pv_issue(cur, last);
      turn_end(false);
      wg_wait<0>();
      release(bars.vempty + stage(cur, last));
      store(cur, m, l);
      return;
    }
    // the next item's first QK^T with this item's last PV (the V wait first: with an odd block count the
    // next item's first K is this item's last stage)
    ++n;
    const Run nx = run_of(inext, (cur.rot + cur.nkv) % NS, n);
    float s[NT][4], alpha[2], mn[2] = {-INFINITY, -INFINITY}, ln[2] = {0.f, 0.f};
    wait_q(nx, n);
    wait_v(cur, last);
    wait_k(nx, 0);
    turn_begin();
    wg_fence();
    qk_issue(nx, 0, s);
    pv_issue(cur, last);
    turn_end(true);
    wg_wait<1>();
    release(bars.kempty + stage(nx, 0));
    release_q(nx, 0);
    softmax(nx, s, 0, mn, ln, alpha);  // under this item's last PV
    wg_wait<0>();
    release(bars.vempty + stage(cur, last));
    store(cur, m, l);
#pragma unroll
    for (int d = 0; d < DT; ++d) o[d][0] = o[d][1] = o[d][2] = o[d][3] = 0.f;
    m[0] = mn[0]; m[1] = mn[1]; l[0] = ln[0]; l[1] = ln[1];
    pack(s);
    cur = nx;
    i = inext;
  }
}

}  // namespace fa
