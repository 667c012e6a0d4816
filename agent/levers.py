"""The lever catalog: declared values a test can iterate over (STYLE.md habit 2).

Each lever names the knob values it sets, the diagnoses it targets, its precondition on the
current knobs, a predicted margin band (written to the store before the lever is measured)
and its hypothesis. Bands are leads from the seed's 5090 ladder widened for a different card,
not results: the tool measures, and a miss in either direction is itself information.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kernel_src.knobs import KnobError, Knobs

from .policy import CURRENT, Policy


class UnknownLever(KeyError):
    pass


# the compute values of a lever whose knobs both tensor-core arms share
TENSOR = ("mma", "wgmma")


class Relief(BaseModel):
    """A diagnosis a lever addresses on the compute arms named, with the band predicted there (None: the
    lever's own) and the measurement that sets it. Declared apart from `targets`: a relief is measured
    on an arm, and outranks a catalog target (agent.strategies.limiter)."""
    model_config = ConfigDict(frozen=True)

    label: str
    compute: tuple[str, ...]
    predicted: tuple[float, float] | None = None
    evidence: str


class Lever(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    sets: dict[str, str | int]  # knob -> value
    targets: tuple[str, ...]  # diagnosis labels this lever addresses
    requires: dict[str, tuple[str | int, ...]] = {}  # knob -> allowed current values
    predicted: tuple[float, float]  # margin band over the current best
    hypothesis: str
    simpler: bool = False  # strictly less code/instructions: kept at a NULL margin >= 1 (logged as a simplification)
    causal_only: bool = False  # inert without a causal mask: not worth an experiment on a non-causal problem
    noncausal_only: bool = False  # measured to lose under a causal mask: not proposed on a causal problem
    # False: outside random search's and TPE's space (agent.strategies.base.space). For a refinement of one
    # mainloop's inner loop: its values, joined to mainloop=ws, halve the share of valid points in the samplers'
    # space from the naive seed (0.011% -> 0.006% of 200,000 uniform draws), past what TPE's 10,000 asks a draw find
    sampled: bool = True
    # the hypothesis on the Hopper arm (compute=wgmma), where `hypothesis` is written for mma.sync
    on_wgmma: str = ""
    reliefs: tuple[Relief, ...] = ()
    # the move hides latency by asynchrony (a producer warpgroup's TMA, asynchronous wgmma), not by rows in
    # flight: from Policy.async_mainloop its loss of rows/SM is no cost under a latency-bound diagnosis
    asynchronous: bool = False
    # the head dims where the move changes the kernel (empty: every one); elsewhere it builds the same code
    head_dims: tuple[int, ...] = ()
    # acts only on a last query tile that leaves a consumer warpgroup's 64 rows empty (N mod BR in 1..BR - 64):
    # where N is a multiple of BR it builds a kernel that measures the same
    needs_tail: bool = False
    # proposed only at N <= max_seqlen (None: at every N): a move that carries what an item's ends cost, which pays
    # where an item is a few key blocks and is a loss where its rows are long (Q by TMA 0.955-0.989 at N8192 D128)
    max_seqlen: int | None = None
    # proposed only at N >= min_seqlen (None: at every N): a move on the last round of the persistent schedule, which
    # the launch leaves alone where its items are a few key blocks (last_round=key_stream streams nothing at B2 H16
    # N2048 D128: a share of 15 of 16 blocks)
    min_seqlen: int | None = None
    # the input dtypes where the move changes the kernel (empty: every one); elsewhere it builds the same code for
    # that dtype (row_sum=mma: a bf16 instantiation keeps the FADD sums, kernel_src/mainloop_sm90_ws.cuh: row_sum_mma)
    dtypes: tuple[str, ...] = ()

    def relief(self, label: str | None, compute: str) -> Relief | None:
        """The declared relief of diagnosis `label` on `compute`, if any."""
        return next((r for r in self.reliefs if r.label == label and compute in r.compute), None)

    def targets_on(self, compute: str) -> tuple[str, ...]:
        """The diagnoses it targets on `compute`: `targets`, plus the ones it declares a relief of there."""
        return self.targets + tuple(r.label for r in self.reliefs if compute in r.compute and r.label not in self.targets)

    def applies_to(self, knobs: Knobs, causal: bool = False, head_dim: int | None = None,
                   seqlen: int | None = None, dtype: str | None = None) -> bool:
        if self.causal_only and not causal:
            return False
        if self.noncausal_only and causal:
            return False
        if self.head_dims and head_dim is not None and head_dim not in self.head_dims:
            return False
        if self.dtypes and dtype is not None and dtype not in self.dtypes:
            return False
        if self.needs_tail and seqlen is not None and not 0 < seqlen % knobs.br <= knobs.br - 64:
            return False
        if self.max_seqlen is not None and seqlen is not None and seqlen > self.max_seqlen:
            return False
        if self.min_seqlen is not None and seqlen is not None and seqlen < self.min_seqlen:
            return False
        cur = knobs.model_dump(mode="json")
        if any(cur[k] not in allowed for k, allowed in self.requires.items()):
            return False
        return any(cur[k] != v for k, v in self.sets.items())  # a no-op is not an experiment

    def problems(self) -> str:
        """The problems it is proposed on beyond its knob precondition, as `levers` lists them ('' for every one)."""
        parts = (["causal only"] if self.causal_only else []) + (["non-causal only"] if self.noncausal_only else [])
        parts += [f"D {'/'.join(map(str, self.head_dims))}"] if self.head_dims else []
        parts += ['/'.join(self.dtypes)] if self.dtypes else []
        parts += ["N that leaves the last query tile a warpgroup short"] if self.needs_tail else []
        parts += [f"N <= {self.max_seqlen}"] if self.max_seqlen is not None else []
        parts += [f"N >= {self.min_seqlen}"] if self.min_seqlen is not None else []
        return ", ".join(parts)

    def apply(self, knobs: Knobs) -> Knobs:
        """The candidate; raises KnobError when the combination is invalid."""
        return knobs.replace(**self.sets)

    def mid(self) -> float:
        return (self.predicted[0] * self.predicted[1]) ** 0.5


CATALOG: tuple[Lever, ...] = (
    Lever(
        name="tensor_cores", sets={"compute": "mma"}, targets=("tensor_idle_scalar_fma",), predicted=(2.0, 8.0),
        hypothesis="Both matmuls run as scalar FMAs while the tensor pipe reads 0%; mma.sync m16n8k16 with "
        "ldmatrix does 64+ MACs per instruction and S's accumulator layout is P's operand layout "
        "(seed v0->v1: 6.9x on the 5090).",
    ),
    Lever(
        name="swizzle", sets={"layout": "swizzle"}, targets=("smem_bank_conflicts",), requires={"compute": ("mma",)},
        predicted=(1.15, 1.8),
        hypothesis="Row strides of 128/256 B put every ldmatrix gather on the same banks (32 wavefronts "
        "against 4); XOR-ing the 16-byte chunk with row&7 spreads them for zero bytes; Amdahl caps the "
        "gain at the shared-memory stall share (seed v1->v2: 8x fewer conflicts, 1.68x).",
    ),
    Lever(
        name="padding", sets={"layout": "pad"}, targets=("smem_bank_conflicts",), requires={"compute": ("mma",)},
        predicted=(1.05, 1.7),
        hypothesis="8 elements of padding per row also removes the conflicts, paid in shared memory per "
        "CTA; the 5090 lost a CTA/SM to it (0.62x of the swizzle), a 227 KB part may not.",
    ),
    Lever(
        name="cp_async", sets={"staging": "cp_async"}, targets=("global_latency", "occupancy_limited"),
        predicted=(1.1, 1.6),
        # only from scalar staging: on a TMA kernel the lever read as a move back to cp.async with the
        # scalar->cp.async band; a causal TMA run spent 3 of its 8 experiments on such compounds, predicted
        # 1.10-1.60, measured 0.55-0.58 (results/2026-11-30_h200_tma_pipeline_tier/tma_c8192.txt)
        requires={"staging": ("scalar",)},
        hypothesis="Scalar 2-byte staging moves 64 B per warp-instruction through registers and the load "
        "must land before its store issues; 16-byte cp.async moves 512 B per warp-instruction with no "
        "register to scoreboard (seed v2->v3: 1.51x for the width).",
    ),
    Lever(
        name="exp2", sets={"exp": "ex2"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        predicted=(1.02, 1.12),
        hypothesis="expf lowers to ~8 instructions with one MUFU; ex2.approx with log2(e) folded into the "
        "host scale removes ~7 per score from a serial QK->softmax->PV chain (seed v3->v4: 1.09x).",
    ),
    Lever(
        name="narrow_kv_tile", sets={"bc": 32}, targets=("occupancy_limited", "barrier_bound"),
        requires={"compute": TENSOR}, predicted=(0.95, 1.05),
        hypothesis="BC 64->32 halves K/V shared memory and the score registers, so more CTAs fit: more "
        "independent __syncthreads domains per SM, against twice the per-block fixed cost (seed v7 "
        "exp1: +0.38% at 12 warps/SM, v5: 0.91-1.01x elsewhere).",
        on_wgmma="On wgmma: QK^T becomes m64n32k16 and each block's two synchronous GEMM waits are paid per 32 keys "
        "instead of 64, for half the K/V shared memory and 16 score registers a thread.",
    ),
    Lever(
        name="wide_kv_tile", sets={"bc": 128}, targets=("barrier_bound", "issue_latency_chain", "tensor_bound"),
        requires={"compute": TENSOR}, predicted=(0.92, 1.08),
        hypothesis="BC 64->128 halves the key-block iterations and their barriers and softmax bookkeeping, "
        "paid in registers (scores) and shared memory per CTA, which may cost occupancy.",
        on_wgmma="On wgmma: QK^T as m64n128k16, half the blocks and so half the synchronous GEMM waits per key, for 64 "
        "fp32 score registers a thread (32 at BC 64) and twice the K/V shared memory per stage.",
    ),
    Lever(
        name="tall_q_tile", sets={"br": 128, "warps": 8}, targets=("occupancy_limited", "global_latency"),
        requires={"compute": TENSOR}, predicted=(0.9, 1.1),
        hypothesis="BR 64->128 with 8 warps shares each staged K/V tile among twice the query rows (half "
        "the L2->SMEM traffic per FLOP), but one CTA's barrier now stalls 8 warps.",
        on_wgmma="On wgmma: two warpgroups of 64 rows each issue their own GEMMs on one staged K/V tile, so the tile's "
        "copy is shared by 128 rows; the CTA's barrier now waits for both warpgroups.",
        # Issue-bound, ready warps already outnumber the issue slot, so the CTAs/SM it gives up (3 -> 1 after
        # kv_overlap) are not the cost they are under a latency diagnosis; what it buys is one K/V copy (its
        # cp.async or TMA issue, addresses and barrier) for two warpgroups' GEMMs: fewer instructions per FLOP.
        reliefs=(Relief(label="issue_bound", compute=("wgmma",), predicted=(1.0, 1.2),
                        evidence="H200 (results/2026-11-30_h200_tma_pipeline_tier): kept at 1.1437 from the TMA t64x64 two-stage seed (causal N8192); "
                        "the cp.async t128x64w8 seed ran 309.7 TFLOP/s where t64x64 ran 283.5 (separate runs, N8192)"),),
    ),
    Lever(
        name="kv_double_buffer", sets={"kv_stages": 2}, targets=("global_latency", "occupancy_limited", "issue_latency_chain"),
        requires={"compute": TENSOR, "staging": ("cp_async", "tma")}, predicted=(0.9, 1.2),
        hypothesis="Prefetch the next K/V block while this one is computed, K and V in separate cp.async groups "
        "so QK^T starts before V lands. On the 5090 depth 2 lost 12.9% because 81,920 B/CTA cost a CTA/SM "
        "under 99 KB (seed 2.5); at 227 KB the second stage may cost no occupancy at all.",
        on_wgmma="On wgmma: the same cp.async ring feeds the descriptors; with both GEMMs waited for in this step, the "
        "next block's copy is the only work that runs under them.",
    ),
    Lever(
        name="kv_triple_buffer", sets={"kv_stages": 3}, targets=("global_latency", "occupancy_limited"),
        requires={"compute": TENSOR, "staging": ("cp_async", "tma")}, predicted=(0.88, 1.15),
        hypothesis="A third K/V stage hides one more block of latency; 114,688 B/CTA at D=128 cannot launch on "
        "a 99 KB part (pre-flight refuses it there) and may halve CTAs/SM elsewhere.",
        on_wgmma="On wgmma: a third stage of the ring the descriptors read (D=128, BC 64: 114,688 B/CTA, within the 227 KB "
        "opt-in), for one more block of copy latency hidden.",
    ),
    Lever(
        name="rescale_skip", sets={"rescale_skip": "on"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        requires={"compute": TENSOR}, predicted=(0.98, 1.03),
        hypothesis="Skip O *= alpha when no row of the warp raised its max (one warp vote, bitwise identical): "
        "D/2 FMULs per block saved against a vote and a branch; seed S5 -0.17% at 8 warps/SM, +0.97% at 12.",
    ),
    Lever(
        name="q_from_smem", sets={"q_in": "smem"}, targets=("occupancy_limited",), requires={"compute": ("mma",)},
        predicted=(0.92, 1.05),
        hypothesis="Re-read Q fragments from shared memory each block: 32 registers back at D=128, which may "
        "buy a CTA/SM when registers limit, for D/16 more ldmatrix per block.",
    ),
    Lever(
        name="min_ctas_3", sets={"min_ctas": 3}, targets=("occupancy_limited",), requires={"compute": TENSOR},
        predicted=(0.95, 1.05),
        hypothesis="__launch_bounds__(128, 3) caps registers at 170 so three CTAs fit: three barrier domains "
        "per SM (seed v7 exp1: +0.38%), unless the cap spills.",
        on_wgmma="On wgmma: __launch_bounds__(THREADS, 3) caps one warpgroup at 168 registers, as on mma.sync's four "
        "warps, and two at 80, where BC 32 and 64 build with spills and BC 128 does not build (Knobs refuses it); the "
        "arm holds no Q or K fragments in registers, so the cap may cost less than on mma.sync.",
    ),
    Lever(
        name="mask_predicate", sets={"causal_mask": "predicate"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        requires={"compute": TENSOR}, causal_only=True, predicted=(1.0, 1.04),
        hypothesis="Specialise the mask per block kind (a function template): interior blocks carry no "
        "predicate at all; seed v7 exp10: +2.18% on causal, bitwise identical.",
    ),
    Lever(
        name="mask_split", sets={"causal_mask": "split"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        requires={"compute": TENSOR}, causal_only=True, predicted=(1.0, 1.05),
        hypothesis="Split the key loop at the diagonal with type tags: the two bodies' live ranges no longer "
        "coexist (seed exp15: 168 -> 161 registers, spill 16 B -> 0), bitwise identical.",
    ),
    Lever(
        name="heaviest_first", sets={"cta_order": "heaviest_first"}, targets=("occupancy_limited", "tensor_bound", "issue_latency_chain"),
        causal_only=True, predicted=(1.0, 1.4),
        hypothesis="Under causality a tile's cost is its index + 1 and launch order dispatches the cheapest "
        "first; longest-processing-time first shortens the makespan for free (seed v5: 1.349x at causal "
        "N=2048, inert without a mask), bitwise identical.",
    ),
    Lever(
        name="tall_q_tile_4_warps", sets={"br": 128, "warps": 4}, targets=("barrier_bound", "tensor_bound", "global_latency"),
        requires={"compute": ("mma",)}, predicted=(0.85, 1.1),
        hypothesis="BR 64->128 on the same 4 warps: each warp owns two m16 tiles, so every K and V fragment "
        "loaded by ldmatrix feeds two mma (half the LDSM per MMA) and each staged K/V tile serves twice the "
        "rows, paid in registers (two sets of O and S accumulators) and fewer warps per SM.",
    ),
    Lever(
        name="persistent_grid", sets={"persistent": "on"}, targets=("occupancy_limited", "barrier_bound", "tensor_bound"),
        requires={"compute": TENSOR}, predicted=(0.97, 1.05),
        hypothesis="Launch only the CTAs that fit at once and let each pull the next work item from a list: no "
        "per-CTA launch and drain, and with heaviest-first the list is longest-processing-time scheduling "
        "proper; costs an atomic and two barriers per item. Bitwise identical.",
    ),
    Lever(
        name="split_kv_2", sets={"split_kv": 2}, targets=("occupancy_limited",), requires={"compute": TENSOR},
        predicted=(0.8, 1.02),
        hypothesis="Split each tile's keys in two and merge the fp32 partials in a combine kernel: more CTAs "
        "when B x H x tiles underfills the SMs (decode, small batch); at a full grid it only adds the partials' "
        "round trip (2 x (D+1) x 4 B per row written and read back).",
    ),
    Lever(
        name="split_kv_4", sets={"split_kv": 4}, targets=("occupancy_limited",), requires={"compute": TENSOR},
        predicted=(0.7, 1.02),
        hypothesis="Four key splits: twice split_kv_2's extra traffic for parallelism that only an underfilled "
        "grid can use.",
    ),
    Lever(
        name="split_kv_8", sets={"split_kv": 8}, targets=("occupancy_limited",), requires={"compute": TENSOR},
        predicted=(0.5, 1.02),
        hypothesis="Eight key splits: the fp32 partials (8 x (D+1) x 4 B per row) outweigh the output itself "
        "16-fold at fp16; worth it only when a few heads of long sequences leave most SMs idle.",
    ),
    Lever(
        name="v_without_ldmatrix_trans", sets={"v_load": "lds"}, targets=("smem_bank_conflicts", "issue_latency_chain"),
        requires={"compute": ("mma",)}, predicted=(0.7, 1.0),
        hypothesis="The control for ldmatrix.trans: gather V's B fragments with 16-bit shared loads (8 LDS + "
        "packing per LDSM.T). Same bits into the same mma, so bitwise identical; predicted to lose, which is "
        "what shows ldmatrix.trans earns its place on this card.",
    ),
    Lever(
        name="store_streaming", sets={"store": "cs"}, targets=("tensor_bound",), requires={"compute": TENSOR},
        predicted=(0.995, 1.005),
        hypothesis="Epilogue stores evict-first (.cs): O is never re-read here; seed v7 measured it null (split sign).",
    ),
    Lever(
        name="softmax_ffma", sets={"softmax": "fused"}, targets=("issue_latency_chain", "tensor_bound"),
        requires={"compute": TENSOR, "exp": ("ex2",)}, predicted=(0.99, 1.05),
        hypothesis="Keep the row max in raw-score units and form each probability as ex2(s*c - m*c): one FFMA "
        "and one MUFU per score where the separate form pays FMUL + FADD + MUFU (FlashAttention-2's "
        "softmax). Fewer issue slots on the FMA pipe beside the tensor pipe; not bitwise (one rounding less).",
    ),
    Lever(
        name="kv_overlap", sets={"kv_overlap": "on", "kv_stages": 1}, targets=("global_latency", "occupancy_limited", "barrier_bound"),
        requires={"compute": TENSOR, "staging": ("cp_async",)}, predicted=(0.97, 1.15),
        hypothesis="FlashAttention-2's one-buffer schedule: V(j) is issued once K(j) lands and arrives under "
        "QK^T(j), K(j+1) is issued after QK^T(j) and arrives under P(j)V(j). The loads leave the critical "
        "path as with a second stage, for kv_stages=1's shared memory (replaces a K/V ring if there is one, "
        "giving its buffers back).",
        on_wgmma="On wgmma: the same one-buffer schedule around the two synchronous wgmma groups: V(j) lands under "
        "QK^T(j), K(j+1) under P(j)V(j).",
    ),
    Lever(
        name="smem_epilogue", sets={"epilogue": "smem"}, targets=("tensor_bound", "global_latency"),
        requires={"compute": ("mma",), "split_kv": (1,), "store": ("default",)}, predicted=(0.99, 1.03),
        hypothesis="Write the normalised O tile into the warp's own rows of the Q tile and store it with "
        "16-byte coalesced vectors (FlashAttention-2's epilogue): 8x fewer store instructions and whole "
        "lines per request, for one shared round trip per tile. Bitwise identical.",
    ),
    Lever(
        name="lazy_rescale", sets={"rescale_lazy": "on", "rescale_skip": "on"}, targets=("issue_latency_chain", "tensor_bound"),
        requires={"compute": TENSOR, "exp": ("ex2",)}, predicted=(0.99, 1.04),
        hypothesis="Raise a row's running max only when a block grows it by more than 2^8 (FlashAttention-4): "
        "probabilities may reach 256, exact after the final 1/l, and alpha stays 1, so the warp vote skips "
        "O *= alpha in nearly every block instead of only where no row's max moved.",
    ),
    Lever(
        name="qk_pipeline", sets={"pipeline": "on"}, targets=("issue_latency_chain", "tensor_bound"),
        requires={"compute": TENSOR, "kv_stages": (2, 3)}, predicted=(0.9, 1.12),
        hypothesis="Issue block j+1's QK^T before block j's softmax (FlashAttention-3's overlap inside a warp): "
        "the tensor pipe computes S(j+1) while the FMA and MUFU pipes compute P(j), filling the dependency "
        "waits of a kernel at two warps per scheduler. Costs BC/2 x m-tiles more registers and needs the "
        "next K one block early (three stages hide it, two expose it). Bitwise identical.",
        on_wgmma="On wgmma (FlashAttention-3's intra-warpgroup overlap): block j+1's QK^T is issued as an asynchronous "
        "wgmma group before block j's softmax and waited for with block j's PV, so the tensor cores work under the "
        "softmax. Costs the second score set (t64x64, two stages: 156 -> 174 registers with cp.async, 127 -> 157 with "
        "TMA; ptxas serialises nothing, results/2026-11-30_cpu_build_checks/wgmma_pipeline_build.txt). Not yet run.",
    ),
    Lever(
        name="wgmma", sets={"compute": "wgmma", "layout": "sw128", "q_in": "smem", "br": 64, "warps": 4},
        targets=("issue_latency_chain", "tensor_bound"), requires={"compute": ("mma",), "staging": ("cp_async",)},
        predicted=(0.7, 1.5),
        # a quarter of the tensor instructions for the same FLOPs is the most direct answer to an issue slot
        reliefs=(Relief(label="issue_bound", compute=("mma",),
                        evidence="the lever's own band: no mma.sync profile recorded so far reads issue_bound"),),
        hypothesis="On Hopper (sm_90a only; refused before any build elsewhere) move both GEMMs to warpgroup MMA: "
        "QK^T and PV as wgmma m64nNk16 from swizzled shared-memory tiles (P from registers), no ldmatrix, a "
        "quarter of the issue slots per FLOP and fewer registers than mma.sync's fragments. This first step "
        "is synchronous (each GEMM waited for before the softmax), so a wide band.",
    ),
    Lever(
        name="tma", sets={"staging": "tma"}, targets=("issue_latency_chain", "global_latency", "occupancy_limited"),
        requires={"compute": ("wgmma",), "staging": ("cp_async",), "kv_overlap": ("off",)}, predicted=(0.95, 1.25),
        hypothesis="On the Hopper arm, load K and V with the tensor memory accelerator: one thread issues "
        "cp.async.bulk.tensor boxes into the same 128-byte-swizzled tiles and arms a K and a V mbarrier per "
        "stage, and every thread waits on the barrier instead of issuing LDGSTS with its address arithmetic "
        "and a block barrier. Relieves the issue slots of an issue-bound wgmma kernel (H200 seed t64x64: "
        "issue active 59%, tensor pipe 31%) and frees registers (127 against 156 at t64x64, two stages). "
        "Bitwise identical (the same bytes in the same places).",
        reliefs=(Relief(label="issue_bound", compute=("wgmma",), predicted=(1.05, 1.3),
                        evidence="H200 (results/2026-11-30_h200_tma_pipeline_tier): kept at 1.2526 on wgmma cp_async t128x64w8 BC 32 (N8192, "
                        "309.7 -> 408 TFLOP/s with narrow_kv_tile kept before it)"),),
    ),
    Lever(
        name="tma_ring", sets={"staging": "tma", "kv_overlap": "off", "kv_stages": 2},
        targets=("issue_latency_chain", "global_latency"),
        requires={"compute": ("wgmma",), "staging": ("cp_async",), "kv_overlap": ("on",)}, predicted=(0.98, 1.25),
        hypothesis="On the Hopper arm after kv_overlap was kept (one cp.async K and V buffer, which TMA staging does "
        "not take, so `tma` no longer applies): load K and V by TMA into a two-stage mbarrier ring instead. The "
        "copies leave the issue slots (one thread issues a box; no per-thread LDGSTS address arithmetic, no "
        "cp.async group waits) and the ring keeps the next block's copy under this block's GEMMs as the overlap "
        "did, for the second stage's shared memory (t64x64: 3 -> 2 CTAs/SM). Bitwise identical.",
        # kv_overlap measured 1.11 over the two-stage cp.async ring this returns to (wgmma t64x64, N8192), so part
        # of `tma`'s 1.25 is spent undoing it: a lower floor than `tma`'s own band
        reliefs=(Relief(label="issue_bound", compute=("wgmma",),
                        evidence="H200 (results/2026-11-30_h200_tma_pipeline_tier): tma kept at 1.2526 from the cp.async ring (t128x64w8); "
                        "kv_overlap 1.1100 over that ring at t64x64"),),
    ),
    Lever(
        # every knob the arm's measured kernel has, and the mma.sync-only forms it cannot take reset: from any
        # mma.sync kernel with cp.async staging this lands on a valid kernel of the arm
        name="hopper_tile", sets={"compute": "wgmma", "layout": "sw128", "q_in": "smem", "staging": "tma", "br": 128,
                                  "warps": 8, "bc": 64, "kv_stages": 2, "v_load": "ldmatrix_trans", "epilogue": "direct",
                                  "kv_overlap": "off", "min_ctas": 0},
        targets=("issue_latency_chain", "tensor_bound"), requires={"compute": ("mma",), "staging": ("cp_async",)},
        predicted=(1.1, 2.0),
        reliefs=(Relief(label="issue_bound", compute=("mma",),
                        evidence="H200 (results/2026-11-30_h200_tma_pipeline_tier): this kernel ran 508-528 TFLOP/s non-causal N8192 fp16 (563.6 against "
                        "SDPA flash's 319.6 in its comparator pair) where the best mma.sync kernels ran 306-307 "
                        "(results/2026-11-30_h200_wgmma_first_battery); different runs, so a lead, not a paired margin"),),
        hypothesis="On Hopper (sm_90a; refused before any build elsewhere) move in one step to the arm's form that "
        "measured fastest, rather than to its first synchronous tile: wgmma for both GEMMs, K/V by TMA into a "
        "two-stage mbarrier ring, and two consumer warpgroups of 64 rows on each staged K/V tile (BR 128, 8 warps, "
        "BC 64). Each of those three is a lever on the arm (wgmma, tma, tall_q_tile), but the first alone measured "
        "NULL then SLOWER against a tuned mma.sync kernel (results/2026-11-30_h200_wgmma_first_battery), so a search that takes them one at a time "
        "never keeps the first. H200, N8192 fp16: this kernel 508 TFLOP/s; the wgmma t64x64 cp.async seed 280-284. "
        "Its K/V arrive by TMA into an mbarrier ring while the warpgroups compute, so the rows/SM it gives up (two "
        "CTAs of 128 rows where three mma.sync CTAs fit at D=64) are no cost under a latency-bound diagnosis "
        "(asynchronous, from policy 33): policy 32 from the naive seed at causal B2 H16 N4096 D64 bf16 on an H100 "
        "ranked it 17th and later for that loss, spent asks 5-10 on mma.sync rungs, reached wgmma at ask 11 and "
        "ended at 1.055x cuDNN without the D=64 compound (results/2026-12-07_h100_policy32_shapes).",
        asynchronous=True,
    ),
    Lever(
        name="last_warp_refill", sets={"kv_release": "last_warp"}, targets=("barrier_bound",),
        requires={"compute": ("wgmma",), "staging": ("tma",), "kv_stages": (2, 3)}, predicted=(0.97, 1.15),
        hypothesis="On the TMA ring, drop the block barrier that frees a K/V buffer at the end of each key block: each "
        "warp counts itself done with the buffer (an acq_rel shared-memory atomic after its wgmma groups are waited "
        "for) and the warp that completes the count issues the buffer's refill, so no warp waits for another and a "
        "fast warpgroup runs a block ahead of a slow one. The TMA two-warpgroup kernel reads barrier-bound on the H200 "
        "(t128x64w8 causal N8192: barrier 26-30% of stall weight). Same arithmetic in the same order: bitwise equal. "
        "Built before its first GPU run (results/2026-11-30_h200_tma_pipeline_tier).",
    ),
    Lever(
        name="producer_warpgroup", sets={"kv_release": "producer"}, targets=("barrier_bound",),
        requires={"compute": ("wgmma",), "staging": ("tma",), "kv_stages": (2, 3), "min_ctas": (0, 1)},
        predicted=(0.85, 1.3),
        reliefs=(Relief(label="issue_bound", compute=("wgmma",),
                        evidence="FlashAttention-3's design (a producer warpgroup, setmaxnreg 24-40 / 232-240); "
                        "from the arm at B2 H16 N2048 D128 it measured 0.8629, SLOWER, in agent 12's naive-seed run "
                        "(results/2026-12-02_h200_q_tile_poly)"),),
        hypothesis="Warp specialisation on the TMA ring: a producer warpgroup (128 more threads) issues every K/V copy "
        "of the item in order, each once the stage's empty mbarrier shows every consumer warp done with the buffer "
        "(its thread suspended in mbarrier.try_wait, not spinning on a count), and "
        "setmaxnreg moves its registers to the consumers (40 kept; the consumers get the rest of the CTA's share, "
        "232 at t128x64w8 on one CTA/SM). The consumers' instruction stream loses the copies and the refill "
        "decisions, and the ring runs a full stage ahead of the slowest consumer. Costs a CTA/SM where two fitted "
        "(t128x64w8: 384 threads, one CTA), which the larger tiles it affords (BC 128 with the pipeline: 168 "
        "registers at entry, no spill) may pay back. Same arithmetic: bitwise equal. H200 (results/2026-11-30_h200_kv_release_ws), the first "
        "form (the producer thread polling a per-stage count with ld.acquire, taking issue slots from the consumers "
        "on its sub-partition): 0.72x and 0.80x against kv_release=barrier at N8192; the mbarrier wait is not yet run.",
    ),
    Lever(
        name="pingpong", sets={"pingpong": "on"}, targets=("issue_latency_chain", "tensor_bound"),
        requires={"compute": ("wgmma",), "kv_release": ("producer",), "warps": (8,)}, predicted=(0.9, 1.15),
        hypothesis="FlashAttention-3's ping-pong between the two consumer warpgroups of a warp-specialised kernel: two "
        "named barriers make the warpgroups issue their GEMMs in turns (QK^T and PV of each key block, warpgroup 0 "
        "first), so one warpgroup's softmax runs while the tensor cores work on the other's GEMMs, where otherwise "
        "both drift into step and do their softmax at the same time. Costs a barrier wait before each GEMM issue "
        "and a few instructions of the softmax's tail that ptxas sinks past the wait. Same wgmma in the same order "
        "within each warpgroup: bitwise equal. Built, not yet run on a GPU.",
    ),
    Lever(
        name="unrolled_copies", sets={"copies": "unrolled"}, targets=("issue_latency_chain", "issue_bound"),
        requires={"compute": TENSOR, "staging": ("cp_async", "tma")}, predicted=(1.0, 1.15), simpler=True,
        hypothesis="Issue a tile's global->shared copies as a fixed, unrolled count per thread from one address per "
        "tile, with the row test only in a tile that crosses N, instead of a strided loop whose trip count the "
        "compiler cannot see (each chunk its own 64-bit address, row test and branch): on the agent's N=8192 "
        "mma.sync kernel the key loop holds 1,033 SASS instructions against its 128 HMMA, 844 with the copies "
        "unrolled. The instructions and their address chains go back to an issue-bound kernel; FlashAttention-2 "
        "copies from pointers computed once. Same bytes to the same places: bitwise identical.",
        on_wgmma="On the arm Q's tile is staged by cp.async once per item (TMA moves K and V), or K and V too with "
        "cp.async staging: fewer instructions there, a smaller share of the kernel. Bitwise identical.",
    ),
    Lever(
        # the register relief that lets FA2's 128 x 64 tile on 4 warps build without spilling on sm_80/sm_90
        # (results/2026-11-30_cpu_build_checks/pv_slab_experiment.txt)
        name="pv_slab", sets={"pv_slab": "on"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        requires={"compute": ("mma",), "pipeline": ("off",), "kv_overlap": ("off",)}, predicted=(0.97, 1.06),
        hypothesis="Make P and multiply it into O one 16-key slab at a time instead of packing the whole key block's "
        "P first, and mask each score against one per-row limit: in a warp with two m16 tiles at D=128, O's 128 "
        "accumulators, S and the block's packed P are live together and ptxas spills (128 x 64 on 4 warps: 16-120 B); "
        "a slab's S dies as its P is packed, so the tile fits in 255 registers. The block's V is waited for before "
        "its exponentials rather than under them, a loss where nothing spilled. Same sums in the same order: "
        "bitwise identical.",
    ),
    Lever(
        # no diagnosis names an MUFU-bound kernel yet (the profile reads no XU pipe): the band is the H200's guess for an
        # issue-bound kernel, below t_keep, so the agent ranks it last and the margin table measures it
        name="exp_poly_quarter", sets={"exp_poly": "quarter"}, targets=("tensor_bound",),
        # on the warp-specialised mainloop it lost at every D=64 shape of the suite (0.81-0.97 of the same kernel's
        # figure against cuDNN, results/2026-12-02_h200_q_tile_poly): not proposed there
        requires={"compute": TENSOR, "exp": ("ex2",), "mainloop": ("general",)}, predicted=(0.9, 1.02),
        hypothesis="Compute one in four of P's exponentials by a cubic on the FMA pipe (round to an integer with the "
        "1.5 x 2^23 shifter, 2^f by Horner, 2^j into the exponent field) instead of MUFU.EX2, which issues at a quarter "
        "of the FMA rate (FlashAttention-4's trade on Blackwell): relief for a kernel whose MUFU pipe saturates (the RTX "
        "5090), about 8 FMA/ALU instructions for each MUFU saved, so a loss where the kernel is issue-bound. Relative "
        "error 7.5e-5, under fp16's rounding of P.",
    ),
    Lever(
        name="exp_poly_half", sets={"exp_poly": "half"}, targets=("tensor_bound",),
        requires={"compute": TENSOR, "exp": ("ex2",), "mainloop": ("general",)}, predicted=(0.85, 1.02),
        hypothesis="Half of P's exponentials by the cubic on the FMA pipe (see exp_poly_quarter): twice the relief of "
        "the MUFU pipe and twice the FMA/ALU instructions.",
    ),
    Lever(
        name="ws_mainloop",
        sets={"mainloop": "ws", "kv_release": "producer", "pipeline": "on", "pingpong": "on", "br": 128, "warps": 8,
              "bc": 128, "softmax": "fused", "causal_mask": "predicate", "kv_stages": 2, "copies": "loop",
              "exp_poly": "off", "min_ctas": 0, "split_kv": 1, "persistent": "off"},
        targets=("issue_bound", "issue_latency_chain", "barrier_bound", "tensor_bound"),
        requires={"compute": ("wgmma",), "staging": ("tma",), "exp": ("ex2",), "warps": (4, 8),
                  "mainloop": ("general",)},
        predicted=(0.92, 1.1),
        hypothesis="FlashAttention-3's mainloop as one move (kernel_src/mainloop_sm90_ws.cuh): a producer warpgroup "
        "issues K and V by TMA on separate full/empty pipelines and keeps 24 registers, the two consumer warpgroups "
        "take 240 each (setmaxnreg), so the key tile grows to 128 without spilling; QK^T of block j is issued with "
        "PV of block j-1 and the softmax of j runs under that PV (wgmma.wait_group 1), and the two warpgroups take "
        "the tensor cores in turns. Each part alone lost on the H200 (the overlap 0.953, the turns 0.992 at causal "
        "N16384 bf16) and together they won (1.088 over the overlap alone); from the arm 1.048 at N8192 fp16, 0.926 "
        "at causal N16384 bf16 (results/2026-12-01_h200_ws_mainloop). Costs the arm's second CTA/SM.",
        asynchronous=True,
    ),
    Lever(
        name="ws_mainloop_three_warpgroups",
        sets={"mainloop": "ws", "kv_release": "producer", "pipeline": "on", "pingpong": "off", "bc": 128,
              "warps": 12, "br": 192, "softmax": "fused", "causal_mask": "predicate", "kv_stages": 2,
              "copies": "loop", "exp_poly": "off", "min_ctas": 0, "split_kv": 1, "persistent": "off"},
        targets=("issue_bound", "issue_latency_chain", "barrier_bound", "tensor_bound"),
        requires={"compute": ("wgmma",), "staging": ("tma",), "exp": ("ex2",), "warps": (4, 8),
                  "mainloop": ("general",)},
        predicted=(0.95, 1.25), asynchronous=True,
        hypothesis="FlashAttention-3's D=64 mainloop as one move: the producer warpgroup beside three consumer "
        "warpgroups (BR 192) with the intra-warpgroup overlap, O 32 + S 64 + P 32 registers of the 160 each gets. "
        "H200 at D=64 N8192 fp16: 1.240 over the arm (results/2026-12-01_h200_ws_mainloop); at D=128 the tile "
        "spills and the compiler's figures say so.",
    ),
    Lever(
        name="ws_mainloop_three_warpgroups_short_items",
        sets={"mainloop": "ws", "kv_release": "producer", "pipeline": "on", "pingpong": "off", "bc": 128,
              "warps": 12, "br": 192, "softmax": "fused", "causal_mask": "predicate", "kv_stages": 3,
              "copies": "loop", "exp_poly": "off", "min_ctas": 0, "split_kv": 1, "persistent": "on",
              "q_load": "tma", "o_store": "tma"},
        targets=("issue_bound", "issue_latency_chain", "barrier_bound", "tensor_bound"),
        requires={"compute": ("wgmma",), "staging": ("tma",), "exp": ("ex2",), "warps": (4, 8),
                  "mainloop": ("general",)},
        predicted=(0.95, 1.15), asynchronous=True, sampled=False,
        hypothesis="ws_mainloop_three_warpgroups with what an item's ends cost at short N carried in the same move: "
        "Q by TMA on the producer's own barrier, the static persistent schedule (the next item's Q lands under this "
        "item's last blocks) and O by TMA (stmatrix into shared memory, one thread's bulk store), each of which the "
        "plain mainloop pays per item. At B16 H16 N512 D64 a run from the naive seed lost the plain move from the "
        "4-warp wgmma kernel (0.844) and ended there at 0.887x cuDNN, where the suite's three-warpgroup kernel with "
        "the three read 0.946x cuDNN in its own run (results/2026-12-03_h200_round_order, two comparator rows, not a "
        "paired margin). Three K/V stages, not two (since policy 21): with two, Q's pipeline and the schedule leave "
        "16 B of spill on sm_90 (ptxas), a small cost that ranked the move behind every cost-free one, so that two "
        "runs of policy 20 there never asked it in 20 experiments and ended at 0.892-0.894x cuDNN; with three, none, "
        "147,584 B a CTA (227 KB parts only), and the third stage re-screened on that kernel paid 1.0219 "
        "(results/2026-12-03_h200_round_order). The suite's kernel with it, the lazy rescale, P packed mid-wait, "
        "heaviest first and the idle tail warpgroup read 0.986x cuDNN (results/2026-12-04_h200_n512_two_warpgroups). "
        "Not yet measured as a move.",
    ),
    Lever(
        name="ws_mainloop_short_items",
        sets={"mainloop": "ws", "kv_release": "producer", "pipeline": "on", "pingpong": "on", "br": 128, "warps": 8,
              "bc": 128, "softmax": "fused", "causal_mask": "predicate", "kv_stages": 2, "copies": "loop",
              "exp_poly": "off", "min_ctas": 0, "split_kv": 1, "persistent": "on", "q_load": "tma",
              "o_store": "tma", "ws_producer_regs": 40},
        targets=("issue_bound", "issue_latency_chain", "barrier_bound", "tensor_bound"),
        requires={"compute": ("wgmma",), "staging": ("tma",), "exp": ("ex2",), "warps": (4, 8),
                  "mainloop": ("general",)},
        predicted=(0.95, 1.15), asynchronous=True, sampled=False, max_seqlen=2048,
        hypothesis="ws_mainloop (two consumer warpgroups, BR 128) with what an item's ends cost at short N carried "
        "in the same move, as ws_mainloop_three_warpgroups_short_items does for three: Q by TMA on the producer's "
        "own barrier, the static persistent schedule (the next item's Q lands under this item's last blocks; the "
        "items keep the kernel's order, which under a causal mask wants heaviest first: in launch order the "
        "persistent schedule alone lost 0.80 at causal N1024 GQA) and O by TMA (stmatrix into shared memory, one "
        "thread's bulk store), the producer at 40 registers (ws_producer_40_regs: at 24 its loop with Q's pipeline "
        "and the schedule spills 216 B, which the compiler's figures would read as a cost). At causal B8 H32/8 N1024 "
        "D128 bf16 a run from the naive seed (policy 18) measured the plain move from the barrier kernel at 0.899 "
        "and ended on that kernel at 0.860x cuDNN (results/2026-12-04_h200_race); at that shape Q by TMA with "
        "heaviest first paid 1.048 over the mainloop without it (results/2026-12-01_h200_short_shapes), O by TMA "
        "1.110-1.179 (results/2026-12-01_h200_item_stream), and the suite's kernel with both, the wide PV and P "
        "packed read 1.0003-1.0029x cuDNN (results/2026-12-03_h200_tail_rows). Only at N <= 2048: at N8192 D128 Q by "
        "TMA lost (0.989, 0.955 causal). Not yet measured as a move.",
    ),
    Lever(
        name="ws_wide_kv_tile", sets={"bc": 176}, targets=("issue_bound", "issue_latency_chain", "tensor_bound"),
        requires={"mainloop": ("ws",), "bc": (128,)}, predicted=(0.97, 1.12),
        hypothesis="The warp-specialised mainloop's key tile at 176 (FlashAttention-3's non-causal D=128 tile): "
        "fewer, longer blocks, so each block's fixed cost (waits, the max and its shuffles, the turns) is spread over "
        "more keys; S 88 + P 44 + O 64 registers of the consumers' 240, no spill. H200 1.098 over BC 128 at causal "
        "N16384 bf16; about even at N8192 fp16 without the lazy rescale, 1.02 with it (results/2026-12-01_h200_ws_mainloop).",
    ),
    Lever(
        name="ws_three_warpgroups", sets={"warps": 12, "br": 192, "pingpong": "off"},
        targets=("issue_bound", "issue_latency_chain", "tensor_bound"), requires={"mainloop": ("ws",), "warps": (8,)},
        predicted=(0.85, 1.25),
        hypothesis="Three consumer warpgroups (BR 192, FlashAttention-3's D=64 tile) beside the producer: at D=64 "
        "O is 32 registers, so S, P and O of a 128-key block fit the 160 each warpgroup gets, and a third warpgroup's "
        "softmax overlaps the other two's GEMMs without turns (which take two). H200 at D=64 N8192 fp16: 1.240 over "
        "the arm, about 1.22 over two warpgroups; at D=128 the same tile spills (S 64 + O 64 + P 32 of 160) and is "
        "not worth building (results/2026-12-01_h200_ws_mainloop).",
    ),
    Lever(
        name="ws_q_by_tma", sets={"q_load": "tma", "persistent": "on"},
        targets=("global_latency", "occupancy_limited", "issue_latency_chain", "barrier_bound"),
        requires={"mainloop": ("ws",)}, predicted=(0.97, 1.12),
        hypothesis="The producer loads Q by TMA on its own full/empty mbarrier pair as soon as the last QK^T of the "
        "previous item is done, and each CTA runs items c, c + grid, ... (persistent): the consumers no longer copy "
        "their Q rows and wait for the round trip with nothing else to do, and the next item's Q lands under this "
        "item's last softmax, PV and stores. Pays where items are short (N <= 2048, short causal rows, many heads) "
        "and the mainloop's one CTA per SM leaves the prologue exposed; at long N the copy is a small share. H200: "
        "1.027 at N2048 D128, 1.122 at N512 D64 B16, 1.018 at N8192 D64, 0.989 at N8192 D128 and 0.955 causal there; "
        "in launch order under a causal mask 0.868 at N1024 GQA (results/2026-12-01_h200_short_shapes).",
    ),
    Lever(
        name="ws_q_by_tma_three_stages", sets={"q_load": "tma", "persistent": "on", "kv_stages": 3},
        targets=("global_latency", "occupancy_limited", "issue_latency_chain", "barrier_bound"),
        requires={"mainloop": ("ws",), "warps": (12,), "kv_stages": (2,), "persistent": ("off",)},
        predicted=(0.97, 1.10), sampled=False, noncausal_only=True, head_dims=(64,),
        hypothesis="ws_q_by_tma on the three-warpgroup kernel with a third K/V stage in the same move: with two "
        "stages Q's pipeline and the persistent schedule leave 16 B of spill (ptxas sm_90a, the one-item-a-CTA "
        "three-warpgroup kernel with O by TMA: 0 -> 16 B; with three stages 0, 147,584 B a CTA, 227 KB parts only), "
        "the cost that made ws_mainloop_three_warpgroups_short_items move to three stages. A run of policy 25 at B8 "
        "H16/4 N2048 D64 on an H100 kept the plain three-warpgroup mainloop, then lost Q by TMA alone (0.9516, the "
        "spill) and the third stage alone (0.9968), and ended at 1.030x cuDNN one item a CTA, where the suite's "
        "persistent three-stage kernels with Q by TMA read 1.09-1.12x cuDNN at that shape (results/2026-12-06_h100_policy25: "
        "separate processes, not a paired margin). Bitwise the same output. H100, policy 26's run there: 0.9544 from "
        "that one-item-a-CTA kernel, as much as Q by TMA alone lost, so the spill was not the cost "
        "(results/2026-12-06_h100_policy26).",
    ),
    Lever(
        name="ws_q_by_tma_lazy_p_mid_wait",
        sets={"q_load": "tma", "persistent": "on", "kv_stages": 3, "rescale_lazy": "on", "rescale_skip": "on",
              "p_pack": "mid_wait", "warp_uniform": "on"},
        targets=("global_latency", "occupancy_limited", "issue_latency_chain", "barrier_bound", "issue_bound"),
        requires={"mainloop": ("ws",), "warps": (12,), "kv_stages": (2,), "persistent": ("off",), "rescale_lazy": ("off",),
                  "p_pack": ("after",), "pipeline": ("on",), "item_stream": ("off",)},
        predicted=(1.01, 1.07), sampled=False, noncausal_only=True, head_dims=(64,),
        hypothesis="Q by TMA with the persistent schedule, the lazy rescale with its skip and P packed mid-wait as one "
        "move on the one-item-a-CTA three-warpgroup kernel: each loses or is level alone and pays with another. H100 at "
        "B8 H16/4 N2048 D64 fp16, paired against the final of policies 25 and 26 there (three warpgroups, two stages, O "
        "by TMA, hoisted descriptors; A/A null 0.99996-1.00009): Q by TMA with the persistent schedule 0.9505 alone, "
        "the lazy rescale 1.0027, P mid-wait 1.0007; Q by TMA with either of the others 1.0376 and 1.0408, the lazy "
        "rescale with P mid-wait 1.0230, all three 1.0565, that kernel 1.0889x cuDNN against the final's 1.0312 "
        "(results/2026-12-06_h100_gqa_ladder). ncu there: Q by TMA with the persistent schedule alone issues at "
        "46.7% against 50.1%, its stalls on the MIO queue 0.89 a warp, its L2 traffic 780 MB against 690. "
        "With a third K/V stage (the move as built: no spill, 147,584 B a CTA) 1.0525 over that final and 1.0875x "
        "cuDNN. The lazy rescale changes the bits (within the tier's bound). Policy 27's runs from the naive seed on an "
        "H100 (results/2026-12-06_h100_policy27): at that shape KEPT 1.0475 and 1.0485 at ask 13 (rng seeds 4 and 5), "
        "finals 1.115x cuDNN (policy 26: 1.031); at B2 H16 N8192 D64 0.9992 at ask 13, final 1.099x as before. "
        "From policy 31 the move also makes the branches warp-uniform (warp_uniform=on, bitwise the same output), "
        "which the static persistent schedule it turns on needs: H100 1.0099-1.0275 on the static three-warpgroup "
        "kernels (results/2026-12-06_h100_warp_uniform). H200: without it 0.9974 at N8192 D64 in policy 30's run, "
        "where the suite's warp-uniform kernel of the same move (with heaviest-first items and the idle tail) reads "
        "1.131x cuDNN against that run's final's 1.099x (results/2026-12-07_h200_policy30, "
        "results/2026-12-07_h200_suite).",
    ),
    Lever(
        name="ws_q_by_tma_heaviest_first", sets={"q_load": "tma", "persistent": "on", "cta_order": "heaviest_first"},
        targets=("global_latency", "occupancy_limited", "issue_latency_chain", "barrier_bound"),
        requires={"mainloop": ("ws",)}, predicted=(0.97, 1.12), causal_only=True,
        hypothesis="ws_q_by_tma under a causal mask, with the items in heaviest-first order: the static persistent "
        "schedule hands CTA c the items c, c + grid, ..., which in launch order keeps giving some CTAs the longest rows "
        "of every head (the persistent schedule alone 0.80 at causal N1024 GQA, H200); heaviest first, each CTA's share "
        "evens out. H200: 1.048 over heaviest first alone at causal N1024 D128 GQA, 0.905 at causal N8192 "
        "(results/2026-12-01_h200_short_shapes).",
    ),
    Lever(
        name="ws_two_ctas", sets={"bc": 64, "min_ctas": 2, "pipeline": "off", "pingpong": "off"},
        targets=("occupancy_limited", "global_latency", "barrier_bound"),
        requires={"mainloop": ("ws",), "warps": (8,)}, predicted=(0.9, 1.15),
        hypothesis="Two warp-specialised CTAs per SM at D=64: a BC-64 key tile without the overlap needs 104 "
        "registers a consumer thread (80 at entry x 384 threads, 24 to the producer), so two CTAs fit (48 KB of "
        "shared memory each) and one CTA's prologue, epilogue and barrier waits run under the other's GEMMs, the "
        "way the arm's second CTA hid them; costs the overlap and the wider tile. D=128 at two CTAs spills 1.8 KB. "
        "H200 at D=64: 1.170 over three warpgroups at N512 B16, 0.890 at N8192 (results/2026-12-01_h200_short_shapes).",
    ),
    Lever(
        name="ws_pv_wide", sets={"pv_wide": "on"},
        targets=("tensor_bound", "issue_bound", "issue_latency_chain", "barrier_bound"),
        requires={"mainloop": ("ws",)}, head_dims=(128,), predicted=(0.99, 1.07), simpler=True,
        hypothesis="At D=128 the warp-specialised mainloop's PV, per 16 keys, as one m64n128k16 wgmma across both "
        "64-column slabs of V instead of two m64n64k16: P, the A operand from registers, goes to the tensor cores "
        "once, and the consumers issue a third fewer wgmma (ncu on the H200: SDPA's cuDNN kernel issues 2/3 of our "
        "count for the same FLOPs). Bitwise the same output. H200: 1.026-1.056 over the same kernel at N2048 D128, "
        "N4096 D128 bf16, causal N1024 GQA and causal N8192 (A/A within 0.5-1%); at D=64 it is the same instruction "
        "(results/2026-12-01_h200_cudnn_anatomy).",
    ),
    Lever(
        name="ws_o_by_tma", sets={"o_store": "tma"},
        targets=("issue_latency_chain", "barrier_bound", "global_latency", "tensor_bound", "issue_bound"),
        requires={"mainloop": ("ws",)}, predicted=(1.0, 1.15),
        hypothesis="The warp-specialised epilogue writes each consumer warpgroup's O rows into a shared-memory tile by "
        "stmatrix and one thread stores them by TMA, asynchronously, instead of 2 D/8 4-byte stores a thread from the "
        "accumulators: ncu's warp-state samples put the direct epilogue at 7.8% of the consumers' time at N2048 D128 "
        "(store-queue throttle and long scoreboard), once per item, so short items pay it most. Costs one O tile of "
        "shared memory (BR x D, 32 KB at BR 128 D 128; BC 176 no longer fits). Bitwise the same output. H200: 1.081 "
        "at N2048 D128, 1.110-1.179 at causal N1024 GQA, 1.055 at N4096 bf16, 1.023 at N8192, 1.038-1.047 at N2048 "
        "D64 GQA; with item_stream 0.94-1.00 (results/2026-12-01_h200_item_stream).",
    ),
    Lever(
        name="ws_o_in_q_tile", sets={"o_store": "tma_in_q"},
        targets=("issue_latency_chain", "barrier_bound", "global_latency", "tensor_bound", "issue_bound"),
        requires={"mainloop": ("ws",), "persistent": ("off",)}, predicted=(1.0, 1.1),
        hypothesis="The TMA epilogue of ws_o_by_tma without an O tile of its own: each consumer warpgroup writes its O "
        "rows by stmatrix into its own rows of the item's Q tile, which only its own QK^T reads and which is dead once "
        "the item's last QK^T has completed, then stores them by TMA. The same relief of the direct epilogue's 4-byte "
        "stores, and the 32 KB the O tile took stay free, so BC 176 keeps its two K/V stages; one item a CTA (a "
        "persistent CTA's next Q would wait for the store). Bitwise the same output. H200, paired against the same "
        "kernel: 1.034 at N4096 D128 bf16 (BC 128 and 176), 1.016 (BC 128) and 1.034 (BC 176) at N8192 D128, 1.042 "
        "on three warpgroups at N512 D64 B16, even at N8192 D64; the A/A null of the compared kernel within 0.2-1.9% "
        "(results/2026-12-02_h200_q_tile_poly).",
    ),
    Lever(
        name="ws_p_with_exp", sets={"p_pack": "with_exp"},
        targets=("issue_latency_chain", "issue_bound", "tensor_bound", "barrier_bound"),
        requires={"mainloop": ("ws",), "warps": (8,), "item_stream": ("off",)}, sampled=False,
        predicted=(0.99, 1.035),
        hypothesis="P packed to the input dtype as its exponentials are computed, in the softmax's own basic block, "
        "where today's F2FP come after the rescale vote and the wait for the previous PV: the MUFU.EX2 then issue back "
        "to back and wait on each other (ncu at N512 D64: 19.3% of our warp samples on MUFU, 5.6% of cuDNN's, whose "
        "SASS places each MUFU among FMUL, FADD and F2FP; results/2026-12-02_h200_softmax_chain). Overlapped, P is "
        "double-buffered (BC/4 registers more: two consumer warpgroups only). Bitwise the same output. H200: 1.011 "
        "at N2048 D128 and 1.015 at N8192 D128 on the one-item-a-CTA kernel, 1.030 at N2048 D128 on the persistent "
        "one with Q by TMA; 0.992 at N512 D64; under a causal mask 0.61-0.77x cuDNN where its build without it is "
        "0.89-1.02x: ptxas serialised every wgmma of the causal build (C7520, its last PV issued from two sites in a "
        "branch; ncu barrier stalls 2.8 against 0.6, results/2026-12-03_h200_agent_suite); issued from one site since, "
        "1.009 at causal N1024 GQA and 1.046 at causal N8192 D128 on the one-item-a-CTA kernel, there 1.135x cuDNN "
        "(results/2026-12-03_h200_tail_rows). On three warpgroups it spills 516 B and loses 0.80 "
        "(results/2026-12-03_h200_p_pack).",
    ),
    Lever(
        name="ws_p_mid_wait", sets={"p_pack": "mid_wait"},
        targets=("issue_latency_chain", "issue_bound", "barrier_bound"),
        requires={"mainloop": ("ws",), "pipeline": ("on",), "item_stream": ("off",)}, predicted=(0.95, 1.02),
        sampled=False,
        hypothesis="ws_p_with_exp's packing among the exponentials with one P buffer: the overlapped loop waits for "
        "the previous PV halfway through the block's exponentials instead of after them, and packs P beside the "
        "second half. No registers more, so it fits three consumer warpgroups and the 176-key tile. Bitwise the "
        "same output. H200: 1.011 at causal N1024 GQA (1.003x cuDNN, was 0.99), 1.013 at N2048 D64 GQA and 1.003 at "
        "N512 D64 on three warpgroups, 1.016 at N512 D64 on the persistent two-consumer kernel, 1.111-1.115x cuDNN "
        "at causal N8192 and N16384 GQA on the 176-key tile; 0.935-0.947 on the two-consumer 128-key tile at "
        "non-causal D=128, where the PV is not done halfway (results/2026-12-03_h200_p_pack).",
    ),
    Lever(
        name="ws_producer_40_regs", sets={"ws_producer_regs": 40},
        targets=("issue_latency_chain", "global_latency", "barrier_bound"),
        requires={"mainloop": ("ws",), "warps": (8,), "min_ctas": (0, 1)}, predicted=(0.99, 1.03), sampled=False,
        hypothesis="The producer warpgroup keeps 40 registers after setmaxnreg instead of FlashAttention-3's 24, the "
        "two consumer warpgroups 232 instead of 240: where the producer's loop (K, V and, with Q by TMA, Q on their "
        "mbarrier pipelines, the persistent schedule's item arithmetic) spills at 24, its local-memory round trips "
        "delay each TMA issue and so the consumers' next wait. The compiler's figures show the spill it removes. "
        "H200, on the persistent kernel with Q by TMA: 1.018 at N512 D64, 1.009 at N2048 D128 where the 24-register "
        "producer spills, 0.9996 at causal N1024 GQA where it does not (results/2026-12-02_h200_softmax_chain); "
        "with P packed among the exponentials on top, 1.030 over the same kernel at N2048 D128 "
        "(results/2026-12-03_h200_p_pack).",
    ),
    Lever(
        name="ws_idle_tail_tile_major", sets={"tail_rows": "skip", "cta_order": "heaviest_first"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        # the static schedule alone: from the launch-order items claimed from a counter (ws_launch_order_row_sums) it
        # would go back to the tile-major order, whose DRAM reads cost 0.8985 there on an H100
        # (results/2026-12-06_h100_policy23, ask 17)
        requires={"mainloop": ("ws",), "persistent": ("on",), "pingpong": ("off",), "item_stream": ("off",),
                  "round_order": ("in_place",), "schedule": ("static",)},
        predicted=(0.99, 1.035), sampled=False, needs_tail=True, noncausal_only=True,
        hypothesis="Where N leaves the last query tile a consumer warpgroup short (N512 at BR 192: 128 rows), that "
        "warpgroup only keeps pace on the barriers (tail_rows=skip), and the items go in the heaviest-first decode, "
        "which without a mask is tile-major (every head's last tile first): the static persistent schedule in launch "
        "order hands CTA c tile c mod tiles of every head where the grid is a multiple of the tiles (132 = 44 x 3), "
        "so the skip shortened only the CTAs of the last tile and the others set the time (ncu at N512 D64: busiest "
        "SM 87.9 k cycles, idlest 60.1 k). Bitwise the same output. H200 on the three-warpgroup persistent kernel: "
        "1.022 at N512 D64 B16 (0.964x cuDNN, was 0.944), 1.027 at N2048 D64 GQA; the skip alone 0.995, turned rounds "
        "with the skip 1.012 and 1.008; under the agent's timer 1.017-1.019 in 8 fresh processes, and an agent run "
        "kept it at 1.0113, then kv_triple_buffer re-screened at 1.0219: 0.981x cuDNN "
        "(results/2026-12-03_h200_round_order).",
    ),
    Lever(
        name="ws_snake_rounds", sets={"round_order": "snake"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "persistent": ("on",), "item_stream": ("off",), "cta_order": ("heaviest_first",)},
        predicted=(0.99, 1.06), sampled=False, causal_only=True,
        hypothesis="Under a causal mask in heaviest-first order each round of the static persistent schedule gets "
        "lighter from its first CTA to its last, so in place CTA 0 takes the heaviest item of every round (a model of "
        "key-block counts puts the busiest CTA 3-15% above the average, results/2026-12-03_cpu_round_order); every "
        "other round reversed, the CTA that took a heavy item takes a light one next. Bitwise the same output. H200: "
        "1.057 at causal N8192 D128 over the persistent kernel in place (1.054-1.056 in 4 fresh processes); there still "
        "0.94 of the one-item-a-CTA "
        "kernel, and 0.985 of it on three warpgroups at causal N4096 D64 (results/2026-12-03_h200_round_order).",
    ),
    Lever(
        name="ws_hoisted_descriptors", sets={"desc_math": "hoisted"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",)},
        predicted=(0.998, 1.015), sampled=False, noncausal_only=True,
        hypothesis="The warp-specialised mainloop's wgmma descriptors built once a block and operand, each wgmma's "
        "from it by an add, where each was built from its address (ncu at N512 D64: four to six uniform-datapath "
        "instructions before each HGMMA, 14.6% of the instructions executed against cuDNN's 11.2%; ptxas: a key block's "
        "GEMMs 82 -> 44 SASS instructions). Bitwise the same output. H200: 1.0095 on the three-warpgroup N512 D64 "
        "final (1.0010x cuDNN in the same process), 1.0144 on the two-warpgroup one, 1.0029 at N8192 D128, 1.0055 at "
        "N8192 D64; 0.9981 at causal N8192 D128 (results/2026-12-05_h200_mbar_desc).",
    ),
    Lever(
        name="ws_dynamic_items", sets={"schedule": "dynamic", "round_order": "in_place"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "persistent": ("on",), "item_stream": ("off",)},
        predicted=(0.995, 1.07), sampled=False, causal_only=True,
        hypothesis="The persistent CTAs claim their items from a counter, heaviest first, where the static schedule "
        "gave CTA c every grid-th item: under a causal mask an item's cost is its key blocks, and a CTA that drew heavy "
        "items takes fewer. Bitwise the same output. H200: 1.0648 at causal B2 H16 N8192 D128 over the persistent "
        "kernel in place, 1.0078 over its snaking rounds; 1.0203 at causal B8 H32/8 N1024 D128 bf16 (1.0106x cuDNN); "
        "without a mask 0.949-0.985 at N512 D64, where ncu read every SM 4.4% longer: the claim is not free "
        "(results/2026-12-05_h200_schedule).",
    ),
    Lever(
        name="ws_launch_order_row_sums",
        sets={"cta_order": "launch", "schedule": "dynamic", "round_order": "in_place", "row_sum": "mma"},
        targets=("issue_latency_chain", "issue_bound", "tensor_bound", "barrier_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "warps": (12,), "persistent": ("on",), "item_stream": ("off",),
                  "tail_rows": ("compute", "skip")},
        predicted=(0.95, 1.07), sampled=False, noncausal_only=True, head_dims=(64,), dtypes=("float16",),
        hypothesis="Three moves that pay only together on the three-warpgroup persistent kernel at D=64: the items in "
        "launch order (a head's three tiles one after another, so its K/V are read from DRAM once while they run: "
        "50.4 MB at N512 D64 against 102.5 MB tile-major on an H100), claimed from a counter (whichever CTA is free "
        "takes the next), and the rows' sums of P on the tensor cores (an m64n8k16 of P and a tile of ones beside each "
        "PV instead of two FADD per pair of scores; fp16 alone, bf16 keeps the FADD sums). Alone, launch order with "
        "the counter is level with the tile-major kernel on an H100 (0.920 against 0.917x cuDNN) and the sums are "
        "within +-1% on the tile-major kernel; on the launch-order kernel the sums gain 1.036-1.040. H100 at B16 H16 "
        "N512 D64 fp16: 0.958x cuDNN with the sums where the tile-major kernel read 0.917, 0.975 with hoisted "
        "descriptors and suspended waits (results/2026-12-05_h100_n512, results/2026-12-06_h100_row_sum, "
        "results/2026-12-06_h100_row_sum_around). On the H200 launch order with the counter lost 0.9335 to the "
        "tile-major kernel at N512 (results/2026-12-05_h200_schedule) and the sums were not measured there: the "
        "band's low end. At D=128 the sums lose 0.94-0.97 (the tensor cores bound the kernel there).",
    ),
    Lever(
        name="ws_suspended_waits", sets={"mbar_wait": "suspend"},
        targets=("issue_bound", "issue_latency_chain", "barrier_bound"),
        requires={"mainloop": ("ws",)}, predicted=(0.996, 1.01), sampled=False,
        hypothesis="Each mbarrier wait of the warp-specialised mainloop asks with a suspend-time hint "
        "(mbarrier.try_wait with a time limit) instead of polling: the waiting warp sleeps in the instruction, where "
        "each poll that finds the barrier unset issues its YIELD, TRYWAIT and branch again (ncu at N512 D64 on the "
        "H200: 8.6% of the instructions executed were those asks, 2.0% with the hint), and the issue slots go to the "
        "warps with work. Bitwise the same output. H200: 1.0080 at N8192 D64, 1.0032 at N8192 D128, 1.0002 under a "
        "causal mask, 0.9969 on the three-warpgroup N512 D64 final (results/2026-12-05_h200_mbar_desc); H100 on the "
        "N512 D64 kernel with the row sums: 0.9992 alone, 1.0197 with hoisted descriptors against their 1.0170 "
        "(results/2026-12-06_h100_row_sum_around).",
    ),
    Lever(
        name="kv_evict_last", sets={"kv_l2_hint": "evict_last"},
        targets=("global_latency", "issue_latency_chain", "issue_bound"),
        requires={"mainloop": ("ws",)}, predicted=(0.99, 1.012), sampled=False,
        hypothesis="The producer's K and V loads carry an L2 evict-last cache policy, so the K/V a head's other "
        "query tiles will read stay in L2 ahead of streaming Q and O. Bitwise the same output. H100 at B16 H16 N512 "
        "D64 on the launch-order kernel with the row sums: 1.0103 (results/2026-12-06_h100_launch_gaps); H200 on the "
        "tile-major N512 final 0.9957 and 0.9911-0.9964 at causal N1024 GQA, where the DRAM reads did not move "
        "(results/2026-12-05_h200_schedule): the re-reads there were not evictions it prevents.",
    ),
    Lever(
        name="ws_short_tiles_late", sets={"item_order": "short_tiles_late"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "persistent": ("on",), "cta_order": ("launch",), "split_kv": (1,),
                  "tail_rows": ("skip",)},
        predicted=(0.998, 1.02), sampled=False, needs_tail=True, noncausal_only=True,
        hypothesis="Where N leaves the last query tile a consumer warpgroup short and that warpgroup sits the item out "
        "(tail_rows=skip), the short items are the cheap ones; in launch order a full item may be claimed last and set "
        "the end. Each head's last tile moved half a grid of heads later (66 heads on 132 SMs) makes the last items "
        "claimed short ones while a head's K/V stay in L2 for its last tile (tile by tile lost 0.91-0.92 to DRAM "
        "re-reads). Bitwise the same output. H100 on the launch-order three-warpgroup kernel with evict-last K/V: "
        "1.0176 at N2048 D64 GQA, 1.0139 at N8192 D64, 0.9995-1.0031 at N512 D64 (1.0153 with the dependent launch), "
        "DRAM reads at N512 50.4 -> 51.8 MB (results/2026-12-06_h100_short_tiles_late).",
    ),
    Lever(
        name="ws_decoded_slot", sets={"slot_item": "decoded"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "schedule": ("dynamic",)}, predicted=(0.99, 1.02), sampled=False,
        hypothesis="On the dynamic schedule the producer hands the consumers each item decoded (query tile, head, "
        "batch, K/V head) instead of its index, so no consumer thread divides between two items: each of the five "
        "integer divisions by run-time values was an I2F, a MUFU.RCP and an F2I in a dependent chain on the pipe the "
        "exponentials use. Bitwise the same output. H100 on the N512 D64 final (launch-order items from a counter, "
        "evict-last K/V): the item trace's gap between items from 4.7% to 2.5% of the span, 1.0192 (0.982 -> 1.000x "
        "cuDNN), 1.0009 at N2048 D64 GQA and 0.9929 at N8192 D64, where items are 16 times longer and ptxas scheduled "
        "the inner loop differently (results/2026-12-06_h100_slot_item).",
    ),
    Lever(
        name="ws_warp_uniform", sets={"warp_uniform": "on"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "persistent": ("on",), "schedule": ("static",), "item_stream": ("off",)},
        predicted=(1.0, 1.045), sampled=False,
        hypothesis="On the static persistent schedule ptxas keeps every value the item loop carries per thread and "
        "wraps the mbarrier waits in convergence barriers, because the consumers branch on a warpgroup index read "
        "from threadIdx and do one-lane work (a warp's arrival, the O store) inside branches, and the producer's 127 "
        "idle threads run the loop too: the warpgroup index shuffled from lane 0, the one-lane work predicated and the "
        "idle producer threads gone before the loop, the persistent D=128 build's consumers read 6 BSSY, 1 WARPSYNC "
        "and 0 YIELD where they read 17, 25 and 1, as one item a CTA does (results/2026-12-06_cpu_warp_uniform). "
        "Bitwise the same output. H100: 1.0393 on the persistent D=128 kernel at N8192, 1.0387 at N2048 (1.018 and "
        "1.052 over one item a CTA), 1.0099-1.0275 on the static three-warpgroup D=64 kernels; on the dynamic "
        "schedule, whose loop it does not clear, 0.9488 at N8192 D64, so it is not proposed there "
        "(results/2026-12-06_h100_warp_uniform).",
    ),
    Lever(
        name="ws_last_round_stream", sets={"last_round": "key_stream"},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "persistent": ("on",), "schedule": ("static",), "item_stream": ("off",),
                  "round_order": ("in_place",), "tail_rows": ("compute", "skip")},
        predicted=(1.0, 1.05), sampled=False, noncausal_only=True, min_seqlen=4096,
        hypothesis="The static persistent schedule's last round is short where the items are not a multiple of the "
        "grid (B2 H16 N8192 D128: 2,048 items on 132 SMs, 15.5 rounds), so 64 SMs idle for an item's time at the end; "
        "the last items' key blocks dealt out as one stream in equal shares of every CTA (stream-K's tail: 68 items in "
        "shares of 33 blocks there), each item merged by its piece with the last block, end that round after about half "
        "an item. Not bitwise (the split rows' sums in another order). H100: 1.0189 on the persistent static D=128 "
        "kernel at N8192 (1.109x cuDNN, 679 TFLOP/s), 1.0234 at N32768, 1.0113 at N4096 bf16, 1.0510 on the static "
        "three-warpgroup D=64 kernel at N8192, level with the dynamic schedule there "
        "(results/2026-12-06_h100_static_last_round).",
    ),
    Lever(
        name="ws_persistent_warp_uniform",
        sets={"q_load": "tma", "persistent": "on", "o_store": "tma", "kv_stages": 2, "warp_uniform": "on", "bc": 128},
        targets=("issue_latency_chain", "barrier_bound", "tensor_bound", "issue_bound", "occupancy_limited"),
        requires={"mainloop": ("ws",), "warps": (8,), "persistent": ("off",), "item_stream": ("off",), "bc": (128, 176)},
        predicted=(0.99, 1.06), sampled=False, noncausal_only=True, head_dims=(128,),
        hypothesis="The two-consumer D=128 kernel from one item a CTA to the static persistent schedule with its "
        "branches warp-uniform, as one move: Q by TMA, the persistent schedule, O stored by TMA from its own tile (O "
        "in the Q tile needs one item a CTA: the next item's Q lands there) and two K/V stages (three with the "
        "persistent schedule need 262,272 B a CTA at D=128). Each part alone loses or cannot be built from there: "
        "ws_q_by_tma is invalid beside O in the Q tile and lost 0.989 at N8192 on an H200 (0.955 causal), and ws_warp_uniform "
        "needs the persistent schedule. Together they pay where items are many: H100 from `ws_op_lazy_w_oq_pk_dm` "
        "(one item a CTA) to the persistent static warp-uniform kernel (which also has the 40-register producer) "
        "1.0184 at N8192, 1.0522 at N2048, 1.0322 at N4096 bf16, 1.0079 at N32768 (results/2026-12-06_h100_warp_uniform). "
        "Bitwise the same output. H200, separate processes: policy 30's N8192 D128 final (that kernel with three "
        "stages) 1.078x cuDNN in its own row, the persistent warp-uniform kernel 1.087x in the suite's screen and "
        "1.108x with the streamed last round (ws_last_round_stream, which this move makes possible) "
        "(results/2026-12-07_h200_policy30, results/2026-12-07_h200_suite). From 176 keys too (the move goes back to "
        "128: two K/V stages of 176 keys beside O's own tile need 245,856 B a CTA at D=128): policy 31's run at N8192 "
        "on an H100 kept ws_wide_kv_tile (1.0156) before this lever, which then could not be built, and ended one "
        "item a CTA at 176 keys, 1.056x cuDNN, where the persistent warp-uniform kernel with the streamed last round "
        "reads 1.108x (results/2026-12-07_h100_tier_policy31).",
    ),
    Lever(
        name="store_write_through", sets={"store": "wt"}, targets=("tensor_bound",), requires={"compute": TENSOR},
        predicted=(0.995, 1.005),
        hypothesis="Epilogue stores write-through (.wt); seed v7 measured 0.99980, consistently slower.",
    ),
)

BY_NAME = {lv.name: lv for lv in CATALOG}


def catalog_for(policy: Policy | None = None) -> tuple[Lever, ...]:
    """The catalog as the agent of `policy` reads it: for the current policy (or None) CATALOG itself;
    for an earlier one the catalog it searched, rebuilt from the catalog's history (agent.replay.catalog),
    so that its recorded runs replay with the levers, preconditions and reliefs they ran with."""
    if policy is None or policy == CURRENT:
        return CATALOG
    from .replay.catalog import as_read_by

    return as_read_by(policy)


def get(name: str, version: int | None = None) -> Lever:
    """Lever `name` as policy `version` read it (None: today's): a recorded run's move is rebuilt with the knobs
    its policy's lever set, where a later policy changed them (agent.replay.catalog.EARLIER_SETS)."""
    if version is not None and version != CURRENT.version:
        from .policy import policy

        lv = next((x for x in catalog_for(policy(version)) if x.name == name), None)
        if lv is not None:
            return lv
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownLever(f"unknown lever '{name}'; known: {', '.join(BY_NAME)}") from None


def candidate(lever: Lever, knobs: Knobs) -> tuple[Knobs | None, str | None]:
    """(candidate knobs, None) or (None, why it cannot be built)."""
    try:
        return lever.apply(knobs), None
    except KnobError as e:
        return None, str(e)
