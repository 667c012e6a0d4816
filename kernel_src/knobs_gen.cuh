// GENERATED from kernel_src/knob_table.py by `python3 -m kernel_src.knob_table --write`: do not edit.
// The knobs, one entry each: the macro, its values, default and idea (the hypothesis and the H200 figures
// are beside the code that reads it; kernel_src/knobs.py validates a combination before anything builds).
//   FA_COMPUTE (0 scalar | 1 mma | 2 wgmma; default scalar): scalar CUDA-core FMAs (the seed's v0) | mma.sync
//       m16n8k16 + ldmatrix (v1) | warpgroup MMA (wgmma.mma_async, sm_90a only; one warpgroup per 64 query rows)
//   FA_LAYOUT (0 row_major | 1 swizzle | 2 pad | 3 sw128; default row_major): the Q/K/V tiles in shared memory:
//       row-major | XOR swizzle | padding | the 128-byte swizzle in 64-column tiles that wgmma's descriptors read
//       (compute=wgmma only)
//   FA_STAGING (0 scalar | 1 cp_async | 2 tma; default scalar): global -> shared: scalar 2-byte loads | 16-byte
//       cp.async | TMA (compute=wgmma only): K/V tiles by cp.async.bulk.tensor from one thread, completion on
//       mbarriers
//   FA_EXP (0 expf | 1 ex2; default expf): expf | ex2.approx with log2(e) folded into the host-side scale
//   FA_BR (an int; default 64): query rows per CTA: each warp owns 16 (BR = 16 x WARPS) or, mma.sync only, 32
//   FA_BC (16, 32, 64, 128, 176, 192; default 64): key rows per key block (176 and 192: mainloop=ws alone)
//   FA_WARPS (1, 2, 4, 8, 12; default 4): warps per CTA (the consumers', with kv_release=producer; 12: mainloop=ws
//       alone)
//   FA_KV_STAGES (1, 2, 3; default 1): K/V buffers in flight: 1 (stage K and V, wait for both) | 2, 3: a ring, K
//       and V in separate cp.async groups so QK^T starts while V is in flight
//   FA_Q_IN (0 regs | 1 smem; default regs): Q fragments held in registers across the key loop | re-read from
//       shared memory every key block
//   FA_RESCALE_SKIP (0 off | 1 on; default off): skip O *= alpha when no row of the warp changed its max (bitwise
//       the same)
//   FA_CAUSAL_MASK (0 runtime | 1 predicate | 2 split; default runtime): a runtime branch per element | the
//       predicate specialised per block kind (a function template) | the key loop split at the diagonal (type tags)
//   FA_CTA_ORDER (0 launch | 1 heaviest_first; default launch): launch order | heaviest first (longest-processing-
//       time) under causality
//   FA_MIN_CTAS (0, 1, 2, 3, 4; default 0): __launch_bounds__ minimum CTAs per SM; 0: none
//   FA_STORE (0 default | 1 cs | 2 wt; default default): the epilogue's stores: default | streaming (.cs) | write-
//       through (.wt)
//   FA_V_LOAD (0 ldmatrix_trans | 1 lds; default ldmatrix_trans): V fragments by ldmatrix.trans | by 16-bit shared
//       loads (the same bits)
//   FA_PERSISTENT (0 off | 1 on; default off): resident CTAs pull work items from a list (one CTA per item when
//       off)
//   FA_SPLIT_KV (1, 2, 4, 8; default 1): key splits per (query tile, head), merged by a combine kernel
//   FA_SOFTMAX (0 separate | 1 fused; default separate): scale, then exp(s - m) | exp2(s * c - m * c) in one FFMA,
//       the max in raw units
//   FA_KV_OVERLAP (0 off | 1 on; default off): one K and one V buffer: V(j) lands under QK^T(j), K(j+1) under
//       P(j)V(j)
//   FA_EPILOGUE (0 direct | 1 smem; default direct): 4-byte stores from the accumulators | through shared memory,
//       16-byte stores
//   FA_RESCALE_LAZY (0 off | 1 on; default off): a row's max is raised only when it grows by more than 2^8 (exact
//       after 1/l)
//   FA_PIPELINE (0 off | 1 on; default off): QK^T of block j+1 issued before the softmax of block j (needs the K/V
//       ring)
//   FA_KV_RELEASE (0 barrier | 1 last_warp | 2 producer; default barrier): what frees a K/V ring buffer: a block
//       barrier | (TMA ring) the last warp done with it refills it, no thread waits for another | a producer
//       warpgroup (128 more threads, setmaxnreg) issues every copy once a buffer's empty mbarrier says every
//       consumer warp is done with it (warp specialisation)
//   FA_PINGPONG (0 off | 1 on; default off): (kv_release=producer, two consumer warpgroups) two named barriers take
//       the warpgroups' GEMM issue in turns, so one warpgroup's softmax runs under the other's GEMMs
//   FA_COPIES (0 loop | 1 unrolled; default loop): a thread's global->shared copies of a tile: a strided loop, a
//       bounds test each | a fixed count, unrolled, from one address; the row test only in a tile that crosses N
//       (bitwise the same)
//   FA_EXP_POLY (0 off | 1 quarter | 2 half; default off): a quarter | half of P's exponentials (exp=ex2) by a
//       cubic on the FMA pipe instead of MUFU.EX2 (relative error 7.5e-5, below fp16's rounding)
//   FA_PV_SLAB (0 off | 1 on; default off): (mma.sync, no pipeline) P made and multiplied into O one 16-key slab at
//       a time, each score masked against one per-row limit (bitwise the same)
//   FA_MAINLOOP (0 general | 1 ws; default general): the one tensor-core mainloop every arm shares | the warp-
//       specialised Hopper mainloop (mainloop_sm90_ws.cuh: a TMA producer warpgroup, 2-3 wgmma consumer warpgroups
//       with setmaxnreg, separate K and V pipelines; pipeline=on its intra-warpgroup overlap, pingpong=on its
//       turns, persistent=on a static persistent schedule)
//   FA_Q_LOAD (0 cp_async | 1 tma; default cp_async): (mainloop=ws) each consumer warpgroup copies its Q rows by
//       cp.async and waits for them | the producer loads the Q tile by TMA on its own full/empty mbarrier pair, as
//       soon as the previous item's last QK^T is done (so, persistent, under that item's last softmax, PV and
//       stores)
//   FA_PV_WIDE (0 off | 1 on; default off): (mainloop=ws) O += P V, per 16 keys, as D/64 wgmma of N=64 | as one
//       wgmma of N=D (at D=64 the same instruction)
//   FA_ORDER_SECTIONS (0 off | 1 on; default off): (cta_order=heaviest_first) heaviest first across every head |
//       heaviest first within sections of heads whose K/V fill a quarter of the device's L2, one section after
//       another (bitwise the same)
//   FA_ITEM_STREAM (0 off | 1 on; default off): (mainloop=ws, persistent) the consumers start and end each item on
//       their own | run the CTA's items as one stream of key blocks: the next item's first QK^T issued with this
//       item's last PV, its softmax under that PV, this item's stores after it; Q double-buffered, the K/V stages
//       counted across items (bitwise the same)
//   FA_O_STORE (0 direct | 1 tma | 2 tma_in_q; default direct): (mainloop=ws) each thread stores its O values to
//       global memory, 4 bytes at a time | each consumer warpgroup writes its O rows to shared memory by stmatrix
//       and one thread stores them by TMA, asynchronously | the same through the warpgroup's own rows of the item's
//       Q tile, which its last QK^T has finished reading: no O tile of its own, so the 176-key tile fits (one item
//       a CTA) (bitwise the same)
//   FA_ROW_MAX (0 chain | 1 tree; default chain): (mainloop=ws) a block's row max as one running max over the
//       thread's scores of the row, and the new max's lazy test before its exponent | as a tree of pairwise maxima,
//       with both candidate exponents formed beside the test (bitwise the same)
//   FA_WS_PRODUCER_REGS (0, 40; default 0): (mainloop=ws) the producer warpgroup's registers after setmaxnreg: 0,
//       FlashAttention-3's figures (24 beside two consumer warpgroups, 32 beside three) | 40 beside two, the
//       consumers 232
//   FA_P_PACK (0 after | 1 with_exp | 2 mid_wait; default after): (mainloop=ws) a block's P is packed to the input
//       dtype after its softmax, past the rescale vote (and, overlapped, past the wait for the previous PV) | as
//       its exponentials are computed, in the softmax's own instruction stream; overlapped, into the other of two P
//       buffers | the same; overlapped, into P's one buffer, the previous PV waited for halfway through the
//       exponentials (bitwise the same)
//   FA_TAIL_ROWS (0 compute | 1 skip | 2 split; default compute): (mainloop=ws) a consumer warpgroup whose 64 query
//       rows all lie past N runs its GEMMs and softmax like the others, its stores dropped | only keeps pace on the
//       Q and K/V barriers, so the other warpgroups of the item have the tensor cores and the MUFU pipe to
//       themselves (bitwise the same) | where it is the item's last warpgroup alone (no mask, two key blocks or
//       more), takes the item's first key block for the other warpgroups' rows, which start at the second and merge
//       its partial O, max and sum from shared memory before the store (an intra-CTA split of the short item's
//       keys; not bitwise the same)
//   FA_Q_BUFFERS (1, 2; default 1): (mainloop=ws, persistent, q_load=tma) one Q tile: the producer loads the next
//       item's Q once every consumer warp has issued this item's last QK^T | two Q tiles: the next item's Q goes
//       into the other one as soon as the producer has issued this item's K/V, blocks before this item ends
//       (bitwise the same)
//   FA_ROUND_ORDER (0 in_place | 1 turned | 2 snake; default in_place): (mainloop=ws, persistent) round r of the
//       static schedule gives CTA c item r x grid + c | item r x grid + (c + r) mod grid, each round turned one CTA
//       further (a grid that a head's query tiles divide no longer gives CTA c the same tile of every head) | item
//       r x grid + c in even rounds, r x grid + grid - 1 - c in odd ones (with heaviest first, the CTA that took
//       one of a round's heaviest items takes one of the next round's lightest) (bitwise the same)
//   FA_RESCALE_FACTOR (0 always | 1 when_raised | 2 when_raised_predicated; default always): (mainloop=ws) every
//       block computes each row's rescale factor exp2((m_old - m_new) c), one MUFU.EX2 a row beside the block's
//       BC/2 a thread | a warp computes them only when one of its rows raised its max (a vote and a branch; 1
//       otherwise, which the exponential of 0 gives) | the same vote, the factors' MUFU.EX2 predicated on it as
//       ptxas compiles a small body (issued, their lanes off) (bitwise the same)
//   FA_SCHEDULE (0 static | 1 dynamic; default static): (mainloop=ws, persistent) which items a CTA runs: CTA c
//       takes items c, c + grid, ... of the CTA order, fixed at launch | CTA c starts with item c, then its
//       producer claims each next item from a global counter once it has issued this item's copies and hands it to
//       the consumers through shared memory, so a CTA whose items ran long takes fewer (bitwise the same)
//   FA_KV_L2_HINT (0 none | 1 evict_last; default none): (mainloop=ws) the producer's TMA loads of K and V carry no
//       cache hint | an L2 evict-last policy (createpolicy.fractional), so a head's K/V stays in L2 for the other
//       query tiles that read it later while Q and O stream past it (bitwise the same)
//   FA_MBAR_WAIT (0 poll | 1 suspend | 2 uniform; default poll): (staging=tma) a thread waiting on an mbarrier asks
//       again each time try_wait returns at the hardware's own time limit (139 asks a wait of the producer's in the
//       recorded N512 D64 counters) | try_wait carries a suspend-time hint of 10 ms, so the thread sleeps until the
//       phase completes | the waiting threads vote on each ask and loop back with bra.uni, so ptxas needs no
//       convergence barrier around the wait (bitwise the same)
//   FA_DESC_MATH (0 per_mma | 1 hoisted; default per_mma): (mainloop=ws) each wgmma's shared-memory descriptors are
//       built from its operand's address (an add, a mask, a shift and an or on the uniform datapath before every
//       HGMMA) | a block's first descriptor of each operand is built once and the others are it plus a constant on
//       the start-address field (bitwise the same)
//   FA_ROW_SUM (0 fadd | 1 mma; default fadd): (mainloop=ws) each row's sum of P is added up by the softmax's
//       threads (two FADD per pair of scores and a quad shuffle at the end) | by the tensor cores: every PV also
//       multiplies P by a 16 x 8 tile of ones in shared memory (one m64n8k16 per 16 keys), whose accumulators are
//       the rows' sums of P as PV reads it, rescaled with O (not bitwise: l sums P rounded to the input dtype)
//   FA_DEPENDENT_LAUNCH (0 off | 1 on; default off): (compute=wgmma) the kernel's CTAs start once the stream's
//       previous kernel has ended | it is launched with programmatic stream serialization: its CTAs may start while
//       the previous kernel's last CTAs still run, set up their barriers, and wait (griddepcontrol.wait) for that
//       kernel to complete and its writes to be visible before their first global access; each CTA lets the next
//       kernel launch as it starts (griddepcontrol.launch_dependents) (bitwise the same)
//   FA_ITEM_ORDER (0 cta_order | 1 tiles_ascending | 2 short_tiles_late; default cta_order): (mainloop=ws,
//       persistent, cta_order=launch) the persistent grid's items in launch order (a head's query tiles one after
//       another) | every head's first query tile, then every head's second, ..., so that without a mask the items a
//       short last tile leaves a warpgroup short (N512 at BR 192: 128 rows) come last, after every full one:
//       longest first, as items are claimed | launch order with each head's last query tile moved half a grid of
//       heads later, so the last items claimed are short ones while a head's K/V is still in L2 when its last tile
//       runs (bitwise the same)
//   FA_TMA_PREFETCH (0 off | 1 on; default off): (staging=tma) each tensor map reaches the TMA unit's descriptor
//       cache at its first copy, which then waits for the fetch | thread 0 prefetches every tensor map of the
//       launch (prefetch.tensormap) as the CTA starts, before it sets up the barriers (bitwise the same)
//   FA_SLOT_ITEM (0 index | 1 decoded; default index): (schedule=dynamic) the producer hands the consumers the next
//       item's index and every consumer thread decodes it (query tile, head, batch, K/V head: integer divisions,
//       each an I2F, a MUFU.RCP and an F2I on the pipe the softmax's exponentials use) between two items | the
//       producer thread decodes it as it claims it, and the consumers read the four numbers with one shared load
//       (bitwise the same)
//   FA_NEXT_PREFETCH (0 off | 1 on; default off): (slot_item=decoded) the next item's Q tile and first K/V blocks
//       reach shared memory from wherever they are when the producer loads them | as the producer claims the next
//       item it prefetches them into L2 (cp.async.bulk.prefetch.tensor), blocks before it loads them, so the loads
//       that wait for this item's Q to be released hit L2 (bitwise the same)
//   FA_P_IN (0 regs | 1 smem; default regs): (mainloop=ws) the PV reads P from the consumer's registers (wgmma's A
//       from registers) | each consumer warpgroup stores its P tile into its own 128-byte-swizzled tile of shared
//       memory (stmatrix) and the PV reads it by descriptor, so no P register is live while the next block's scores
//       accumulate: the 176-key tile with the QK^T overlap on three consumer warpgroups at D=64 (bitwise the same)
//   FA_LAST_ROUND (0 whole | 1 key_split | 2 key_stream; default whole): (mainloop=ws, persistent=on) every item is
//       a whole query tile over all keys, so when the items do not fill the last round (B2 H16 N8192 D64: 1,376
//       items on 132 SMs) the SMs without one idle for up to an item's time | the last items of the list are split
//       along the keys into 2^k pieces that other CTAs run at once, and each piece's last-claimed part merges the
//       others' fp32 partials before the store (no mask; the launch picks the items and k from the grid, or none) |
//       (schedule=static) the key blocks of the items that leave the last round short dealt out as one stream in
//       equal shares, CTA c the blocks [c q, c q + q): each CTA ends on one or two pieces of items, and an item's
//       piece with its last block merges the others' (stream-K's tail)
//   FA_TURN_CYCLE (0 off | 1 on; default off): (mainloop=ws, three consumer warpgroups) each warpgroup issues its
//       GEMMs when its own are ready, so the three may fall into step and run their softmaxes at once while the
//       tensor cores idle | the three take the tensor cores in a fixed cycle on three named barriers
//       (FlashAttention-3's scheduler barrier at D=64): warpgroup w issues a step's GEMMs after warpgroup w-1 has
//       issued its own, so the softmaxes run staggered under the others' GEMMs (bitwise the same)
//   FA_PINGPONG_HANDOFF (0 item_start | 1 last_turn; default item_start): (pingpong=on, mainloop=ws) each item's
//       turns begin afresh: warpgroup 1 lets warpgroup 0 take the item's first turn as it begins the item itself,
//       after its epilogue of the previous item and the new item's Q | the turns run on across items, as
//       FlashAttention-3's do across tiles: warpgroup 1 hands the turn over after its last turn of an item too, so
//       warpgroup 0 may issue the next item's first QK^T during warpgroup 1's epilogue (once a CTA it starts the
//       cycle; the last handoff is left unanswered as the CTA exits) (bitwise the same)
//   FA_WARP_UNIFORM (0 off | 1 on; default off): (mainloop=ws) the consumers branch on a warpgroup index read from
//       threadIdx, one lane arrives on an empty barrier and one thread issues the O store inside a branch, and
//       every thread of the static persistent producer runs the item loop: ptxas cannot prove those branches leave
//       the warp whole, so inside the persistent item loop it keeps every address and loop count per thread and
//       wraps the waits in convergence barriers | the warpgroup index is shuffled from lane 0 (provably the same
//       across the warp), those one-lane arrivals, stores and waits are predicated instructions instead of
//       branches, and the static persistent producer's idle threads leave before the item loop (bitwise the same)
#pragma once

// the build defines FA_<NAME> for every knob (kernel_src.knobs.Knobs.defines); the default otherwise
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
#ifndef FA_PV_WIDE
#define FA_PV_WIDE 0
#endif
#ifndef FA_ORDER_SECTIONS
#define FA_ORDER_SECTIONS 0
#endif
#ifndef FA_ITEM_STREAM
#define FA_ITEM_STREAM 0
#endif
#ifndef FA_O_STORE
#define FA_O_STORE 0
#endif
#ifndef FA_ROW_MAX
#define FA_ROW_MAX 0
#endif
#ifndef FA_WS_PRODUCER_REGS
#define FA_WS_PRODUCER_REGS 0
#endif
#ifndef FA_P_PACK
#define FA_P_PACK 0
#endif
#ifndef FA_TAIL_ROWS
#define FA_TAIL_ROWS 0
#endif
#ifndef FA_Q_BUFFERS
#define FA_Q_BUFFERS 1
#endif
#ifndef FA_ROUND_ORDER
#define FA_ROUND_ORDER 0
#endif
#ifndef FA_RESCALE_FACTOR
#define FA_RESCALE_FACTOR 0
#endif
#ifndef FA_SCHEDULE
#define FA_SCHEDULE 0
#endif
#ifndef FA_KV_L2_HINT
#define FA_KV_L2_HINT 0
#endif
#ifndef FA_MBAR_WAIT
#define FA_MBAR_WAIT 0
#endif
#ifndef FA_DESC_MATH
#define FA_DESC_MATH 0
#endif
#ifndef FA_ROW_SUM
#define FA_ROW_SUM 0
#endif
#ifndef FA_DEPENDENT_LAUNCH
#define FA_DEPENDENT_LAUNCH 0
#endif
#ifndef FA_ITEM_ORDER
#define FA_ITEM_ORDER 0
#endif
#ifndef FA_TMA_PREFETCH
#define FA_TMA_PREFETCH 0
#endif
#ifndef FA_SLOT_ITEM
#define FA_SLOT_ITEM 0
#endif
#ifndef FA_NEXT_PREFETCH
#define FA_NEXT_PREFETCH 0
#endif
#ifndef FA_P_IN
#define FA_P_IN 0
#endif
#ifndef FA_LAST_ROUND
#define FA_LAST_ROUND 0
#endif
#ifndef FA_TURN_CYCLE
#define FA_TURN_CYCLE 0
#endif
#ifndef FA_PINGPONG_HANDOFF
#define FA_PINGPONG_HANDOFF 0
#endif
#ifndef FA_WARP_UNIFORM
#define FA_WARP_UNIFORM 0
#endif

namespace fa {
// the values' names, in the macros' integers
enum { SCALAR = 0, MMA = 1, WGMMA = 2 };  // compute
enum { ROW_MAJOR = 0, SWIZZLE = 1, PAD = 2, SW128 = 3 };  // layout
enum { STAGE_SCALAR = 0, STAGE_CP_ASYNC = 1, STAGE_TMA = 2 };  // staging
enum { EXP_EXPF = 0, EXP_EX2 = 1 };  // exp
enum { Q_IN_REGS = 0, Q_IN_SMEM = 1 };  // q_in
enum { MASK_RUNTIME = 0, MASK_PREDICATE = 1, MASK_SPLIT = 2 };  // causal_mask
enum { ORDER_LAUNCH = 0, ORDER_HEAVIEST_FIRST = 1 };  // cta_order
enum { STORE_DEFAULT = 0, STORE_CS = 1, STORE_WT = 2 };  // store
enum { V_LDMATRIX_TRANS = 0, V_LDS = 1 };  // v_load
enum { SOFTMAX_SEPARATE = 0, SOFTMAX_FUSED = 1 };  // softmax
enum { EPI_DIRECT = 0, EPI_SMEM = 1 };  // epilogue
enum { KV_RELEASE_BARRIER = 0, KV_RELEASE_LAST_WARP = 1, KV_RELEASE_PRODUCER = 2 };  // kv_release
enum { COPIES_LOOP = 0, COPIES_UNROLLED = 1 };  // copies
enum { EXP_POLY_OFF = 0, EXP_POLY_QUARTER = 1, EXP_POLY_HALF = 2 };  // exp_poly
enum { MAINLOOP_GENERAL = 0, MAINLOOP_WS = 1 };  // mainloop
enum { Q_LOAD_CP_ASYNC = 0, Q_LOAD_TMA = 1 };  // q_load
enum { O_STORE_DIRECT = 0, O_STORE_TMA = 1, O_STORE_TMA_IN_Q = 2 };  // o_store
enum { ROW_MAX_CHAIN = 0, ROW_MAX_TREE = 1 };  // row_max
enum { P_PACK_AFTER = 0, P_PACK_WITH_EXP = 1, P_PACK_MID_WAIT = 2 };  // p_pack
enum { TAIL_ROWS_COMPUTE = 0, TAIL_ROWS_SKIP = 1, TAIL_ROWS_SPLIT = 2 };  // tail_rows
enum { ROUND_ORDER_IN_PLACE = 0, ROUND_ORDER_TURNED = 1, ROUND_ORDER_SNAKE = 2 };  // round_order
enum { RESCALE_FACTOR_ALWAYS = 0, RESCALE_FACTOR_WHEN_RAISED = 1, RESCALE_FACTOR_WHEN_RAISED_PREDICATED = 2 };  // rescale_factor
enum { SCHEDULE_STATIC = 0, SCHEDULE_DYNAMIC = 1 };  // schedule
enum { KV_L2_HINT_NONE = 0, KV_L2_HINT_EVICT_LAST = 1 };  // kv_l2_hint
enum { MBAR_WAIT_POLL = 0, MBAR_WAIT_SUSPEND = 1, MBAR_WAIT_UNIFORM = 2 };  // mbar_wait
enum { DESC_MATH_PER_MMA = 0, DESC_MATH_HOISTED = 1 };  // desc_math
enum { ROW_SUM_FADD = 0, ROW_SUM_MMA = 1 };  // row_sum
enum { ITEM_ORDER_CTA_ORDER = 0, ITEM_ORDER_TILES_ASCENDING = 1, ITEM_ORDER_SHORT_TILES_LATE = 2 };  // item_order
enum { SLOT_ITEM_INDEX = 0, SLOT_ITEM_DECODED = 1 };  // slot_item
enum { P_IN_REGS = 0, P_IN_SMEM = 1 };  // p_in
enum { LAST_ROUND_WHOLE = 0, LAST_ROUND_KEY_SPLIT = 1, LAST_ROUND_KEY_STREAM = 2 };  // last_round
enum { PINGPONG_HANDOFF_ITEM_START = 0, PINGPONG_HANDOFF_LAST_TURN = 1 };  // pingpong_handoff
}  // namespace fa

// Knobs<...>'s template parameters, in this order (its mangled name, and so the kernel's, follows it)
#define FA_KNOBS_TEMPLATE template <int COMPUTE_, int LAYOUT_, int STAGING_, int EXP_, int BR_, int BC_, int WARPS_, int KV_STAGES_, int Q_IN_, int RESCALE_SKIP_, int CAUSAL_MASK_, int CTA_ORDER_, int STORE_, int V_LOAD_, int PERSISTENT_, int SPLITS_, int SOFTMAX_, int KV_OVERLAP_, int EPILOGUE_, int RESCALE_LAZY_, int PIPELINE_, int KV_RELEASE_, int PINGPONG_, int COPIES_, int EXP_POLY_, int PV_SLAB_, int MAINLOOP_, int Q_LOAD_, int PV_WIDE_, int ORDER_SECTIONS_, int ITEM_STREAM_, int O_STORE_, int ROW_MAX_, int WS_PRODUCER_REGS_, int P_PACK_, int TAIL_ROWS_, int Q_BUFFERS_, int ROUND_ORDER_, int RESCALE_FACTOR_, int SCHEDULE_, int KV_L2_HINT_, int MBAR_WAIT_, int DESC_MATH_, int ROW_SUM_, int DEPENDENT_LAUNCH_, int ITEM_ORDER_, int TMA_PREFETCH_, int SLOT_ITEM_, int NEXT_PREFETCH_, int P_IN_, int LAST_ROUND_, int TURN_CYCLE_, int PINGPONG_HANDOFF_, int WARP_UNIFORM_>
// its members, one per knob
#define FA_KNOBS_MEMBERS \
  static constexpr int COMPUTE = COMPUTE_; \
  static constexpr int LAYOUT = LAYOUT_; \
  static constexpr int STAGING = STAGING_; \
  static constexpr int EXP = EXP_; \
  static constexpr int BR = BR_; \
  static constexpr int BC = BC_; \
  static constexpr int WARPS = WARPS_; \
  static constexpr int KV_STAGES = KV_STAGES_; \
  static constexpr int Q_IN = Q_IN_; \
  static constexpr int RESCALE_SKIP = RESCALE_SKIP_; \
  static constexpr int CAUSAL_MASK = CAUSAL_MASK_; \
  static constexpr int CTA_ORDER = CTA_ORDER_; \
  static constexpr int STORE = STORE_; \
  static constexpr int V_LOAD = V_LOAD_; \
  static constexpr int PERSISTENT = PERSISTENT_; \
  static constexpr int SPLITS = SPLITS_; \
  static constexpr int SOFTMAX = SOFTMAX_; \
  static constexpr int KV_OVERLAP = KV_OVERLAP_; \
  static constexpr int EPILOGUE = EPILOGUE_; \
  static constexpr int RESCALE_LAZY = RESCALE_LAZY_; \
  static constexpr int PIPELINE = PIPELINE_; \
  static constexpr int KV_RELEASE = KV_RELEASE_; \
  static constexpr int PINGPONG = PINGPONG_; \
  static constexpr int COPIES = COPIES_; \
  static constexpr int EXP_POLY = EXP_POLY_; \
  static constexpr int PV_SLAB = PV_SLAB_; \
  static constexpr int MAINLOOP = MAINLOOP_; \
  static constexpr int Q_LOAD = Q_LOAD_; \
  static constexpr int PV_WIDE = PV_WIDE_; \
  static constexpr int ORDER_SECTIONS = ORDER_SECTIONS_; \
  static constexpr int ITEM_STREAM = ITEM_STREAM_; \
  static constexpr int O_STORE = O_STORE_; \
  static constexpr int ROW_MAX = ROW_MAX_; \
  static constexpr int WS_PRODUCER_REGS = WS_PRODUCER_REGS_; \
  static constexpr int P_PACK = P_PACK_; \
  static constexpr int TAIL_ROWS = TAIL_ROWS_; \
  static constexpr int Q_BUFFERS = Q_BUFFERS_; \
  static constexpr int ROUND_ORDER = ROUND_ORDER_; \
  static constexpr int RESCALE_FACTOR = RESCALE_FACTOR_; \
  static constexpr int SCHEDULE = SCHEDULE_; \
  static constexpr int KV_L2_HINT = KV_L2_HINT_; \
  static constexpr int MBAR_WAIT = MBAR_WAIT_; \
  static constexpr int DESC_MATH = DESC_MATH_; \
  static constexpr int ROW_SUM = ROW_SUM_; \
  static constexpr int DEPENDENT_LAUNCH = DEPENDENT_LAUNCH_; \
  static constexpr int ITEM_ORDER = ITEM_ORDER_; \
  static constexpr int TMA_PREFETCH = TMA_PREFETCH_; \
  static constexpr int SLOT_ITEM = SLOT_ITEM_; \
  static constexpr int NEXT_PREFETCH = NEXT_PREFETCH_; \
  static constexpr int P_IN = P_IN_; \
  static constexpr int LAST_ROUND = LAST_ROUND_; \
  static constexpr int TURN_CYCLE = TURN_CYCLE_; \
  static constexpr int PINGPONG_HANDOFF = PINGPONG_HANDOFF_; \
  static constexpr int WARP_UNIFORM = WARP_UNIFORM_;
// each knob one of its values, off its default only on the arms that accept it, and the rules of
// knob_table.RULES (kernel_src/knobs.py checks the same with a sentence each)
#define FA_KNOBS_RULES \
  static_assert((COMPUTE == SCALAR || COMPUTE == MMA || COMPUTE == WGMMA), "knob compute: one of its values"); \
  static_assert((LAYOUT == ROW_MAJOR || LAYOUT == SWIZZLE || LAYOUT == PAD || LAYOUT == SW128), "knob layout: one of its values"); \
  static_assert((STAGING == STAGE_SCALAR || STAGING == STAGE_CP_ASYNC || STAGING == STAGE_TMA), "knob staging: one of its values"); \
  static_assert((EXP == EXP_EXPF || EXP == EXP_EX2), "knob exp: one of its values"); \
  static_assert((BC == 16 || BC == 32 || BC == 64 || BC == 128 || BC == 176 || BC == 192), "knob bc: one of its values"); \
  static_assert((WARPS == 1 || WARPS == 2 || WARPS == 4 || WARPS == 8 || WARPS == 12), "knob warps: one of its values"); \
  static_assert((KV_STAGES == 1 || KV_STAGES == 2 || KV_STAGES == 3), "knob kv_stages: one of its values"); \
  static_assert((Q_IN == Q_IN_REGS || Q_IN == Q_IN_SMEM), "knob q_in: one of its values"); \
  static_assert((RESCALE_SKIP == 0 || RESCALE_SKIP == 1), "knob rescale_skip: one of its values"); \
  static_assert((CAUSAL_MASK == MASK_RUNTIME || CAUSAL_MASK == MASK_PREDICATE || CAUSAL_MASK == MASK_SPLIT), "knob causal_mask: one of its values"); \
  static_assert((CTA_ORDER == ORDER_LAUNCH || CTA_ORDER == ORDER_HEAVIEST_FIRST), "knob cta_order: one of its values"); \
  static_assert((STORE == STORE_DEFAULT || STORE == STORE_CS || STORE == STORE_WT), "knob store: one of its values"); \
  static_assert((V_LOAD == V_LDMATRIX_TRANS || V_LOAD == V_LDS), "knob v_load: one of its values"); \
  static_assert((PERSISTENT == 0 || PERSISTENT == 1), "knob persistent: one of its values"); \
  static_assert((SPLITS == 1 || SPLITS == 2 || SPLITS == 4 || SPLITS == 8), "knob split_kv: one of its values"); \
  static_assert((SOFTMAX == SOFTMAX_SEPARATE || SOFTMAX == SOFTMAX_FUSED), "knob softmax: one of its values"); \
  static_assert((KV_OVERLAP == 0 || KV_OVERLAP == 1), "knob kv_overlap: one of its values"); \
  static_assert((EPILOGUE == EPI_DIRECT || EPILOGUE == EPI_SMEM), "knob epilogue: one of its values"); \
  static_assert((RESCALE_LAZY == 0 || RESCALE_LAZY == 1), "knob rescale_lazy: one of its values"); \
  static_assert((PIPELINE == 0 || PIPELINE == 1), "knob pipeline: one of its values"); \
  static_assert((KV_RELEASE == KV_RELEASE_BARRIER || KV_RELEASE == KV_RELEASE_LAST_WARP || KV_RELEASE == KV_RELEASE_PRODUCER), "knob kv_release: one of its values"); \
  static_assert((PINGPONG == 0 || PINGPONG == 1), "knob pingpong: one of its values"); \
  static_assert((COPIES == COPIES_LOOP || COPIES == COPIES_UNROLLED), "knob copies: one of its values"); \
  static_assert((EXP_POLY == EXP_POLY_OFF || EXP_POLY == EXP_POLY_QUARTER || EXP_POLY == EXP_POLY_HALF), "knob exp_poly: one of its values"); \
  static_assert((PV_SLAB == 0 || PV_SLAB == 1), "knob pv_slab: one of its values"); \
  static_assert((MAINLOOP == MAINLOOP_GENERAL || MAINLOOP == MAINLOOP_WS), "knob mainloop: one of its values"); \
  static_assert((Q_LOAD == Q_LOAD_CP_ASYNC || Q_LOAD == Q_LOAD_TMA), "knob q_load: one of its values"); \
  static_assert((PV_WIDE == 0 || PV_WIDE == 1), "knob pv_wide: one of its values"); \
  static_assert((ORDER_SECTIONS == 0 || ORDER_SECTIONS == 1), "knob order_sections: one of its values"); \
  static_assert((ITEM_STREAM == 0 || ITEM_STREAM == 1), "knob item_stream: one of its values"); \
  static_assert((O_STORE == O_STORE_DIRECT || O_STORE == O_STORE_TMA || O_STORE == O_STORE_TMA_IN_Q), "knob o_store: one of its values"); \
  static_assert((ROW_MAX == ROW_MAX_CHAIN || ROW_MAX == ROW_MAX_TREE), "knob row_max: one of its values"); \
  static_assert((WS_PRODUCER_REGS == 0 || WS_PRODUCER_REGS == 40), "knob ws_producer_regs: one of its values"); \
  static_assert((P_PACK == P_PACK_AFTER || P_PACK == P_PACK_WITH_EXP || P_PACK == P_PACK_MID_WAIT), "knob p_pack: one of its values"); \
  static_assert((TAIL_ROWS == TAIL_ROWS_COMPUTE || TAIL_ROWS == TAIL_ROWS_SKIP || TAIL_ROWS == TAIL_ROWS_SPLIT), "knob tail_rows: one of its values"); \
  static_assert((Q_BUFFERS == 1 || Q_BUFFERS == 2), "knob q_buffers: one of its values"); \
  static_assert((ROUND_ORDER == ROUND_ORDER_IN_PLACE || ROUND_ORDER == ROUND_ORDER_TURNED || ROUND_ORDER == ROUND_ORDER_SNAKE), "knob round_order: one of its values"); \
  static_assert((RESCALE_FACTOR == RESCALE_FACTOR_ALWAYS || RESCALE_FACTOR == RESCALE_FACTOR_WHEN_RAISED || RESCALE_FACTOR == RESCALE_FACTOR_WHEN_RAISED_PREDICATED), "knob rescale_factor: one of its values"); \
  static_assert((SCHEDULE == SCHEDULE_STATIC || SCHEDULE == SCHEDULE_DYNAMIC), "knob schedule: one of its values"); \
  static_assert((KV_L2_HINT == KV_L2_HINT_NONE || KV_L2_HINT == KV_L2_HINT_EVICT_LAST), "knob kv_l2_hint: one of its values"); \
  static_assert((MBAR_WAIT == MBAR_WAIT_POLL || MBAR_WAIT == MBAR_WAIT_SUSPEND || MBAR_WAIT == MBAR_WAIT_UNIFORM), "knob mbar_wait: one of its values"); \
  static_assert((DESC_MATH == DESC_MATH_PER_MMA || DESC_MATH == DESC_MATH_HOISTED), "knob desc_math: one of its values"); \
  static_assert((ROW_SUM == ROW_SUM_FADD || ROW_SUM == ROW_SUM_MMA), "knob row_sum: one of its values"); \
  static_assert((DEPENDENT_LAUNCH == 0 || DEPENDENT_LAUNCH == 1), "knob dependent_launch: one of its values"); \
  static_assert((ITEM_ORDER == ITEM_ORDER_CTA_ORDER || ITEM_ORDER == ITEM_ORDER_TILES_ASCENDING || ITEM_ORDER == ITEM_ORDER_SHORT_TILES_LATE), "knob item_order: one of its values"); \
  static_assert((TMA_PREFETCH == 0 || TMA_PREFETCH == 1), "knob tma_prefetch: one of its values"); \
  static_assert((SLOT_ITEM == SLOT_ITEM_INDEX || SLOT_ITEM == SLOT_ITEM_DECODED), "knob slot_item: one of its values"); \
  static_assert((NEXT_PREFETCH == 0 || NEXT_PREFETCH == 1), "knob next_prefetch: one of its values"); \
  static_assert((P_IN == P_IN_REGS || P_IN == P_IN_SMEM), "knob p_in: one of its values"); \
  static_assert((LAST_ROUND == LAST_ROUND_WHOLE || LAST_ROUND == LAST_ROUND_KEY_SPLIT || LAST_ROUND == LAST_ROUND_KEY_STREAM), "knob last_round: one of its values"); \
  static_assert((TURN_CYCLE == 0 || TURN_CYCLE == 1), "knob turn_cycle: one of its values"); \
  static_assert((PINGPONG_HANDOFF == PINGPONG_HANDOFF_ITEM_START || PINGPONG_HANDOFF == PINGPONG_HANDOFF_LAST_TURN), "knob pingpong_handoff: one of its values"); \
  static_assert((WARP_UNIFORM == 0 || WARP_UNIFORM == 1), "knob warp_uniform: one of its values"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || KV_STAGES == 1, "knob kv_stages is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || Q_IN == Q_IN_REGS, "knob q_in is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || RESCALE_SKIP == 0, "knob rescale_skip is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || CAUSAL_MASK == MASK_RUNTIME, "knob causal_mask is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || STORE == STORE_DEFAULT, "knob store is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || V_LOAD == V_LDMATRIX_TRANS, "knob v_load is the mma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || PERSISTENT == 0, "knob persistent is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || SPLITS == 1, "knob split_kv is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || SOFTMAX == SOFTMAX_SEPARATE, "knob softmax is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || KV_OVERLAP == 0, "knob kv_overlap is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || EPILOGUE == EPI_DIRECT, "knob epilogue is the mma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || RESCALE_LAZY == 0, "knob rescale_lazy is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || PIPELINE == 0, "knob pipeline is the mma/wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || KV_RELEASE == KV_RELEASE_BARRIER, "knob kv_release is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || PINGPONG == 0, "knob pingpong is the wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || EXP_POLY == EXP_POLY_OFF, "knob exp_poly is the mma/wgmma arm's"); \
  static_assert(COMPUTE == MMA || PV_SLAB == 0, "knob pv_slab is the mma arm's"); \
  static_assert(COMPUTE == WGMMA || MAINLOOP == MAINLOOP_GENERAL, "knob mainloop is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || Q_LOAD == Q_LOAD_CP_ASYNC, "knob q_load is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || PV_WIDE == 0, "knob pv_wide is the wgmma arm's"); \
  static_assert(COMPUTE == MMA || COMPUTE == WGMMA || ORDER_SECTIONS == 0, "knob order_sections is the mma/wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || ITEM_STREAM == 0, "knob item_stream is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || O_STORE == O_STORE_DIRECT, "knob o_store is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || ROW_MAX == ROW_MAX_CHAIN, "knob row_max is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || WS_PRODUCER_REGS == 0, "knob ws_producer_regs is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || P_PACK == P_PACK_AFTER, "knob p_pack is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || TAIL_ROWS == TAIL_ROWS_COMPUTE, "knob tail_rows is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || Q_BUFFERS == 1, "knob q_buffers is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || ROUND_ORDER == ROUND_ORDER_IN_PLACE, "knob round_order is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || RESCALE_FACTOR == RESCALE_FACTOR_ALWAYS, "knob rescale_factor is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || SCHEDULE == SCHEDULE_STATIC, "knob schedule is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || KV_L2_HINT == KV_L2_HINT_NONE, "knob kv_l2_hint is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || MBAR_WAIT == MBAR_WAIT_POLL, "knob mbar_wait is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || DESC_MATH == DESC_MATH_PER_MMA, "knob desc_math is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || ROW_SUM == ROW_SUM_FADD, "knob row_sum is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || DEPENDENT_LAUNCH == 0, "knob dependent_launch is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || ITEM_ORDER == ITEM_ORDER_CTA_ORDER, "knob item_order is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || TMA_PREFETCH == 0, "knob tma_prefetch is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || SLOT_ITEM == SLOT_ITEM_INDEX, "knob slot_item is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || NEXT_PREFETCH == 0, "knob next_prefetch is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || P_IN == P_IN_REGS, "knob p_in is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || LAST_ROUND == LAST_ROUND_WHOLE, "knob last_round is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || TURN_CYCLE == 0, "knob turn_cycle is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || PINGPONG_HANDOFF == PINGPONG_HANDOFF_ITEM_START, "knob pingpong_handoff is the wgmma arm's"); \
  static_assert(COMPUTE == WGMMA || WARP_UNIFORM == 0, "knob warp_uniform is the wgmma arm's"); \
  static_assert(!(KV_STAGES == 2 || KV_STAGES == 3) || (STAGING == STAGE_CP_ASYNC || STAGING == STAGE_TMA), "a K/V pipeline needs asynchronous copies"); \
  static_assert(!(STAGING == STAGE_TMA) || (COMPUTE == WGMMA), "TMA staging is the wgmma arm's"); \
  static_assert(!(KV_OVERLAP == 1) || (KV_STAGES == 1 && STAGING == STAGE_CP_ASYNC), "the overlap schedule is one-buffer cp.async"); \
  static_assert(!(EPILOGUE == EPI_SMEM) || (SPLITS == 1 && STORE == STORE_DEFAULT), "the smem epilogue: no split, default stores"); \
  static_assert(!(RESCALE_LAZY == 1) || (EXP == EXP_EX2 && RESCALE_SKIP == 1), "the lazy max counts in log2 units, pays through the vote"); \
  static_assert(!(PIPELINE == 1) || (KV_STAGES == 2 || KV_STAGES == 3), "QK^T one block ahead reads the next K from the ring"); \
  static_assert(!(KV_RELEASE == KV_RELEASE_LAST_WARP || KV_RELEASE == KV_RELEASE_PRODUCER) || (STAGING == STAGE_TMA && (KV_STAGES == 2 || KV_STAGES == 3)), "kv_release is the TMA ring's"); \
  static_assert(!(ROW_MAX == ROW_MAX_TREE) || (MAINLOOP == MAINLOOP_WS), "the tree row max is the warp-specialised mainloop's"); \
  static_assert(!(P_PACK == P_PACK_WITH_EXP || P_PACK == P_PACK_MID_WAIT) || (MAINLOOP == MAINLOOP_WS && ITEM_STREAM == 0), "P packed with its exponentials is the warp-specialised mainloop's, outside the item stream"); \
  static_assert(!(TAIL_ROWS == TAIL_ROWS_SKIP) || (MAINLOOP == MAINLOOP_WS && PINGPONG == 0 && ITEM_STREAM == 0), "a warpgroup past N sits out only in the warp-specialised mainloop without turns or the item stream"); \
  static_assert(!(TAIL_ROWS == TAIL_ROWS_SPLIT) || (MAINLOOP == MAINLOOP_WS && PINGPONG == 0 && ITEM_STREAM == 0 && Q_LOAD == Q_LOAD_TMA && (WARPS == 8 || WARPS == 12)), "a warpgroup past N helps the others only in the warp-specialised mainloop with Q by TMA, two or three consumer warpgroups, without turns or the item stream"); \
  static_assert(!(Q_BUFFERS == 2) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && Q_LOAD == Q_LOAD_TMA && ITEM_STREAM == 0 && (O_STORE == O_STORE_DIRECT || O_STORE == O_STORE_TMA)), "two Q tiles are the persistent warp-specialised mainloop's, with Q by TMA, outside the item stream"); \
  static_assert(!(ROUND_ORDER == ROUND_ORDER_TURNED || ROUND_ORDER == ROUND_ORDER_SNAKE) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && ITEM_STREAM == 0), "the rounds' order is the static persistent schedule's, outside the item stream"); \
  static_assert(!(SCHEDULE == SCHEDULE_DYNAMIC) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && ITEM_STREAM == 0 && ROUND_ORDER == ROUND_ORDER_IN_PLACE), "the dynamic schedule is the persistent warp-specialised mainloop's, outside the item stream and its rounds"); \
  static_assert(!(KV_L2_HINT == KV_L2_HINT_EVICT_LAST) || (MAINLOOP == MAINLOOP_WS), "the K/V cache hint is the warp-specialised producer's"); \
  static_assert(!(DESC_MATH == DESC_MATH_HOISTED) || (MAINLOOP == MAINLOOP_WS), "the hoisted descriptors are the warp-specialised mainloop's"); \
  static_assert(!(ROW_SUM == ROW_SUM_MMA) || (MAINLOOP == MAINLOOP_WS && ITEM_STREAM == 0 && (TAIL_ROWS == TAIL_ROWS_COMPUTE || TAIL_ROWS == TAIL_ROWS_SKIP)), "the row sums on the tensor cores are the warp-specialised mainloop's, outside the item stream and the split tail"); \
  static_assert(!(ITEM_ORDER == ITEM_ORDER_TILES_ASCENDING || ITEM_ORDER == ITEM_ORDER_SHORT_TILES_LATE) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && CTA_ORDER == ORDER_LAUNCH && SPLITS == 1), "the reordered items are the persistent warp-specialised mainloop's, in launch order, unsplit"); \
  static_assert(!(DEPENDENT_LAUNCH == 1) || (COMPUTE == WGMMA), "the dependent launch is the wgmma arm's"); \
  static_assert(!(SLOT_ITEM == SLOT_ITEM_DECODED) || (SCHEDULE == SCHEDULE_DYNAMIC), "the decoded slot is the dynamic schedule's"); \
  static_assert(!(NEXT_PREFETCH == 1) || (SLOT_ITEM == SLOT_ITEM_DECODED && Q_LOAD == Q_LOAD_TMA), "the next item's prefetch is the decoded slot's, with Q by TMA"); \
  static_assert(!(P_IN == P_IN_SMEM) || (MAINLOOP == MAINLOOP_WS && P_PACK == P_PACK_AFTER && (TAIL_ROWS == TAIL_ROWS_COMPUTE || TAIL_ROWS == TAIL_ROWS_SKIP) && ITEM_STREAM == 0), "P through shared memory is the warp-specialised mainloop's, packed after the softmax"); \
  static_assert(!(LAST_ROUND == LAST_ROUND_KEY_SPLIT) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && ITEM_STREAM == 0 && ROUND_ORDER == ROUND_ORDER_IN_PLACE && (TAIL_ROWS == TAIL_ROWS_COMPUTE || TAIL_ROWS == TAIL_ROWS_SKIP)), "the last round's key split is the persistent warp-specialised list's, in place, without the tail split"); \
  static_assert(!(LAST_ROUND == LAST_ROUND_KEY_STREAM) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && SCHEDULE == SCHEDULE_STATIC && ITEM_STREAM == 0 && ROUND_ORDER == ROUND_ORDER_IN_PLACE && (TAIL_ROWS == TAIL_ROWS_COMPUTE || TAIL_ROWS == TAIL_ROWS_SKIP)), "the streamed last round is the static persistent warp-specialised schedule's, in place, without the tail split"); \
  static_assert(!(TURN_CYCLE == 1) || (MAINLOOP == MAINLOOP_WS && WARPS == 12 && TAIL_ROWS == TAIL_ROWS_COMPUTE && ITEM_STREAM == 0), "the cycle of turns is the warp-specialised mainloop's, on three consumer warpgroups that each take every turn"); \
  static_assert(!(PINGPONG_HANDOFF == PINGPONG_HANDOFF_LAST_TURN) || (PINGPONG == 1 && MAINLOOP == MAINLOOP_WS && ITEM_STREAM == 0), "the turns' handoff across items is the warp-specialised mainloop's ping-pong"); \
  static_assert(!(WARP_UNIFORM == 1) || (MAINLOOP == MAINLOOP_WS), "the warp-uniform branches are the warp-specialised mainloop's"); \
  static_assert(!(TMA_PREFETCH == 1) || (STAGING == STAGE_TMA), "the tensor-map prefetch is the TMA staging's"); \
  static_assert(!(MBAR_WAIT == MBAR_WAIT_SUSPEND || MBAR_WAIT == MBAR_WAIT_UNIFORM) || (STAGING == STAGE_TMA), "the mbarrier waits are the TMA pipeline's"); \
  static_assert(!(RESCALE_FACTOR == RESCALE_FACTOR_WHEN_RAISED || RESCALE_FACTOR == RESCALE_FACTOR_WHEN_RAISED_PREDICATED) || (MAINLOOP == MAINLOOP_WS), "the rescale factors skipped by a vote are the warp-specialised mainloop's"); \
  static_assert(!(PINGPONG == 1) || (KV_RELEASE == KV_RELEASE_PRODUCER && COMPUTE == WGMMA && WARPS == 8), "pingpong takes turns between two consumer warpgroups beside a producer warpgroup"); \
  static_assert(!(EXP_POLY == EXP_POLY_QUARTER || EXP_POLY == EXP_POLY_HALF) || (EXP == EXP_EX2), "the cubic computes 2^x in ex2 units"); \
  static_assert(!(PV_SLAB == 1) || (COMPUTE == MMA && PIPELINE == 0 && KV_OVERLAP == 0), "P slab by slab: mma.sync's register fragments, the plain block schedule"); \
  static_assert(!(Q_LOAD == Q_LOAD_TMA) || (MAINLOOP == MAINLOOP_WS), "Q by TMA is the warp-specialised mainloop's producer's"); \
  static_assert(!(PV_WIDE == 1) || (MAINLOOP == MAINLOOP_WS), "one wide PV wgmma is the warp-specialised mainloop's"); \
  static_assert(!(ITEM_STREAM == 1) || (MAINLOOP == MAINLOOP_WS && PERSISTENT == 1 && PIPELINE == 1 && Q_LOAD == Q_LOAD_TMA), "the item stream is the persistent warp-specialised mainloop's, with its overlap and Q by TMA"); \
  static_assert(!(O_STORE == O_STORE_TMA || O_STORE == O_STORE_TMA_IN_Q) || (MAINLOOP == MAINLOOP_WS), "O by TMA is the warp-specialised mainloop's epilogue"); \
  static_assert(!(O_STORE == O_STORE_TMA_IN_Q) || (PERSISTENT == 0), "O through the Q tile is for one item a CTA"); \
  static_assert(!(ORDER_SECTIONS == 1) || (CTA_ORDER == ORDER_HEAVIEST_FIRST && SPLITS == 1), "sections of heads order the heaviest-first schedule of unsplit items");
// Cfg's arguments: the build's knobs
#define FA_CFG_ARGS FA_COMPUTE, FA_LAYOUT, FA_STAGING, FA_EXP, FA_BR, FA_BC, FA_WARPS, FA_KV_STAGES, FA_Q_IN, FA_RESCALE_SKIP, FA_CAUSAL_MASK, FA_CTA_ORDER, FA_STORE, FA_V_LOAD, FA_PERSISTENT, FA_SPLIT_KV, FA_SOFTMAX, FA_KV_OVERLAP, FA_EPILOGUE, FA_RESCALE_LAZY, FA_PIPELINE, FA_KV_RELEASE, FA_PINGPONG, FA_COPIES, FA_EXP_POLY, FA_PV_SLAB, FA_MAINLOOP, FA_Q_LOAD, FA_PV_WIDE, FA_ORDER_SECTIONS, FA_ITEM_STREAM, FA_O_STORE, FA_ROW_MAX, FA_WS_PRODUCER_REGS, FA_P_PACK, FA_TAIL_ROWS, FA_Q_BUFFERS, FA_ROUND_ORDER, FA_RESCALE_FACTOR, FA_SCHEDULE, FA_KV_L2_HINT, FA_MBAR_WAIT, FA_DESC_MATH, FA_ROW_SUM, FA_DEPENDENT_LAUNCH, FA_ITEM_ORDER, FA_TMA_PREFETCH, FA_SLOT_ITEM, FA_NEXT_PREFETCH, FA_P_IN, FA_LAST_ROUND, FA_TURN_CYCLE, FA_PINGPONG_HANDOFF, FA_WARP_UNIFORM
// fa_config's ints, one per knob in the table's order (kernel_src/binding.py reads them)
#define FA_CONFIG_COUNT 55
#define FA_CONFIG_WRITE(out) \
  out[0] = FA_COMPUTE; \
  out[1] = FA_LAYOUT; \
  out[2] = FA_STAGING; \
  out[3] = FA_EXP; \
  out[4] = FA_BR; \
  out[5] = FA_BC; \
  out[6] = FA_WARPS; \
  out[7] = FA_KV_STAGES; \
  out[8] = FA_Q_IN; \
  out[9] = FA_RESCALE_SKIP; \
  out[10] = FA_CAUSAL_MASK; \
  out[11] = FA_CTA_ORDER; \
  out[12] = FA_MIN_CTAS; \
  out[13] = FA_STORE; \
  out[14] = FA_V_LOAD; \
  out[15] = FA_PERSISTENT; \
  out[16] = FA_SPLIT_KV; \
  out[17] = FA_SOFTMAX; \
  out[18] = FA_KV_OVERLAP; \
  out[19] = FA_EPILOGUE; \
  out[20] = FA_RESCALE_LAZY; \
  out[21] = FA_PIPELINE; \
  out[22] = FA_KV_RELEASE; \
  out[23] = FA_PINGPONG; \
  out[24] = FA_COPIES; \
  out[25] = FA_EXP_POLY; \
  out[26] = FA_PV_SLAB; \
  out[27] = FA_MAINLOOP; \
  out[28] = FA_Q_LOAD; \
  out[29] = FA_PV_WIDE; \
  out[30] = FA_ORDER_SECTIONS; \
  out[31] = FA_ITEM_STREAM; \
  out[32] = FA_O_STORE; \
  out[33] = FA_ROW_MAX; \
  out[34] = FA_WS_PRODUCER_REGS; \
  out[35] = FA_P_PACK; \
  out[36] = FA_TAIL_ROWS; \
  out[37] = FA_Q_BUFFERS; \
  out[38] = FA_ROUND_ORDER; \
  out[39] = FA_RESCALE_FACTOR; \
  out[40] = FA_SCHEDULE; \
  out[41] = FA_KV_L2_HINT; \
  out[42] = FA_MBAR_WAIT; \
  out[43] = FA_DESC_MATH; \
  out[44] = FA_ROW_SUM; \
  out[45] = FA_DEPENDENT_LAUNCH; \
  out[46] = FA_ITEM_ORDER; \
  out[47] = FA_TMA_PREFETCH; \
  out[48] = FA_SLOT_ITEM; \
  out[49] = FA_NEXT_PREFETCH; \
  out[50] = FA_P_IN; \
  out[51] = FA_LAST_ROUND; \
  out[52] = FA_TURN_CYCLE; \
  out[53] = FA_PINGPONG_HANDOFF; \
  out[54] = FA_WARP_UNIFORM;
