"""Every knob of the kernel, declared once.

The table below is the one place a knob is declared: its name and values, its default, the macro the
build defines (FA_<NAME>), the compute arms that accept it off its default, the one-line idea, and what the
covering set and the samplers do with it; RULES are the rules between knobs that are a plain "if these
values, then those". From it come

- kernel_src/knobs_gen.cuh (`python3 -m kernel_src.knob_table --write`; tests/test_knob_table.py fails when
  the committed header is stale): the macro defaults, the enums naming the values, the parameter and member
  lists of Knobs<...>, the static_asserts of RULES and of the arms, Cfg's argument list, and fa_config with
  its count;
- kernel_src/knobs.py: the pydantic fields and enums of `Knobs` (which stays the validator and the identity:
  its sentences, canonical JSON and key), RULES' checks, the scalar arm's check, and `defines()`;
- kernel_src/binding.py: the order and count of fa_config's ints;
- kernel_src/covering.py: the domains of the covering set (pinned knobs, values the Hopper arm alone has);
- agent/strategies/base.py (random search, TPE): which knobs enter the samplers' space only once a lever moves
  them, and the knobs sampled as one more value of another.

To add a knob: append one Knob(...) row here (a new knob goes last, with later=True and pinned=its default,
so that recorded runs, caches and replays keep their keys and draws), add its rules to RULES (or, for a rule
that needs arithmetic, a check in knobs.py's validator), run `python3 -m kernel_src.knob_table --write`, and
read K::<MEMBER> in the component that implements it. Its default must compile to the kernel as it was before
(scripts/check_ptx_unchanged.py shows it).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

HEADER = Path(__file__).with_name("knobs_gen.cuh")
ARMS = ("scalar", "mma", "wgmma")  # the values of `compute`
TENSOR = ("mma", "wgmma")


@dataclass(frozen=True)
class Join:
    """The samplers draw this knob as more values of another: `parent`=`when` with this knob off its default
    is the value `label` (with {value}: one value per non-default value of this knob)."""

    parent: str
    when: str
    label: str


@dataclass(frozen=True)
class Knob:
    name: str  # the field of kernel_src.knobs.Knobs, the CLI's --knob NAME=VALUE
    values: tuple  # an enum's values in the order of the macro's integers, or the allowed ints (() for br: any)
    default: str | int
    doc: str  # the idea, one line; the hypothesis and the figures are beside the code that reads it
    py_enum: str | None = None  # the Python Enum class of an enum knob (knobs with the same values share one)
    value_docs: tuple = ()  # a comment per value (enum knobs)
    cxx_prefix: str | None = None  # the CUDA enum's names are prefix + VALUE; None: NAME_ (switches: no enum)
    member: str | None = None  # the Knobs<...> member (default NAME upper-cased)
    template: bool = True  # a Knobs<...> parameter (min_ctas is read by the launch bounds alone)
    arms: tuple = ARMS  # the values of compute under which the knob may leave its default
    later: bool = False  # added after recorded sampler runs: in their space only once a lever moves it
    pinned: str | int | None = None  # held at this value in the covering set (a later knob, moved by --move)
    hopper_values: tuple = ()  # values that exist on the Hopper arm alone (not in the all-arch covering set)
    join: Join | None = None

    @property
    def macro(self) -> str:
        return f"FA_{self.name.upper()}"

    @property
    def cxx_member(self) -> str:
        return self.member or self.name.upper()

    @property
    def is_enum(self) -> bool:
        return self.py_enum is not None

    def code(self, value) -> int:
        """The integer the kernel's macro receives for a value."""
        return self.values.index(value) if self.is_enum else int(value)

    def cxx_names(self) -> list[str] | None:
        if not self.is_enum or self.py_enum == "Switch":
            return None
        prefix = self.cxx_prefix if self.cxx_prefix is not None else self.name.upper() + "_"
        return [prefix + str(v).upper() for v in self.values]


SWITCH = ("off", "on")

KNOBS: tuple[Knob, ...] = (
    Knob("compute", ("scalar", "mma", "wgmma"), "scalar",
         "scalar CUDA-core FMAs (the seed's v0) | mma.sync m16n8k16 + ldmatrix (v1) | warpgroup MMA "
         "(wgmma.mma_async, sm_90a only; one warpgroup per 64 query rows)",
         py_enum="Compute", cxx_prefix="", hopper_values=("wgmma",),
         value_docs=("CUDA-core FMAs, the seed's v0", "mma.sync m16n8k16 + ldmatrix, v1",
                     "warpgroup MMA from shared-memory descriptors, sm_90a only")),
    Knob("layout", ("row_major", "swizzle", "pad", "sw128"), "row_major",
         "the Q/K/V tiles in shared memory: row-major | XOR swizzle | padding | the 128-byte swizzle in 64-column "
         "tiles that wgmma's descriptors read (compute=wgmma only)",
         py_enum="Layout", cxx_prefix="", hopper_values=("sw128",),
         value_docs=("", "", "", "the 128-byte swizzle in 64-column tiles that wgmma's descriptors read")),
    Knob("staging", ("scalar", "cp_async", "tma"), "scalar",
         "global -> shared: scalar 2-byte loads | 16-byte cp.async | TMA (compute=wgmma only): K/V tiles by "
         "cp.async.bulk.tensor from one thread, completion on mbarriers",
         py_enum="Staging", cxx_prefix="STAGE_",
         value_docs=("2-byte loads through registers", "16-byte LDGSTS",
                     "K/V tiles by cp.async.bulk.tensor, mbarrier completion; compute=wgmma only")),
    Knob("exp", ("expf", "ex2"), "expf", "expf | ex2.approx with log2(e) folded into the host-side scale",
         py_enum="Exp", cxx_prefix="EXP_", value_docs=("", "ex2.approx, log2(e) folded into the host-side scale")),
    Knob("br", (), 64, "query rows per CTA: each warp owns 16 (BR = 16 x WARPS) or, mma.sync only, 32"),
    Knob("bc", (16, 32, 64, 128, 176, 192), 64, "key rows per key block (176 and 192: mainloop=ws alone)"),
    Knob("warps", (1, 2, 4, 8, 12), 4, "warps per CTA (the consumers', with kv_release=producer; 12: mainloop=ws alone)"),
    Knob("kv_stages", (1, 2, 3), 1,
         "K/V buffers in flight: 1 (stage K and V, wait for both) | 2, 3: a ring, K and V in separate cp.async "
         "groups so QK^T starts while V is in flight", arms=TENSOR),
    Knob("q_in", ("regs", "smem"), "regs",
         "Q fragments held in registers across the key loop | re-read from shared memory every key block",
         py_enum="QIn", arms=TENSOR,
         value_docs=("Q fragments held in registers across the key loop", "re-read from shared memory every key block")),
    Knob("rescale_skip", SWITCH, "off", "skip O *= alpha when no row of the warp changed its max (bitwise the same)",
         py_enum="Switch", arms=TENSOR),
    Knob("causal_mask", ("runtime", "predicate", "split"), "runtime",
         "a runtime branch per element | the predicate specialised per block kind (a function template) | "
         "the key loop split at the diagonal (type tags)",
         py_enum="CausalMask", cxx_prefix="MASK_", arms=TENSOR,
         value_docs=("one body, a runtime flag in the per-element test", "a function template per block kind",
                     "the key loop split at the diagonal, the mode a type")),
    Knob("cta_order", ("launch", "heaviest_first"), "launch",
         "launch order | heaviest first (longest-processing-time) under causality",
         py_enum="CtaOrder", cxx_prefix="ORDER_"),
    Knob("min_ctas", (0, 1, 2, 3, 4), 0, "__launch_bounds__ minimum CTAs per SM; 0: none", template=False),
    Knob("store", ("default", "cs", "wt"), "default",
         "the epilogue's stores: default | streaming (.cs) | write-through (.wt)",
         py_enum="Store", cxx_prefix="STORE_", arms=TENSOR, value_docs=("", "streaming, evict-first", "write-through")),
    Knob("v_load", ("ldmatrix_trans", "lds"), "ldmatrix_trans",
         "V fragments by ldmatrix.trans | by 16-bit shared loads (the same bits)",
         py_enum="VLoad", cxx_prefix="V_", arms=("mma",),
         value_docs=("one LDSM.T per 4 fragment registers", "16-bit shared loads, packed by hand: the same bits")),
    Knob("persistent", SWITCH, "off", "resident CTAs pull work items from a list (one CTA per item when off)",
         py_enum="Switch", arms=TENSOR),
    Knob("split_kv", (1, 2, 4, 8), 1, "key splits per (query tile, head), merged by a combine kernel",
         member="SPLITS", arms=TENSOR),
    Knob("softmax", ("separate", "fused"), "separate",
         "scale, then exp(s - m) | exp2(s * c - m * c) in one FFMA, the max in raw units",
         py_enum="Softmax", cxx_prefix="SOFTMAX_", arms=TENSOR, later=True,
         value_docs=("scale (FMUL), then exp(s - m) (FADD + MUFU): the row max in scaled units",
                     "exp2(s * c - m * c): one FFMA + one MUFU, the row max in raw-score units")),
    Knob("kv_overlap", SWITCH, "off",
         "one K and one V buffer: V(j) lands under QK^T(j), K(j+1) under P(j)V(j)",
         py_enum="Switch", arms=TENSOR, later=True),
    Knob("epilogue", ("direct", "smem"), "direct",
         "4-byte stores from the accumulators | through shared memory, 16-byte stores",
         py_enum="Epilogue", cxx_prefix="EPI_", arms=("mma",), later=True,
         value_docs=("each thread stores its accumulator pairs, 4 B at a time",
                     "through shared memory (the warp's own Q rows), then 16-byte coalesced stores")),
    Knob("rescale_lazy", SWITCH, "off",
         "a row's max is raised only when it grows by more than 2^8 (exact after 1/l)",
         py_enum="Switch", arms=TENSOR, later=True),
    Knob("pipeline", SWITCH, "off", "QK^T of block j+1 issued before the softmax of block j (needs the K/V ring)",
         py_enum="Switch", arms=TENSOR, later=True),
    Knob("kv_release", ("barrier", "last_warp", "producer"), "barrier",
         "what frees a K/V ring buffer: a block barrier | (TMA ring) the last warp done with it refills it, no "
         "thread waits for another | a producer warpgroup (128 more threads, setmaxnreg) issues every copy once a "
         "buffer's empty mbarrier says every consumer warp is done with it (warp specialisation)",
         py_enum="KvRelease", arms=("wgmma",), later=True,
         value_docs=("a block barrier at the end of each key block frees its K/V buffer for the next copy",
                     "TMA ring: each warp counts itself done with a buffer; the last one refills it, no thread waits",
                     "a producer warpgroup (128 more threads, setmaxnreg) issues every copy, waiting on each stage's "
                     "empty mbarrier: warp specialisation")),
    Knob("pingpong", SWITCH, "off",
         "(kv_release=producer, two consumer warpgroups) two named barriers take the warpgroups' GEMM issue in "
         "turns, so one warpgroup's softmax runs under the other's GEMMs",
         py_enum="Switch", arms=("wgmma",), later=True,
         join=Join(parent="kv_release", when="producer", label="producer+pingpong")),
    Knob("copies", ("loop", "unrolled"), "loop",
         "a thread's global->shared copies of a tile: a strided loop, a bounds test each | a fixed count, "
         "unrolled, from one address; the row test only in a tile that crosses N (bitwise the same)",
         py_enum="Copies", later=True, pinned="loop",
         value_docs=("a strided loop over a tile's chunks, each with its own address and row test",
                     "a fixed count per thread, unrolled, one address per tile; the row test only at N")),
    Knob("exp_poly", ("off", "quarter", "half"), "off",
         "a quarter | half of P's exponentials (exp=ex2) by a cubic on the FMA pipe instead of MUFU.EX2 "
         "(relative error 7.5e-5, below fp16's rounding)",
         py_enum="ExpPoly", arms=TENSOR, later=True, pinned="off",
         join=Join(parent="exp", when="ex2", label="ex2+poly_{value}"),
         value_docs=("every exponential of P on MUFU.EX2", "one in four by a cubic on the FMA pipe", "one in two")),
    Knob("pv_slab", SWITCH, "off",
         "(mma.sync, no pipeline) P made and multiplied into O one 16-key slab at a time, each score masked "
         "against one per-row limit (bitwise the same)",
         py_enum="Switch", arms=("mma",), later=True, pinned="off"),
    Knob("mainloop", ("general", "ws"), "general",
         "the one tensor-core mainloop every arm shares | the warp-specialised Hopper mainloop "
         "(mainloop_sm90_ws.cuh: a TMA producer warpgroup, 2-3 wgmma consumer warpgroups with setmaxnreg, separate "
         "K and V pipelines; pipeline=on its intra-warpgroup overlap, pingpong=on its turns, persistent=on a static "
         "persistent schedule)",
         py_enum="MainLoop", cxx_prefix="MAINLOOP_", arms=("wgmma",), later=True, pinned="general",
         value_docs=("the one body every arm shares (mainloop_mma.cuh)",
                     "warp-specialised Hopper mainloop (mainloop_sm90_ws.cuh): TMA producer, 2-3 wgmma consumer "
                     "warpgroups")),
    Knob("q_load", ("cp_async", "tma"), "cp_async",
         "(mainloop=ws) each consumer warpgroup copies its Q rows by cp.async and waits for them | the producer "
         "loads the Q tile by TMA on its own full/empty mbarrier pair, as soon as the previous item's last QK^T is "
         "done (so, persistent, under that item's last softmax, PV and stores)",
         py_enum="QLoad", arms=("wgmma",), later=True, pinned="cp_async",
         join=Join(parent="mainloop", when="ws", label="ws+q_load_{value}"),
         value_docs=("each consumer warpgroup copies its own Q rows and waits for them",
                     "mainloop=ws: the producer loads the Q tile by TMA once the last item's QK^T is done")),
    Knob("pv_wide", SWITCH, "off",
         "(mainloop=ws) O += P V, per 16 keys, as D/64 wgmma of N=64 | as one wgmma of N=D (at D=64 the same "
         "instruction)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off"),
    Knob("order_sections", SWITCH, "off",
         "(cta_order=heaviest_first) heaviest first across every head | heaviest first within sections of heads "
         "whose K/V fill a quarter of the device's L2, one section after another (bitwise the same)",
         py_enum="Switch", arms=TENSOR, later=True, pinned="off"),
    Knob("item_stream", SWITCH, "off",
         "(mainloop=ws, persistent) the consumers start and end each item on their own | run the CTA's items as one "
         "stream of key blocks: the next item's first QK^T issued with this item's last PV, its softmax under that "
         "PV, this item's stores after it; Q double-buffered, the K/V stages counted across items (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off"),
    Knob("o_store", ("direct", "tma", "tma_in_q"), "direct",
         "(mainloop=ws) each thread stores its O values to global memory, 4 bytes at a time | each consumer "
         "warpgroup writes its O rows to shared memory by stmatrix and one thread stores them by TMA, "
         "asynchronously | the same through the warpgroup's own rows of the item's Q tile, which its last QK^T "
         "has finished reading: no O tile of its own, so the 176-key tile fits (one item a CTA) (bitwise the same)",
         py_enum="OStore", arms=("wgmma",), later=True, pinned="direct",
         value_docs=("4-byte stores from the accumulators", "stmatrix into a shared-memory tile, then a TMA store",
                     "stmatrix into the warpgroup's rows of the Q tile, then a TMA store")),
    Knob("row_max", ("chain", "tree"), "chain",
         "(mainloop=ws) a block's row max as one running max over the thread's scores of the row, and the new max's "
         "lazy test before its exponent | as a tree of pairwise maxima, with both candidate exponents formed beside "
         "the test (bitwise the same)",
         py_enum="RowMax", arms=("wgmma",), later=True, pinned="chain",
         value_docs=("a running max, 2 BC/8 dependent FMNMX a row, then the lazy test, then the exponent",
                     "a tree of pairwise FMNMX (depth log2 of 2 BC/8), the test selecting between exponents")),
    Knob("ws_producer_regs", (0, 40), 0,
         "(mainloop=ws) the producer warpgroup's registers after setmaxnreg: 0, FlashAttention-3's figures (24 beside "
         "two consumer warpgroups, 32 beside three) | 40 beside two, the consumers 232",
         arms=("wgmma",), later=True, pinned=0),
    Knob("p_pack", ("after", "with_exp", "mid_wait"), "after",
         "(mainloop=ws) a block's P is packed to the input dtype after its softmax, past the rescale vote (and, "
         "overlapped, past the wait for the previous PV) | as its exponentials are computed, in the softmax's own "
         "instruction stream; overlapped, into the other of two P buffers | the same; overlapped, into P's one "
         "buffer, the previous PV waited for halfway through the exponentials (bitwise the same)",
         py_enum="PPack", arms=("wgmma",), later=True, pinned="after",
         join=Join(parent="mainloop", when="ws", label="ws+p_pack_{value}"),
         value_docs=("F2FP after the vote and the PV wait: the exponentials issue back to back",
                     "F2FP among the exponentials; overlapped, P double-buffered (BC/4 registers more)",
                     "F2FP among the exponentials; overlapped, the PV wait halfway through them, one P buffer")),
    Knob("tail_rows", ("compute", "skip", "split"), "compute",
         "(mainloop=ws) a consumer warpgroup whose 64 query rows all lie past N runs its GEMMs and softmax like the "
         "others, its stores dropped | only keeps pace on the Q and K/V barriers, so the other warpgroups of the "
         "item have the tensor cores and the MUFU pipe to themselves (bitwise the same) | where it is the item's "
         "last warpgroup alone (no mask, two key blocks or more), takes the item's first key block for the other "
         "warpgroups' rows, which start at the second and merge its partial O, max and sum from shared memory "
         "before the store (an intra-CTA split of the short item's keys; not bitwise the same)",
         py_enum="TailRows", arms=("wgmma",), later=True, pinned="compute",
         value_docs=("every warpgroup computes every block", "a warpgroup past N waits and releases, nothing more",
                     "a warpgroup past N computes the first key block for the others' rows")),
    Knob("q_buffers", (1, 2), 1,
         "(mainloop=ws, persistent, q_load=tma) one Q tile: the producer loads the next item's Q once every consumer "
         "warp has issued this item's last QK^T | two Q tiles: the next item's Q goes into the other one as soon as "
         "the producer has issued this item's K/V, blocks before this item ends (bitwise the same)",
         arms=("wgmma",), later=True, pinned=1),
    Knob("round_order", ("in_place", "turned", "snake"), "in_place",
         "(mainloop=ws, persistent) round r of the static schedule gives CTA c item r x grid + c | item r x grid + "
         "(c + r) mod grid, each round turned one CTA further (a grid that a head's query tiles divide no longer gives "
         "CTA c the same tile of every head) | item r x grid + c in even rounds, r x grid + grid - 1 - c in odd ones "
         "(with heaviest first, the CTA that took one of a round's heaviest items takes one of the next round's "
         "lightest) (bitwise the same)",
         py_enum="RoundOrder", arms=("wgmma",), later=True, pinned="in_place",
         value_docs=("CTA c: items c, c + grid, c + 2 grid, ...", "round r turned by r CTAs",
                     "odd rounds in reverse: boustrophedon")),
    Knob("rescale_factor", ("always", "when_raised", "when_raised_predicated"), "always",
         "(mainloop=ws) every block computes each row's rescale factor exp2((m_old - m_new) c), one MUFU.EX2 a row "
         "beside the block's BC/2 a thread | a warp computes them only when one of its rows raised its max (a vote "
         "and a branch; 1 otherwise, which the exponential of 0 gives) | the same vote, the factors' MUFU.EX2 "
         "predicated on it as ptxas compiles a small body (issued, their lanes off) (bitwise the same)",
         py_enum="RescaleFactor", arms=("wgmma",), later=True, pinned="always",
         value_docs=("two MUFU.EX2 a thread and block for the factors", "a vote; a branch around the factors' "
                     "exponents, MUFU.EX2 and l's update", "a vote; the factors' MUFU.EX2 predicated on it")),
    Knob("schedule", ("static", "dynamic"), "static",
         "(mainloop=ws, persistent) which items a CTA runs: CTA c takes items c, c + grid, ... of the CTA order, fixed "
         "at launch | CTA c starts with item c, then its producer claims each next item from a global counter once "
         "it has issued this item's copies and hands it to the consumers through shared memory, so a CTA whose "
         "items ran long takes fewer (bitwise the same)",
         py_enum="Schedule", arms=("wgmma",), later=True, pinned="static",
         value_docs=("CTA c: items c, c + grid, c + 2 grid, ... (round_order may turn the rounds)",
                     "the producer claims the next item from a global counter, the consumers read it from shared "
                     "memory")),
    Knob("kv_l2_hint", ("none", "evict_last"), "none",
         "(mainloop=ws) the producer's TMA loads of K and V carry no cache hint | an L2 evict-last policy "
         "(createpolicy.fractional), so a head's K/V stays in L2 for the other query tiles that read it later while Q "
         "and O stream past it (bitwise the same)",
         py_enum="KvL2Hint", arms=("wgmma",), later=True, pinned="none",
         value_docs=("cp.async.bulk.tensor without a cache hint",
                     "cp.async.bulk.tensor with .L2::cache_hint, an evict-last policy for every K and V line")),
    Knob("mbar_wait", ("poll", "suspend", "uniform"), "poll",
         "(staging=tma) a thread waiting on an mbarrier asks again each time try_wait returns at the hardware's own "
         "time limit (139 asks a wait of the producer's in the recorded N512 D64 counters) | try_wait carries a "
         "suspend-time hint of 10 ms, so the thread sleeps until the phase completes | the waiting threads vote on "
         "each ask and loop back with bra.uni, so ptxas needs no convergence barrier around the wait (bitwise the same)",
         py_enum="MbarWait", arms=("wgmma",), later=True, pinned="poll",
         value_docs=("mbarrier.try_wait.parity without a time hint, in a loop",
                     "mbarrier.try_wait.parity with a 10,000,000 ns suspend-time hint, in a loop",
                     "mbarrier.try_wait.parity, then vote.sync.all over the active mask and bra.uni back")),
    Knob("desc_math", ("per_mma", "hoisted"), "per_mma",
         "(mainloop=ws) each wgmma's shared-memory descriptors are built from its operand's address (an add, a mask, a "
         "shift and an or on the uniform datapath before every HGMMA) | a block's first descriptor of each operand is "
         "built once and the others are it plus a constant on the start-address field (bitwise the same)",
         py_enum="DescMath", arms=("wgmma",), later=True, pinned="per_mma",
         value_docs=("wg_desc(address) before every wgmma", "wg_desc once an operand and block, then wg_desc_at")),
    Knob("row_sum", ("fadd", "mma"), "fadd",
         "(mainloop=ws) each row's sum of P is added up by the softmax's threads (two FADD per pair of scores and a "
         "quad shuffle at the end) | by the tensor cores: every PV also multiplies P by a 16 x 8 tile of ones in "
         "shared memory (one m64n8k16 per 16 keys), whose accumulators are the rows' sums of P as PV reads it, "
         "rescaled with O (not bitwise: l sums P rounded to the input dtype)",
         py_enum="RowSum", arms=("wgmma",), later=True, pinned="fadd",
         value_docs=("l += p0 + p1 in the softmax, quad-reduced before 1/l",
                     "an m64n8k16 wgmma of P and a ones tile beside each PV, into four accumulators")),
    Knob("dependent_launch", ("off", "on"), "off",
         "(compute=wgmma) the kernel's CTAs start once the stream's previous kernel has ended | it is launched with "
         "programmatic stream serialization: its CTAs may start while the previous kernel's last CTAs still run, set up "
         "their barriers, and wait (griddepcontrol.wait) for that kernel to complete and its writes to be visible "
         "before their first global access; each CTA lets the next kernel launch as it starts "
         "(griddepcontrol.launch_dependents) (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off",
         value_docs=("a plain launch", "cudaLaunchKernelEx with cudaLaunchAttributeProgrammaticStreamSerialization")),
    Knob("item_order", ("cta_order", "tiles_ascending", "short_tiles_late"), "cta_order",
         "(mainloop=ws, persistent, cta_order=launch) the persistent grid's items in launch order (a head's query tiles "
         "one after another) | every head's first query tile, then every head's second, ..., so that without a mask "
         "the items a short last tile leaves a warpgroup short (N512 at BR 192: 128 rows) come last, after every full "
         "one: longest first, as items are claimed | launch order with each head's last query tile moved half a grid "
         "of heads later, so the last items claimed are short ones while a head's K/V is still in L2 when its last "
         "tile runs (bitwise the same)",
         py_enum="ItemOrder", arms=("wgmma",), later=True, pinned="cta_order",
         value_docs=("item i: query tile i mod tiles of head i / tiles", "item i: query tile i / heads of head i mod heads",
                     "head h's full tiles, then head h - W's last tile (W = grid / 2 heads); the last W heads' last "
                     "tiles at the end")),
    Knob("tma_prefetch", SWITCH, "off",
         "(staging=tma) each tensor map reaches the TMA unit's descriptor cache at its first copy, which then waits for "
         "the fetch | thread 0 prefetches every tensor map of the launch (prefetch.tensormap) as the CTA starts, before "
         "it sets up the barriers (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off",
         value_docs=("no prefetch", "prefetch.tensormap of K's, V's, and Q's and O's where they go by TMA")),
    Knob("slot_item", ("index", "decoded"), "index",
         "(schedule=dynamic) the producer hands the consumers the next item's index and every consumer thread decodes "
         "it (query tile, head, batch, K/V head: integer divisions, each an I2F, a MUFU.RCP and an F2I on the pipe the "
         "softmax's exponentials use) between two items | the producer thread decodes it as it claims it, and the "
         "consumers read the four numbers with one shared load (bitwise the same)",
         py_enum="SlotItem", arms=("wgmma",), later=True, pinned="index",
         value_docs=("the slot holds the item's index; the consumers decode it",
                     "the slot holds the query tile, head, batch and K/V head, decoded by the producer")),
    Knob("next_prefetch", SWITCH, "off",
         "(slot_item=decoded) the next item's Q tile and first K/V blocks reach shared memory from wherever they are "
         "when the producer loads them | as the producer claims the next item it prefetches them into L2 "
         "(cp.async.bulk.prefetch.tensor), blocks before it loads them, so the loads that wait for this item's Q to be "
         "released hit L2 (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off",
         value_docs=("no prefetch", "cp.async.bulk.prefetch.tensor.L2 of the next item's Q and first K/V boxes")),
    Knob("p_in", ("regs", "smem"), "regs",
         "(mainloop=ws) the PV reads P from the consumer's registers (wgmma's A from registers) | each consumer "
         "warpgroup stores its P tile into its own 128-byte-swizzled tile of shared memory (stmatrix) and the PV reads "
         "it by descriptor, so no P register is live while the next block's scores accumulate: the 176-key tile with "
         "the QK^T overlap on three consumer warpgroups at D=64 (bitwise the same)",
         py_enum="PIn", arms=("wgmma",), later=True, pinned="regs",
         value_docs=("P in registers (wgmma RS)", "P through shared memory (wgmma SS)")),
    Knob("last_round", ("whole", "key_split", "key_stream"), "whole",
         "(mainloop=ws, persistent=on) every item is a whole query tile over all keys, so when the items do not fill "
         "the last round (B2 H16 N8192 D64: 1,376 items on 132 SMs) the SMs without one idle for up to an item's time | the last "
         "items of the list are split along the keys into 2^k pieces that other CTAs run at once, and each piece's "
         "last-claimed part merges the others' fp32 partials before the store (no mask; the launch picks the items and "
         "k from the grid, or none) | (schedule=static) the key blocks of the items that leave the last round short "
         "dealt out as one stream in equal shares, CTA c the blocks [c q, c q + q): each CTA ends on one or two pieces "
         "of items, and an item's piece with its last block merges the others' (stream-K's tail)",
         py_enum="LastRound", arms=("wgmma",), later=True, pinned="whole",
         value_docs=("every item whole", "the last items split along the keys, merged by their last piece",
                     "the last items' key blocks in equal shares of the CTAs, each item merged by its last piece")),
    Knob("turn_cycle", SWITCH, "off",
         "(mainloop=ws, three consumer warpgroups) each warpgroup issues its GEMMs when its own are ready, so the three "
         "may fall into step and run their softmaxes at once while the tensor cores idle | the three take the tensor "
         "cores in a fixed cycle on three named barriers (FlashAttention-3's scheduler barrier at D=64): warpgroup w "
         "issues a step's GEMMs after warpgroup w-1 has issued its own, so the softmaxes run staggered under the "
         "others' GEMMs (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off",
         value_docs=("no turns among three consumer warpgroups", "three consumer warpgroups in a fixed cycle of turns")),
    Knob("pingpong_handoff", ("item_start", "last_turn"), "item_start",
         "(pingpong=on, mainloop=ws) each item's turns begin afresh: warpgroup 1 lets warpgroup 0 take the item's first "
         "turn as it begins the item itself, after its epilogue of the previous item and the new item's Q | the turns "
         "run on across items, as FlashAttention-3's do across tiles: warpgroup 1 hands the turn over after its last "
         "turn of an item too, so warpgroup 0 may issue the next item's first QK^T during warpgroup 1's epilogue (once a "
         "CTA it starts the cycle; the last handoff is left unanswered as the CTA exits) (bitwise the same)",
         py_enum="PingpongHandoff", arms=("wgmma",), later=True, pinned="item_start",
         value_docs=("warpgroup 1 starts each item's turns as it begins the item",
                     "the turns run on across items: warpgroup 1 hands over after its last turn")),
    Knob("warp_uniform", SWITCH, "off",
         "(mainloop=ws) the consumers branch on a warpgroup index read from threadIdx, one lane arrives on an empty "
         "barrier and one thread issues the O store inside a branch, and every thread of the static persistent "
         "producer runs the item loop: ptxas cannot prove those branches leave the warp whole, so inside the persistent "
         "item loop it keeps every address and loop count per thread and wraps the waits in convergence barriers | the "
         "warpgroup index is shuffled from lane 0 (provably the same across the warp), those one-lane arrivals, stores "
         "and waits are predicated instructions instead of branches, and the static persistent producer's idle threads "
         "leave before the item loop (bitwise the same)",
         py_enum="Switch", arms=("wgmma",), later=True, pinned="off",
         value_docs=("branches ptxas reads as divergent", "warp-uniform branches and predicated one-lane work")),
)

BY_NAME = {k.name: k for k in KNOBS}


@dataclass(frozen=True)
class Rule:
    """If every knob of `when` has one of its values, every knob of `need` must have one of its values.
    `sentence` is the validation error (str.format'ed with the knobs' JSON values); `brief` the static_assert's."""

    when: dict
    need: dict
    sentence: str
    brief: str

    def holds(self, values: dict) -> bool:
        if all(values[k] in v for k, v in self.when.items()):
            return all(values[k] in v for k, v in self.need.items())
        return True


def _vals(*v) -> tuple:
    return tuple(v)


WS_TWO_CTAS = ("knob 'mainloop'=ws runs two CTAs per SM only on two consumer warpgroups with bc=64 (104 registers a "
               "consumer thread), or two or three on one consumer warpgroup (warps=4); not min_ctas={min_ctas} with "
               "warps={warps}, bc={bc}")

PV_WIDE_REGS = ("knob 'pv_wide'=on issues m64n128k16 wgmma with P in registers, which ptxas cannot compile under 94 "
                "registers a thread (C7602): several CTAs per SM leave enough only on one consumer warpgroup (warps=4) "
                "at two CTAs; not min_ctas={min_ctas} with warps={warps}")

# In the order the validator checks them (the first broken rule is the sentence a user reads).
RULES: tuple[Rule, ...] = (
    Rule({"kv_stages": _vals(2, 3)}, {"staging": _vals("cp_async", "tma")},
         "knob 'kv_stages'={kv_stages} needs staging=cp_async (or tma): scalar loads land synchronously, so there "
         "is nothing to overlap", "a K/V pipeline needs asynchronous copies"),
    Rule({"staging": _vals("tma")}, {"compute": _vals("wgmma")},
         "knob 'staging'=tma loads the 128-byte-swizzled tiles that wgmma reads: it needs compute=wgmma (and "
         "layout=sw128), not compute={compute}", "TMA staging is the wgmma arm's"),
    Rule({"kv_overlap": _vals("on")}, {"kv_stages": _vals(1), "staging": _vals("cp_async")},
         "knob 'kv_overlap'=on is the one-buffer schedule (V under QK^T, the next K under PV): it needs "
         "kv_stages=1 and staging=cp_async, not kv_stages={kv_stages}, staging={staging}",
         "the overlap schedule is one-buffer cp.async"),
    Rule({"epilogue": _vals("smem")}, {"split_kv": _vals(1), "store": _vals("default")},
         "knob 'epilogue'=smem writes the normalised output with 16-byte default stores: it needs split_kv=1 "
         "(not {split_kv}) and store=default (not {store})", "the smem epilogue: no split, default stores"),
    Rule({"rescale_lazy": _vals("on")}, {"exp": _vals("ex2"), "rescale_skip": _vals("on")},
         "knob 'rescale_lazy'=on counts its threshold in log2 units and saves work only through the rescale vote: "
         "it needs exp=ex2 and rescale_skip=on", "the lazy max counts in log2 units, pays through the vote"),
    Rule({"pipeline": _vals("on")}, {"kv_stages": _vals(2, 3)},
         "knob 'pipeline'=on computes the next block's QK^T before this block's softmax, so the next K must "
         "already be in the ring: it needs kv_stages=2 or 3", "QK^T one block ahead reads the next K from the ring"),
    Rule({"kv_release": _vals("last_warp", "producer")}, {"staging": _vals("tma"), "kv_stages": _vals(2, 3)},
         "knob 'kv_release'={kv_release} frees a TMA ring's buffers by counts of the warps done with them: it "
         "needs staging=tma and kv_stages=2 or 3, not staging={staging}, kv_stages={kv_stages}",
         "kv_release is the TMA ring's"),
    # two CTAs of 384 threads leave 80 registers at entry and 104 to each consumer after setmaxnreg: the BC-64 tile
    # at D=64 fits (0 spills), D=128 spills 1.8 KB (results/2026-12-01_h200_short_shapes/static_cpu.txt)
    # (two rules, one sentence: a rule's need never names a knob of its when)
    # one consumer warpgroup (warps=4, 256 threads): 128 registers at entry and 232 a consumer at two CTAs per SM,
    # 80 and 136 at three
    Rule({"mainloop": _vals("ws"), "min_ctas": _vals(2, 3, 4)}, {"warps": _vals(4, 8)},
         WS_TWO_CTAS, "the warp-specialised mainloop runs several CTAs per SM on one or two consumer warpgroups"),
    Rule({"mainloop": _vals("ws"), "min_ctas": _vals(2, 3, 4), "warps": _vals(8)}, {"bc": _vals(64)},
         WS_TWO_CTAS, "the warp-specialised mainloop runs two CTAs per SM on two consumer warpgroups only with bc=64"),
    Rule({"row_max": _vals("tree")}, {"mainloop": _vals("ws")},
         "knob 'row_max'=tree is the warp-specialised mainloop's softmax: it needs mainloop=ws, not "
         "mainloop={mainloop}", "the tree row max is the warp-specialised mainloop's"),
    Rule({"ws_producer_regs": _vals(40)}, {"mainloop": _vals("ws"), "warps": _vals(8), "min_ctas": _vals(0, 1)},
         "knob 'ws_producer_regs'=40 takes 16 registers a thread from two consumer warpgroups of one CTA an SM "
         "(240 -> 232): it needs mainloop=ws, warps=8 and min_ctas 0 or 1, not mainloop={mainloop}, warps={warps}, "
         "min_ctas={min_ctas}", "a 40-register producer is the one-CTA two-consumer split"),
    Rule({"p_pack": _vals("with_exp", "mid_wait")}, {"mainloop": _vals("ws"), "item_stream": _vals("off")},
         "knob 'p_pack'={p_pack} packs P inside the warp-specialised mainloop's softmax: it needs mainloop=ws and "
         "item_stream=off, not mainloop={mainloop}, item_stream={item_stream}",
         "P packed with its exponentials is the warp-specialised mainloop's, outside the item stream"),
    Rule({"tail_rows": _vals("skip")}, {"mainloop": _vals("ws"), "pingpong": _vals("off"), "item_stream": _vals("off")},
         "knob 'tail_rows'=skip lets a warpgroup of the warp-specialised mainloop sit out its item: it needs "
         "mainloop=ws, pingpong=off and item_stream=off (a turn or the item stream would wait for it), not "
         "mainloop={mainloop}, pingpong={pingpong}, item_stream={item_stream}",
         "a warpgroup past N sits out only in the warp-specialised mainloop without turns or the item stream"),
    Rule({"tail_rows": _vals("split")}, {"mainloop": _vals("ws"), "pingpong": _vals("off"), "item_stream": _vals("off"),
                                         "q_load": _vals("tma"), "warps": _vals(8, 12)},
         "knob 'tail_rows'=split lets the warp-specialised mainloop's last consumer warpgroup, past N, take the "
         "first key block of the others' rows: it needs mainloop=ws, pingpong=off, item_stream=off, q_load=tma (it "
         "reads the others' rows of the producer's Q tile) and two or three consumer warpgroups (warps 8 or 12), not "
         "mainloop={mainloop}, pingpong={pingpong}, item_stream={item_stream}, q_load={q_load}, warps={warps}",
         "a warpgroup past N helps the others only in the warp-specialised mainloop with Q by TMA, two or three "
         "consumer warpgroups, without turns or the item stream"),
    Rule({"q_buffers": _vals(2)}, {"mainloop": _vals("ws"), "persistent": _vals("on"), "q_load": _vals("tma"),
                                   "item_stream": _vals("off"), "o_store": _vals("direct", "tma")},
         "knob 'q_buffers'=2 lets the producer of the persistent warp-specialised mainloop load the next item's Q "
         "early: it needs mainloop=ws, persistent=on, q_load=tma, item_stream=off (its own two Q tiles) and o_store "
         "direct or tma (not O through the Q tile), not mainloop={mainloop}, persistent={persistent}, "
         "q_load={q_load}, item_stream={item_stream}, o_store={o_store}",
         "two Q tiles are the persistent warp-specialised mainloop's, with Q by TMA, outside the item stream"),
    Rule({"round_order": _vals("turned", "snake")}, {"mainloop": _vals("ws"), "persistent": _vals("on"),
                                                   "item_stream": _vals("off")},
         "knob 'round_order'={round_order} orders the rounds of the warp-specialised mainloop's static persistent "
         "schedule: it needs mainloop=ws, persistent=on and item_stream=off (the item stream walks its own rounds), not "
         "mainloop={mainloop}, persistent={persistent}, item_stream={item_stream}",
         "the rounds' order is the static persistent schedule's, outside the item stream"),
    Rule({"schedule": _vals("dynamic")}, {"mainloop": _vals("ws"), "persistent": _vals("on"),
                                          "item_stream": _vals("off"), "round_order": _vals("in_place")},
         "knob 'schedule'=dynamic lets the producer of the warp-specialised mainloop's persistent CTAs claim their "
         "items from a counter: it needs mainloop=ws, persistent=on, item_stream=off (the item stream walks the "
         "static rounds) and round_order=in_place (no rounds to turn), not mainloop={mainloop}, "
         "persistent={persistent}, item_stream={item_stream}, round_order={round_order}",
         "the dynamic schedule is the persistent warp-specialised mainloop's, outside the item stream and its rounds"),
    Rule({"kv_l2_hint": _vals("evict_last")}, {"mainloop": _vals("ws")},
         "knob 'kv_l2_hint'=evict_last marks the K and V loads of the warp-specialised mainloop's producer: it needs "
         "mainloop=ws, not mainloop={mainloop}",
         "the K/V cache hint is the warp-specialised producer's"),
    Rule({"desc_math": _vals("hoisted")}, {"mainloop": _vals("ws")},
         "knob 'desc_math'=hoisted builds the warp-specialised mainloop's wgmma descriptors once a block: it needs "
         "mainloop=ws, not mainloop={mainloop}",
         "the hoisted descriptors are the warp-specialised mainloop's"),
    Rule({"row_sum": _vals("mma")}, {"mainloop": _vals("ws"), "item_stream": _vals("off"),
                                     "tail_rows": _vals("compute", "skip")},
         "knob 'row_sum'=mma adds the rows' sums of P on the tensor cores beside the warp-specialised mainloop's PV: "
         "it needs mainloop=ws, item_stream=off and tail_rows compute or skip (the stream and the split tail keep "
         "their own sums), not mainloop={mainloop}, item_stream={item_stream}, tail_rows={tail_rows}",
         "the row sums on the tensor cores are the warp-specialised mainloop's, outside the item stream and the split "
         "tail"),
    Rule({"item_order": _vals("tiles_ascending", "short_tiles_late")}, {"mainloop": _vals("ws"), "persistent": _vals("on"),
                                                    "cta_order": _vals("launch"), "split_kv": _vals(1)},
         "knob 'item_order'={item_order} reorders the warp-specialised mainloop's persistent items: it "
         "needs mainloop=ws, persistent=on, cta_order=launch and split_kv=1, not mainloop={mainloop}, "
         "persistent={persistent}, cta_order={cta_order}, split_kv={split_kv}",
         "the reordered items are the persistent warp-specialised mainloop's, in launch order, unsplit"),
    Rule({"dependent_launch": _vals("on")}, {"compute": _vals("wgmma")},
         "knob 'dependent_launch'=on waits on the previous kernel with griddepcontrol, which the Hopper arm's build "
         "targets: it needs compute=wgmma, not compute={compute}",
         "the dependent launch is the wgmma arm's"),
    Rule({"slot_item": _vals("decoded")}, {"schedule": _vals("dynamic")},
         "knob 'slot_item'=decoded changes what the dynamic schedule's slot holds: it needs schedule=dynamic, not "
         "schedule={schedule}",
         "the decoded slot is the dynamic schedule's"),
    Rule({"next_prefetch": _vals("on")}, {"slot_item": _vals("decoded"), "q_load": _vals("tma")},
         "knob 'next_prefetch'=on prefetches the item the producer claims into L2 from the decoded slot: it needs "
         "slot_item=decoded and q_load=tma, not slot_item={slot_item}, q_load={q_load}",
         "the next item's prefetch is the decoded slot's, with Q by TMA"),
    Rule({"p_in": _vals("smem")}, {"mainloop": _vals("ws"), "p_pack": _vals("after"), "tail_rows": _vals("compute", "skip"),
                                     "item_stream": _vals("off")},
         "knob 'p_in'=smem stores P where the warp-specialised PV reads it after the softmax: it needs mainloop=ws, "
         "p_pack=after, tail_rows other than split and item_stream=off, not mainloop={mainloop}, p_pack={p_pack}, "
         "tail_rows={tail_rows}, item_stream={item_stream}",
         "P through shared memory is the warp-specialised mainloop's, packed after the softmax"),
    Rule({"last_round": _vals("key_split")}, {"mainloop": _vals("ws"), "persistent": _vals("on"),
                                              "item_stream": _vals("off"), "round_order": _vals("in_place"),
                                              "tail_rows": _vals("compute", "skip")},
         "knob 'last_round'=key_split runs pieces of items in the persistent warp-specialised mainloop's list of "
         "items: it needs mainloop=ws, persistent=on, item_stream=off, round_order=in_place (each CTA's items in "
         "increasing index) and tail_rows other than split, not mainloop={mainloop}, persistent={persistent}, "
         "item_stream={item_stream}, round_order={round_order}, tail_rows={tail_rows}",
         "the last round's key split is the persistent warp-specialised list's, in place, without the tail split"),
    Rule({"last_round": _vals("key_stream")}, {"mainloop": _vals("ws"), "persistent": _vals("on"),
                                               "schedule": _vals("static"), "item_stream": _vals("off"),
                                               "round_order": _vals("in_place"), "tail_rows": _vals("compute", "skip")},
         "knob 'last_round'=key_stream deals the last items' key blocks to the persistent warp-specialised "
         "mainloop's CTAs by their index, after their whole items: it needs mainloop=ws, persistent=on, "
         "schedule=static, item_stream=off, round_order=in_place and tail_rows other than split, not "
         "mainloop={mainloop}, persistent={persistent}, schedule={schedule}, item_stream={item_stream}, "
         "round_order={round_order}, tail_rows={tail_rows}",
         "the streamed last round is the static persistent warp-specialised schedule's, in place, without the tail "
         "split"),
    Rule({"turn_cycle": _vals("on")}, {"mainloop": _vals("ws"), "warps": _vals(12), "tail_rows": _vals("compute"),
                                      "item_stream": _vals("off")},
         "knob 'turn_cycle'=on takes turns among the warp-specialised mainloop's three consumer warpgroups, each of "
         "which must take every turn of an item: it needs mainloop=ws, warps=12, tail_rows=compute and "
         "item_stream=off, not mainloop={mainloop}, warps={warps}, tail_rows={tail_rows}, item_stream={item_stream}",
         "the cycle of turns is the warp-specialised mainloop's, on three consumer warpgroups that each take every turn"),
    Rule({"pingpong_handoff": _vals("last_turn")}, {"pingpong": _vals("on"), "mainloop": _vals("ws"),
                                                    "item_stream": _vals("off")},
         "knob 'pingpong_handoff'=last_turn carries the warp-specialised mainloop's ping-pong turns across items: it "
         "needs pingpong=on, mainloop=ws and item_stream=off, not pingpong={pingpong}, mainloop={mainloop}, "
         "item_stream={item_stream}",
         "the turns' handoff across items is the warp-specialised mainloop's ping-pong"),
    Rule({"warp_uniform": _vals("on")}, {"mainloop": _vals("ws")},
         "knob 'warp_uniform'=on changes how the warp-specialised mainloop branches: it needs mainloop=ws, not "
         "mainloop={mainloop}",
         "the warp-uniform branches are the warp-specialised mainloop's"),
    Rule({"tma_prefetch": _vals("on")}, {"staging": _vals("tma")},
         "knob 'tma_prefetch'=on prefetches the launch's TMA tensor maps: it needs staging=tma, not staging={staging}",
         "the tensor-map prefetch is the TMA staging's"),
    Rule({"mbar_wait": _vals("suspend", "uniform")}, {"staging": _vals("tma")},
         "knob 'mbar_wait'={mbar_wait} changes how a thread waits on the TMA pipeline's mbarriers: it needs staging=tma, "
         "not staging={staging}",
         "the mbarrier waits are the TMA pipeline's"),
    Rule({"rescale_factor": _vals("when_raised", "when_raised_predicated")}, {"mainloop": _vals("ws")},
         "knob 'rescale_factor'={rescale_factor} skips the rescale factors' exponentials in the warp-specialised "
         "mainloop's softmax: it needs mainloop=ws, not mainloop={mainloop}",
         "the rescale factors skipped by a vote are the warp-specialised mainloop's"),
    Rule({"mainloop": _vals("ws")}, {"min_ctas": _vals(0, 1, 2, 3)},
         WS_TWO_CTAS, "the warp-specialised mainloop runs at most three CTAs per SM"),
    Rule({"mainloop": _vals("ws"), "warps": _vals(8, 12)}, {"min_ctas": _vals(0, 1, 2)},
         WS_TWO_CTAS, "the warp-specialised mainloop runs at most two CTAs per SM of two or three consumer warpgroups"),
    # ptxas gave the consumers 104 registers at t128x64w8 with min_ctas=2 and spilled 1020 B
    Rule({"kv_release": _vals("producer"), "mainloop": _vals("general")}, {"min_ctas": _vals(0, 1)},
         "knob 'kv_release'=producer adds a producer warpgroup and hands its registers to the consumers; "
         "min_ctas={min_ctas} leaves them too few (t128x64w8 spills at 2): use 0 or 1",
         "the producer warpgroup's consumers need the register file of one CTA per SM"),
    Rule({"pingpong": _vals("on")}, {"kv_release": _vals("producer"), "compute": _vals("wgmma"), "warps": _vals(8)},
         "knob 'pingpong'=on takes turns between two consumer warpgroups beside a producer warpgroup: it needs "
         "kv_release=producer, compute=wgmma and warps=8, not kv_release={kv_release}, compute={compute}, "
         "warps={warps}", "pingpong takes turns between two consumer warpgroups beside a producer warpgroup"),
    Rule({"exp_poly": _vals("quarter", "half")}, {"exp": _vals("ex2")},
         "knob 'exp_poly'={exp_poly} computes 2^x by a polynomial: it needs exp=ex2 (scores in log2 units), not "
         "exp={exp}", "the cubic computes 2^x in ex2 units"),
    Rule({"pv_slab": _vals("on")}, {"compute": _vals("mma"), "pipeline": _vals("off"), "kv_overlap": _vals("off")},
         "knob 'pv_slab'=on makes P and multiplies it into O one 16-key slab at a time in mma.sync's register "
         "fragments, on the plain block schedule: it needs compute=mma, pipeline=off and kv_overlap=off, not "
         "compute={compute}, pipeline={pipeline}, kv_overlap={kv_overlap}",
         "P slab by slab: mma.sync's register fragments, the plain block schedule"),
    Rule({"q_load": _vals("tma")}, {"mainloop": _vals("ws")},
         "knob 'q_load'=tma is the producer warpgroup of mainloop=ws loading Q: it needs mainloop=ws, not "
         "mainloop={mainloop}", "Q by TMA is the warp-specialised mainloop's producer's"),
    Rule({"pv_wide": _vals("on")}, {"mainloop": _vals("ws")},
         "knob 'pv_wide'=on is the warp-specialised mainloop's PV: it needs mainloop=ws, not mainloop={mainloop}",
         "one wide PV wgmma is the warp-specialised mainloop's"),
    # at two CTAs of two consumer warpgroups (80 registers at entry) ptxas refuses the m64n128k16 with P in
    # registers: "Insufficient registers (80) ... register target of 94 or higher" (C7602, nvcc 13.0, sm_90a)
    Rule({"pv_wide": _vals("on"), "min_ctas": _vals(2, 3, 4)}, {"warps": _vals(4)},
         PV_WIDE_REGS, "one wide PV wgmma needs 94 registers at entry: several CTAs per SM only on one warpgroup"),
    Rule({"pv_wide": _vals("on"), "warps": _vals(4)}, {"min_ctas": _vals(0, 1, 2)},
         PV_WIDE_REGS, "one wide PV wgmma needs 94 registers at entry: at most two CTAs of one warpgroup"),
    Rule({"item_stream": _vals("on")}, {"mainloop": _vals("ws"), "persistent": _vals("on"), "pipeline": _vals("on"),
                                        "q_load": _vals("tma")},
         "knob 'item_stream'=on runs a CTA's items as one stream of key blocks on the warp-specialised mainloop's "
         "static persistent schedule, the next item's Q loaded by the producer under this item: it needs "
         "mainloop=ws, persistent=on, pipeline=on and q_load=tma, not mainloop={mainloop}, persistent={persistent}, "
         "pipeline={pipeline}, q_load={q_load}",
         "the item stream is the persistent warp-specialised mainloop's, with its overlap and Q by TMA"),
    Rule({"o_store": _vals("tma", "tma_in_q")}, {"mainloop": _vals("ws")},
         "knob 'o_store'={o_store} is the warp-specialised mainloop's epilogue: it needs mainloop=ws, not "
         "mainloop={mainloop}",
         "O by TMA is the warp-specialised mainloop's epilogue"),
    Rule({"o_store": _vals("tma_in_q")}, {"persistent": _vals("off")},
         "knob 'o_store'=tma_in_q writes O into the item's Q tile, which a persistent CTA's next item loads again: "
         "it needs persistent=off (one item a CTA), not persistent={persistent}",
         "O through the Q tile is for one item a CTA"),
    Rule({"order_sections": _vals("on")}, {"cta_order": _vals("heaviest_first"), "split_kv": _vals(1)},
         "knob 'order_sections'=on orders the heaviest-first schedule by sections of heads: it needs "
         "cta_order=heaviest_first and split_kv=1, not cta_order={cta_order}, split_kv={split_kv}",
         "sections of heads order the heaviest-first schedule of unsplit items"),
)


# ---- the CUDA header ------------------------------------------------------------------------------------------
def _cond(name: str, values: tuple, by_name: dict) -> str:
    """`NAME == value || ...` in CUDA, by the enum's names where the knob has them."""
    k = by_name[name]
    names = k.cxx_names()
    terms = [f"{k.cxx_member} == {names[k.code(v)] if names else k.code(v)}" for v in values]
    return terms[0] if len(terms) == 1 else "(" + " || ".join(terms) + ")"


def _asserts(knobs: tuple, rules: tuple) -> list[str]:
    by_name = {k.name: k for k in knobs}
    out = []
    for k in knobs:  # each knob one of its values
        if k.values and k.template:
            out.append(f"static_assert({_cond(k.name, k.values, by_name)}, \"knob {k.name}: one of its values\");")
    for k in knobs:  # the arms that accept a knob off its default
        if k.template and set(k.arms) != set(ARMS):
            arms = " || ".join(f"COMPUTE == {a.upper()}" for a in k.arms)
            out.append(f"static_assert({arms} || {_cond(k.name, (k.default,), by_name)}, "
                       f"\"knob {k.name} is the {'/'.join(k.arms)} arm's\");")
    for r in rules:
        if not all(by_name[n].template for n in (*r.when, *r.need)):
            continue  # (min_ctas is no Knobs<...> member: the launch bounds read the macro)
        when, need = (" && ".join(_cond(n, v, by_name) for n, v in d.items()) for d in (r.when, r.need))
        paren = lambda c: c if c.startswith("(") and c.endswith(")") and c.count("(") == 1 else f"({c})"  # noqa: E731
        out.append(f"static_assert(!{paren(when)} || {paren(need)}, \"{r.brief}\");")
    return out


def _macro(name: str, lines: list[str]) -> str:
    """#define name, its body one statement a line"""
    return f"#define {name} \\\n" + " \\\n".join("  " + ln for ln in lines)


def _comment(text: str, first: str, rest: str, width: int = 116) -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest)


def render(knobs: tuple = KNOBS, rules: tuple = RULES) -> str:
    """The text of kernel_src/knobs_gen.cuh (of another table: tests/test_knob_table.py adds a knob)."""
    t = [k for k in knobs if k.template]
    o = ["// GENERATED from kernel_src/knob_table.py by `python3 -m kernel_src.knob_table --write`: do not edit.",
         "// The knobs, one entry each: the macro, its values, default and idea (the hypothesis and the H200 figures",
         "// are beside the code that reads it; kernel_src/knobs.py validates a combination before anything builds)."]
    for k in knobs:
        vals = " | ".join(f"{k.code(v)} {v}" for v in k.values) if k.is_enum else (
            ", ".join(str(v) for v in k.values) if k.values else "an int")
        o += _comment(f"{k.macro} ({vals}; default {k.default}): {k.doc}", "//   ", "//       ")
    o += ["#pragma once", "",
          "// the build defines FA_<NAME> for every knob (kernel_src.knobs.Knobs.defines); the default otherwise"]
    for k in knobs:
        o += [f"#ifndef {k.macro}", f"#define {k.macro} {k.code(k.default)}", "#endif"]
    o += ["", "namespace fa {", "// the values' names, in the macros' integers"]
    for k in knobs:
        names = k.cxx_names()
        if names:
            o.append("enum { " + ", ".join(f"{n} = {i}" for i, n in enumerate(names)) + " };  // " + k.name)
    o += ["}  // namespace fa", "",
          "// Knobs<...>'s template parameters, in this order (its mangled name, and so the kernel's, follows it)",
          "#define FA_KNOBS_TEMPLATE template <" + ", ".join(f"int {k.cxx_member}_" for k in t) + ">",
          "// its members, one per knob",
          _macro("FA_KNOBS_MEMBERS", [f"static constexpr int {k.cxx_member} = {k.cxx_member}_;" for k in t]),
          "// each knob one of its values, off its default only on the arms that accept it, and the rules of",
          "// knob_table.RULES (kernel_src/knobs.py checks the same with a sentence each)",
          _macro("FA_KNOBS_RULES", _asserts(knobs, rules)),
          "// Cfg's arguments: the build's knobs",
          "#define FA_CFG_ARGS " + ", ".join(k.macro for k in t),
          "// fa_config's ints, one per knob in the table's order (kernel_src/binding.py reads them)",
          f"#define FA_CONFIG_COUNT {len(knobs)}",
          _macro("FA_CONFIG_WRITE(out)", [f"out[{i}] = {k.macro};" for i, k in enumerate(knobs)]),
          ""]
    return "\n".join(o)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="kernel_src/knobs_gen.cuh from the knob table")
    ap.add_argument("--write", action="store_true", help="write the header")
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed header is not what the table gives")
    a = ap.parse_args(argv)
    text = render()
    if a.write:
        HEADER.write_text(text)
        print(f"wrote {HEADER} ({len(KNOBS)} knobs, {len(RULES)} rules)")
        return 0
    if a.check:
        ok = HEADER.exists() and HEADER.read_text() == text
        print(f"{HEADER.name}: {'up to date' if ok else 'stale: run python3 -m kernel_src.knob_table --write'}")
        return 0 if ok else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
