"""The ncu metrics we collect: logical name -> ncu name, and how the names differ per architecture.

The base table is gh100's (sm_90, ncu 2025.3.1): every hardware counter in it is in
`ncu --query-metrics --chip gh100` (shared/device/h200/ncu_metrics_gh100.txt; a test re-checks), and
the whole list, `launch__*` and `sm__maximum_warps_*` included (they come from the launch and the
occupancy calculator, so that listing omits them), resolved in one real capture on the H200.
"""
from __future__ import annotations

import re

# Warp-stall reasons as gh100 lists them. `gmma` (wgmma) exists only on sm_90 and this kernel
# issues mma.sync, so it is left out to keep one list for every architecture.
STALL_REASONS = (
    "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "wait", "barrier",
    "not_selected", "selected", "lg_throttle", "dispatch_stall", "no_instruction", "tex_throttle",
    "membar", "drain", "branch_resolving", "sleeping", "misc", "imc_miss",
)

# Stalls as warps stalled per issue cycle, i.e. warp-cycles per issued instruction: the unit of
# the seed's figures (long_scoreboard 1.1571 -> 0.1727, wait 1.6579, math_pipe_throttle 4.7622).
_STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"

METRICS: dict[str, str] = {
    "duration_ns": "gpu__time_duration.sum",
    # HMMA cycles, not instruction count: the seed's "tensor pipe 0.0% -> 27.58% -> 82.66%".
    "tensor_pipe_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    # Flat across tilings of the same matmuls (seed 2.7: 16,777,216 at every tile).
    "tensor_inst": "sm__inst_executed_pipe_tensor_op_hmma.sum",
    "fma_pipe_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm_throughput_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_throughput_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    # Measured alongside the pipe: a tiling change multiplies the fixed per-block cost (seed 2.7).
    "inst_executed": "smsp__inst_executed.sum",
    # Shared loads: wavefronts and conflicts count LDS+LDSM together; the requests are
    # LDS (sass) + LDSM, as NVIDIA's own SharedMemoryConflicts rule adds them for cc >= 7.5.
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_ld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "ldsm_inst": "smsp__inst_executed_op_ldsm.sum",
    "lds_inst": "smsp__sass_inst_executed_op_shared_ld.sum",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "achieved_warps_per_sm": "sm__warps_active.avg.per_cycle_active",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "theoretical_warps_per_sm": "sm__maximum_warps_avg_per_active_cycle",
    "occ_limit_registers": "launch__occupancy_limit_registers",
    "occ_limit_shared_memory": "launch__occupancy_limit_shared_mem",
    "occ_limit_warps": "launch__occupancy_limit_warps",
    "occ_limit_ctas": "launch__occupancy_limit_blocks",
    "registers_per_thread": "launch__registers_per_thread",
    "smem_static_per_block": "launch__shared_mem_per_block_static",
    "smem_dynamic_per_block": "launch__shared_mem_per_block_dynamic",
    "waves_per_sm": "launch__waves_per_multiprocessor",
    "grid_size": "launch__grid_size",
    # How evenly the SMs share the work: cycles with a warp in flight on the average, busiest and idlest SM, beside
    # the kernel's elapsed cycles (its slowest GPC). Every chip has both counters (the SpeedOfLight section's).
    "elapsed_cycles": "gpc__cycles_elapsed.max",
    "sm_active_cycles_avg": "sm__cycles_active.avg",
    "sm_active_cycles_max": "sm__cycles_active.max",
    "sm_active_cycles_min": "sm__cycles_active.min",
    "block_size": "launch__block_size",
    **{f"stall_{r}": _STALL.format(r) for r in STALL_REASONS},
}

# Names that differ from gh100's, from ncu outputs of those chips (not from a --query-metrics
# list of our own): ad10x exposes the HMMA counters only with a `_v2` suffix (RTX 4090/4060
# captures); gb20x has no pipe_tensor_op_* family at all, only the aggregate tensor pipe and the
# subpipe instruction counter (a `--query-metrics --chip gb202` comparison, ncu 2025.4).
_OVERRIDES: dict[str, dict[str, str]] = {
    "ad10x": {
        "tensor_pipe_pct": "sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_active",
        "tensor_inst": "sm__inst_executed_pipe_tensor_op_hmma_v2.sum",
    },
    "gb20x": {
        "tensor_pipe_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
        "tensor_inst": "sm__inst_executed_pipe_tensor_subpipe_hmma_op_hmma.sum",
    },
}

# What has not been checked against that chip's own --query-metrics list: run
# `ncu --query-metrics --chip <chip>` there before trusting a profile, and move names out of here.
UNVERIFIED: dict[str, tuple[str, ...]] = {
    "ga100": ("fma_pipe_pct", "issue_active_pct", "stall_*"),
    "ga10x": ("tensor_pipe_pct", "tensor_inst", "stall_*"),
    "ad10x": ("fma_pipe_pct", "issue_active_pct", "stall_*"),
    "gb20x": ("fma_pipe_pct", "issue_active_pct", "ldsm_inst", "lds_inst", "shared_ld_wavefronts",
              "shared_ld_bank_conflicts", "stall_*"),
}

_CHIP = {80: "ga100", 86: "ga10x", 87: "ga10x", 89: "ad10x", 90: "gh100", 120: "gb20x", 121: "gb20x"}


def compute_capability(arch: str | int) -> int:
    """90 for 'sm_90', 'sm_90a', 'compute_90', '90', '9.0' or 90."""
    s = str(arch).strip().lower()
    if m := re.fullmatch(r"(\d+)\.(\d)", s):
        return int(m[1]) * 10 + int(m[2])
    if m := re.fullmatch(r"(?:sm_|compute_)?(\d+)[af]?", s):
        return int(m[1])
    raise ValueError(f"arch {arch!r} is not of the form sm_90, sm_90a, 90 or 9.0")


def chip_family(arch: str | int) -> str:
    cc = compute_capability(arch)
    if cc not in _CHIP:
        raise ValueError(f"no ncu metric table for compute capability {cc}; known: "
                         f"{', '.join(f'sm_{c}' for c in sorted(_CHIP))}")
    return _CHIP[cc]


# Counters one chip alone has, collected there only (an unknown name would fail the whole ncu call
# elsewhere): on gh100 the warpgroup MMA path, from `ncu --query-metrics --chip gh100`
# (../shared/device/h200/ncu_metrics_gh100.txt). The tensor-pipe cycles above already count HGMMA.
_ONLY: dict[str, dict[str, str]] = {
    "gh100": {
        "gmma_inst": "sm__inst_executed_pipe_tensor_op_gmma.sum",
        "shared_gmma_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
        "shared_gmma_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
        # MUFU (ex2, rcp) instructions against the XU pipe's peak, captured on the H200 (results/2026-12-03_h200_q_buffers:
        # at N512 D64 44-48% beside a tensor pipe of 41-44%); not yet checked on the other chips' lists
        "xu_pipe_pct": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    },
}


def metric_names(arch: str | int) -> dict[str, str]:
    """Logical name -> the ncu metric name on `arch`."""
    chip = chip_family(arch)
    return {**METRICS, **_OVERRIDES.get(chip, {}), **_ONLY.get(chip, {})}


def has_wgmma(arch: str | int) -> bool:
    """Whether the part has warpgroup MMA (Hopper: sm_90, built as sm_90a)."""
    return compute_capability(arch) == 90
