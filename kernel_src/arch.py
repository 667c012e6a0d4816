"""Per-architecture limits, and the occupancy arithmetic a candidate can be refused by.

The table is the CUDA C++ Programming Guide's "technical specifications per compute
capability"; at run time the values cudaGetDeviceProperties reports (through torch) replace
it, so no card's limits are hard-coded into a decision.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ArchLimits(BaseModel):
    model_config = ConfigDict(frozen=True)

    arch: str
    smem_per_block_optin: int  # bytes a CTA may opt in to
    smem_per_sm: int  # bytes per SM available to CTAs
    smem_reserved_per_block: int = 1024  # the runtime reserves 1 KB per CTA since sm_80
    regs_per_sm: int = 65536
    max_regs_per_thread: int = 255
    max_warps_per_sm: int
    max_ctas_per_sm: int
    sm_count: int | None = None  # only known from a device
    global_mem: int | None = None  # bytes of device memory; only known from a device


KB = 1024
TABLE: dict[str, ArchLimits] = {
    "sm_80": ArchLimits(arch="sm_80", smem_per_block_optin=163 * KB, smem_per_sm=164 * KB, max_warps_per_sm=64, max_ctas_per_sm=32),
    "sm_86": ArchLimits(arch="sm_86", smem_per_block_optin=99 * KB, smem_per_sm=100 * KB, max_warps_per_sm=48, max_ctas_per_sm=16),
    "sm_89": ArchLimits(arch="sm_89", smem_per_block_optin=99 * KB, smem_per_sm=100 * KB, max_warps_per_sm=48, max_ctas_per_sm=24),
    "sm_90": ArchLimits(arch="sm_90", smem_per_block_optin=227 * KB, smem_per_sm=228 * KB, max_warps_per_sm=64, max_ctas_per_sm=32),
    "sm_120": ArchLimits(arch="sm_120", smem_per_block_optin=99 * KB, smem_per_sm=100 * KB, max_warps_per_sm=48, max_ctas_per_sm=32),
}


class ArchError(ValueError):
    pass


def limits(arch: str) -> ArchLimits:
    if arch not in TABLE:
        raise ArchError(f"unknown arch '{arch}'; known: {', '.join(TABLE)}")
    return TABLE[arch]


def from_device_properties(props) -> ArchLimits:
    """Limits from a torch.cuda device-properties object, the table filling what it lacks."""
    arch = f"sm_{props.major}{props.minor}"
    base = TABLE.get(arch) or ArchLimits(
        arch=arch, smem_per_block_optin=48 * KB, smem_per_sm=64 * KB, max_warps_per_sm=32, max_ctas_per_sm=16
    )
    upd = {"sm_count": props.multi_processor_count}
    if getattr(props, "total_memory", None):
        upd["global_mem"] = int(props.total_memory)
    for ours, theirs in (
        ("smem_per_block_optin", "shared_memory_per_block_optin"),
        ("smem_per_sm", "shared_memory_per_multiprocessor"),
        ("regs_per_sm", "regs_per_multiprocessor"),
    ):
        v = getattr(props, theirs, None)
        if v:
            upd[ours] = int(v)
    mt = getattr(props, "max_threads_per_multi_processor", None)
    if mt:
        upd["max_warps_per_sm"] = int(mt) // 32
    return base.model_copy(update=upd)


def ctas_per_sm(lim: ArchLimits, *, threads: int, smem: int, regs: int) -> tuple[int, str]:
    """Resident CTAs per SM and which resource limits it (the occupancy calculator's rules:
    registers are allocated per warp in units of 256, shared memory per CTA plus 1 KB)."""
    warps = -(-threads // 32)
    regs_per_warp = -(-max(regs, 1) * 32 // 256) * 256
    by = {
        "warps": lim.max_warps_per_sm // warps,
        "ctas": lim.max_ctas_per_sm,
        "registers": lim.regs_per_sm // (regs_per_warp * warps),
        "shared_memory": lim.smem_per_sm // (smem + lim.smem_reserved_per_block) if smem else lim.max_ctas_per_sm,
    }
    limiter = min(by, key=lambda k: by[k])
    return by[limiter], limiter


def launch_refusal(lim: ArchLimits, *, smem: int, threads: int, regs: int | None = None,
                   needs_arch: str | None = None) -> str | None:
    """None when a CTA of this size can launch, else the arithmetic that says it cannot;
    `needs_arch`: the one architecture the candidate's instructions exist on (wgmma: sm_90)."""
    if needs_arch is not None and lim.arch != needs_arch:
        return (f"these knobs use instructions that exist on {needs_arch} only (built as {needs_arch}a), "
                f"and this target is {lim.arch}")
    if smem > lim.smem_per_block_optin:
        return (
            f"{smem} B of shared memory per CTA exceeds {lim.arch}'s opt-in limit of "
            f"{lim.smem_per_block_optin} B per block"
        )
    if threads > 1024:
        return f"{threads} threads per CTA exceeds 1024"
    if regs is not None and regs * threads > lim.regs_per_sm:
        return f"{regs} registers x {threads} threads = {regs * threads} exceeds the {lim.regs_per_sm}-register file"
    return None
