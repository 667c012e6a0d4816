"""From one profiled launch to a named bottleneck: the reading the seed does by eye at every rung."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from profiler.metrics import has_wgmma, metric_names

# Thresholds, each tied to the rung of the seed (000_79013c70771ace34) that motivates it.
TENSOR_IDLE_PCT = 1.0  # v0 read 0.0% while FMAs did the matmuls; v1 (mma.sync) read 27.58%
TENSOR_BOUND_PCT = 70.0  # v4 at 76-83% was the pipe leading: more warps lost (seed 2.7)
CONFLICT_FACTOR_MIN = 2.0  # v1: 32 wavefronts per ldmatrix.x4 against 4, a factor of 8
SHARED_STALL_SHARE_MIN = 0.25  # v1: shared-memory stalls were 35.3% of stall weight
GLOBAL_STALL_SHARE_MIN = 0.30  # v2: long_scoreboard 65% once the swizzle removed conflicts
MIN_WARPS_PER_SMSP = 2.0  # v0: 8.3% occupancy, "almost nothing in flight to hide latency"
BARRIER_SHARE_MIN = 0.25  # v5: barrier waits tripled as more CTAs shared __syncthreads
CHAIN_SHARE_MIN = 0.35  # v4: wait 1.66 + barrier 0.40 at 2 warps/SMSP, a serial QK->softmax->PV chain
# Not the seed's ladder but the H200's wgmma arm (t64x64w4 after kv_overlap was kept,
# results/2026-11-30_h200_tma_pipeline_tier/wgmma_n8192):
# not_selected 27% + dispatch_stall 17% = 45% of stall weight at tensor pipe 34% and issue active 64%,
# warps ready and waiting for the scheduler's one issue slot. Its seed (two K/V stages) read 31% with
# wait 34% ahead; of the ncu profiles recorded up to that run (76 files, copies included) every
# other one reads at most
# 38% (an issue_latency_chain, causal N16384), so 40% names this one and moves no other.
ISSUE_STALL_SHARE_MIN = 0.40
# Not a label (no lever is measured to relieve it on the warp-specialised mainloop: exp_poly lost there,
# results/2026-12-02_h200_q_tile_poly) but a note on any label: the XU (MUFU) pipe at least this share of its peak
# and at least the tensor pipe's. H200 ncu at N512 D64: ours 44.4-47.5% against tensor 40.9-44.1%, cuDNN's 42.8%
# against 41.0% (results/2026-12-03_h200_q_buffers, ../2026-12-03_h200_tail_rows); at causal N1024 D128 both
# 22-30% against 42-58% (results/2026-12-03_h200_agent_suite, calls 5-6).
XU_NOTE_PCT = 40.0
# Also a note, not a label: the busiest SM's active cycles at least this share of the kernel's elapsed cycles above the
# average SM's, so the CTAs with the most or the longest items set its end. H200 ncu (results/2026-12-03_cpu_round_order):
# ws3_lazy_qp_ot_pm with tail_rows=skip at N512 D64 0.113 (its static schedule gives a third of the CTAs every short
# item); the same kernel without the skip 0.046, cuDNN 0.031-0.035 there and at N2048-N8192, 0.063-0.067 under a
# causal mask; every other kernel of ours recorded with the counters 0.030-0.071.
IMBALANCE_NOTE = 0.08
SMSPS_PER_SM = 4  # every architecture this tool targets (sm_80..sm_120)

Label = Literal["tensor_idle_scalar_fma", "smem_bank_conflicts", "global_latency", "tensor_bound",
                "occupancy_limited", "barrier_bound", "issue_latency_chain", "issue_bound", "unknown"]

_DURATION_NS = {"ns": 1.0, "nsecond": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
                "second": 1e9, "s": 1e9}
_LIMITS = ("registers", "shared_memory", "warps", "ctas")  # kernel_src.arch's words


class Metrics(BaseModel):
    """One launch's counters under logical names (see profiler.metrics.METRICS); None = not collected."""
    model_config = ConfigDict(extra="forbid")

    arch: str | None = None
    kernel: str | None = None
    duration_ns: float | None = None
    tensor_pipe_pct: float | None = None
    tensor_inst: float | None = None
    fma_pipe_pct: float | None = None
    xu_pipe_pct: float | None = None  # gh100: MUFU against the XU pipe's peak (None in older profiles)
    elapsed_cycles: float | None = None  # the slowest GPC's (None in profiles before these four were collected)
    sm_active_cycles_avg: float | None = None
    sm_active_cycles_max: float | None = None
    sm_active_cycles_min: float | None = None
    sm_throughput_pct: float | None = None
    dram_throughput_pct: float | None = None
    l2_hit_pct: float | None = None
    issue_active_pct: float | None = None
    inst_executed: float | None = None
    shared_ld_wavefronts: float | None = None
    shared_ld_bank_conflicts: float | None = None
    ldsm_inst: float | None = None
    lds_inst: float | None = None
    achieved_occupancy_pct: float | None = None
    achieved_warps_per_sm: float | None = None
    theoretical_occupancy_pct: float | None = None
    theoretical_warps_per_sm: float | None = None
    occ_limit_registers: float | None = None
    occ_limit_shared_memory: float | None = None
    occ_limit_warps: float | None = None
    occ_limit_ctas: float | None = None
    registers_per_thread: float | None = None
    smem_static_per_block: float | None = None
    smem_dynamic_per_block: float | None = None
    waves_per_sm: float | None = None
    grid_size: float | None = None
    block_size: float | None = None
    gmma_inst: float | None = None  # gh100 only: warpgroup MMA instructions
    shared_gmma_wavefronts: float | None = None
    shared_gmma_bank_conflicts: float | None = None
    stalls: dict[str, float] = {}  # reason -> warp-cycles per issued instruction


def metrics_from_row(row: dict, arch: str) -> Metrics:
    """A parsed ncu row (profiler.ncu.parse_raw_csv) -> Metrics; absent or 'n/a' cells become None."""
    units = getattr(row, "units", {})
    vals: dict = {"arch": arch, "kernel": row.get("Kernel Name"), "stalls": {}}
    for logical, name in metric_names(arch).items():
        v = row.get(name)
        if not isinstance(v, (int, float)):
            continue
        if logical == "duration_ns":
            v *= _DURATION_NS.get(units.get(name, "ns"), 1.0)
        if logical.startswith("stall_"):
            vals["stalls"][logical[len("stall_"):]] = float(v)
        else:
            vals[logical] = float(v)
    return Metrics(**vals)


class Diagnosis(BaseModel):
    label: Label
    summary: str
    top_stalls: list[tuple[str, float]]  # (reason, share of stall weight), heaviest first, at most 3
    tensor_pipe_pct: float | None = None
    wavefronts_per_shared_ld: float | None = None
    ideal_wavefronts_per_shared_ld: float | None = None
    conflict_factor: float | None = None
    occupancy_limiter: str | None = None  # registers|shared_memory|warps|ctas, ties joined by "+"
    registers: float | None = None
    smem_per_cta: float | None = None
    ctas_per_sm: float | None = None  # theoretical, the smallest launch__occupancy_limit_*
    warps_per_sm: float | None = None  # achieved
    waves_per_sm: float | None = None
    xu_pipe_pct: float | None = None
    sm_imbalance: float | None = None  # (busiest SM's active cycles - the average's) / elapsed cycles


def stall_shares(stalls: dict[str, float]) -> list[tuple[str, float]]:
    # 'selected' is the issue itself (1.0 per issued instruction), not a reason to wait.
    w = {k: v for k, v in stalls.items() if k != "selected" and v > 0}
    total = sum(w.values())
    return sorted(((k, v / total) for k, v in w.items()), key=lambda kv: -kv[1]) if total else []


def _shared_conflicts(m: Metrics) -> tuple[float | None, float | None, float | None]:
    insts = (m.ldsm_inst or 0) + (m.lds_inst or 0)
    if not insts or m.shared_ld_wavefronts is None:
        return None, None, None
    per = m.shared_ld_wavefronts / insts
    if m.shared_ld_bank_conflicts is None or m.shared_ld_wavefronts <= m.shared_ld_bank_conflicts:
        return per, None, None
    # ncu counts a conflict per wavefront beyond the minimum, so the ideal is what is left:
    # the seed's 32 wavefronts - 28 conflicts = 4 per ldmatrix.x4, whatever the load width.
    ideal = (m.shared_ld_wavefronts - m.shared_ld_bank_conflicts) / insts
    return per, ideal, per / ideal


def _limiter(m: Metrics) -> tuple[str | None, float | None]:
    lim = {k: getattr(m, f"occ_limit_{k}") for k in _LIMITS}
    lim = {k: v for k, v in lim.items() if v is not None}
    if not lim:
        return None, None
    low = min(lim.values())
    return "+".join(k for k, v in lim.items() if v == low), low


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def diagnose(m: Metrics, tiles_per_warp: int = 1, issue_bound: bool = True) -> Diagnosis:
    """`tiles_per_warp`: m16 query-row tiles each warp carries (2 when BR = 32 x warps); each is an
    independent QK -> softmax -> PV chain, so latency is hidden by warps x tiles, not warps alone.
    `issue_bound=False` reads a profile with the rules before that label existed (agents 1-3): their
    replays see the `unknown` their recorded runs saw (agent.policy.Policy.diagnose_issue_bound)."""
    shares = stall_shares(m.stalls)
    share = dict(shares)
    top = shares[0][0] if shares else None
    smem_stalls = share.get("mio_throttle", 0) + share.get("short_scoreboard", 0)
    chain_stalls = share.get("wait", 0) + share.get("short_scoreboard", 0)
    # ready warps not picked (not_selected) or picked but not dispatched (dispatch_stall): the issue
    # slot, not a dependency, is what they wait for
    issue_stalls = share.get("not_selected", 0) + share.get("dispatch_stall", 0)
    per, ideal, factor = _shared_conflicts(m)
    limiter, ctas = _limiter(m)
    warps = m.achieved_warps_per_sm
    occ = warps if warps is not None else m.theoretical_warps_per_sm
    tp = m.tensor_pipe_pct
    tops = "top stalls " + (", ".join(f"{k} {_pct(s)}" for k, s in shares[:3]) or "not collected")

    # Rules in priority order: the first omission found hides the rest (seed: "every rung removes
    # one bottleneck and reveals the next"), so the earliest rung's signature wins.
    if tp is not None and tp < TENSOR_IDLE_PCT:
        label = "tensor_idle_scalar_fma"  # v0: the largest rung (6.9x) was waking the tensor pipe
        text = (f"tensor pipe at {tp:.1f}% of peak (FMA pipe {m.fma_pipe_pct or 0:.1f}%): "
                f"the matmuls run as scalar FMAs; {tops}.")
    elif factor is not None and factor >= CONFLICT_FACTOR_MIN and smem_stalls >= SHARED_STALL_SHARE_MIN:
        label = "smem_bank_conflicts"  # v1->v2: the swizzle; 8x fewer conflicts bought 1.68x (Amdahl)
        text = (f"shared loads take {per:.2f} wavefronts per instruction against an ideal {ideal:.2f} "
                f"({factor:.1f}x) and mio_throttle+short_scoreboard are {_pct(smem_stalls)} of stalls; {tops}.")
    elif top == "long_scoreboard" and share[top] >= GLOBAL_STALL_SHARE_MIN:
        label = "global_latency"  # v2->v3: wide cp.async took the load latency off the critical path
        text = (f"long_scoreboard is {_pct(share[top])} of stall weight, global-load latency at "
                f"L2 hit {m.l2_hit_pct or 0:.1f}% and DRAM {m.dram_throughput_pct or 0:.1f}% of peak; {tops}.")
    elif tp is not None and tp >= TENSOR_BOUND_PCT:
        label = "tensor_bound"  # v4/v5: pipe in the 80s leads; more warps added contention, not supply
        text = f"tensor pipe at {tp:.1f}% of peak: the pipe leads and more warps add contention; {tops}."
    elif occ is not None and occ * tiles_per_warp / SMSPS_PER_SM < MIN_WARPS_PER_SMSP:
        label = "occupancy_limited"  # v0 at 8.3%; v3's 2->1 CTA/SM cliff cost more than it hid
        tiles = f" x {tiles_per_warp} row tiles" if tiles_per_warp > 1 else ""
        text = (f"{occ:.1f} warps/SM{tiles} ({occ * tiles_per_warp / SMSPS_PER_SM:.1f} chains per scheduler, "
                f"{ctas if ctas is not None else '?'} CTAs/SM limited by {limiter or 'unknown'}) leave too little in "
                f"flight to hide latency; {tops}.")
    elif top == "barrier" and share[top] >= BARRIER_SHARE_MIN:
        label = "barrier_bound"  # v7: independent __syncthreads domains paid, not warp count
        text = f"barrier is {_pct(share[top])} of stall weight, warps waiting at __syncthreads; {tops}."
    elif top in ("wait", "short_scoreboard") and chain_stalls >= CHAIN_SHARE_MIN:
        label = "issue_latency_chain"  # v4: 1.85 cycles per removed instruction, a dependency chain
        text = (f"wait+short_scoreboard are {_pct(chain_stalls)} of stall weight at "
                f"{(occ or 0) / SMSPS_PER_SM:.1f} warps per scheduler, a serial dependency chain "
                f"that removing instructions shortens; {tops}.")
    elif issue_bound and issue_stalls >= ISSUE_STALL_SHARE_MIN:
        # last before the fallback, so it names only what no rung's rule did: every profile recorded
        # before it keeps its label, the one `unknown` (that wgmma run's) becomes this
        label = "issue_bound"
        active = "" if m.issue_active_pct is None else f", issue active {m.issue_active_pct:.0f}%"
        text = (f"not_selected+dispatch_stall are {_pct(issue_stalls)} of stall weight at tensor pipe "
                f"{'n/a' if tp is None else f'{tp:.1f}%'}{active}: warps are ready and the scheduler's issue slot "
                f"is the limit; fewer instructions per FLOP relieve it (wgmma instead of mma.sync, TMA instead of "
                f"cp.async's address arithmetic, a taller tile whose warpgroups share each K/V copy); {tops}.")
    else:
        label = "unknown"
        text = f"no rule matched at tensor pipe {'n/a' if tp is None else f'{tp:.1f}%'}; {tops}."

    if label in ("issue_latency_chain", "tensor_bound") and m.arch and has_wgmma(m.arch) and not m.gmma_inst:
        # on Hopper the fastest attention kernels issue warpgroup MMAs, a quarter of the
        # tensor instructions for the same work, which mma.sync cannot reach
        text = text[:-1] + "; this part has warpgroup MMA (wgmma), which this mma.sync kernel does not use: lever wgmma."
    xu = m.xu_pipe_pct
    if xu is not None and xu >= XU_NOTE_PCT and (tp is None or xu >= tp):
        # the exponentials as costly as the GEMMs (D=64): a share of them on the FMA pipe is FlashAttention-4's answer
        text = (text[:-1] + f"; the XU (MUFU: exp2) pipe at {xu:.1f}% of peak, at or above the tensor pipe's "
                f"{'n/a' if tp is None else f'{tp:.1f}%'}: the exponentials bound the block as much as the GEMMs.")
    imb = None
    if m.elapsed_cycles and m.sm_active_cycles_max is not None and m.sm_active_cycles_avg is not None:
        imb = (m.sm_active_cycles_max - m.sm_active_cycles_avg) / m.elapsed_cycles
        if imb >= IMBALANCE_NOTE:
            # the work, not its speed: a static schedule's rounds (round_order) or the last wave's items
            text = (text[:-1] + f"; the SMs' work is uneven: the busiest SM active {m.sm_active_cycles_max / m.elapsed_cycles:.1%}"
                    f" of the kernel's cycles, the average {m.sm_active_cycles_avg / m.elapsed_cycles:.1%}, so the CTAs "
                    "with the most or the longest items set its end.")
    smem = None
    if m.smem_static_per_block is not None or m.smem_dynamic_per_block is not None:
        smem = (m.smem_static_per_block or 0) + (m.smem_dynamic_per_block or 0)
    return Diagnosis(label=label, summary=text, top_stalls=shares[:3], tensor_pipe_pct=tp,
                     wavefronts_per_shared_ld=per, ideal_wavefronts_per_shared_ld=ideal,
                     conflict_factor=factor, occupancy_limiter=limiter, registers=m.registers_per_thread,
                     smem_per_cta=smem, ctas_per_sm=ctas, warps_per_sm=warps, waves_per_sm=m.waves_per_sm,
                     xu_pipe_pct=xu, sm_imbalance=imb)
