"""What the compiler made of a candidate, before anything runs: registers, spills, shared memory,
and the occupancy those predict on a given device (kernel_src.arch's calculator).

The search reads these for every candidate it has built (one ninja call) to rank levers by what
they do to resources, and `fa5090-search static` prints them for any arch without a GPU.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kernel_src.arch import ArchLimits, ctas_per_sm, launch_refusal
from kernel_src.knobs import Knobs

from .ptxas import find_entry, parse_ptxas


class StaticFigures(BaseModel):
    """One candidate on one device; `rows_per_sm` is the query rows resident per SM (CTAs/SM x BR):
    each m16 row tile is an independent QK -> softmax -> PV chain, so this counts the latency-hiding
    work in flight whether it comes from more CTAs, more warps or more tiles per warp."""
    model_config = ConfigDict(frozen=True)

    registers: int
    spill_bytes: int
    smem_per_cta: int
    ctas_per_sm: int
    warps_per_sm: int
    rows_per_sm: int
    limiter: str
    refusal: str | None = None  # why it cannot launch on this device (the arithmetic), else None

    def line(self) -> str:
        spill = f", {self.spill_bytes} B spilled" if self.spill_bytes else ""
        return (f"{self.registers} regs{spill}, {self.smem_per_cta} B smem, {self.ctas_per_sm} CTAs/SM "
                f"({self.warps_per_sm} warps, {self.rows_per_sm} rows) limited by {self.limiter}")


def kernel_record(log: str, causal: bool | None = None):
    """The attention kernel's ptxas record in a build log (split-KV libraries also hold the combine
    kernel); with both mask modes compiled, the one the problem runs (`causal`), else the heavier."""
    recs = [r for r in parse_ptxas(log) if r.entry and "fa_fwd_kernel" in r.function]
    if causal is not None:
        flag = "Lb1E" if causal else "Lb0E"
        recs = [r for r in recs if flag in r.function] or recs  # the template's one bool: CAUSAL
    if not recs:
        return find_entry(parse_ptxas(log), "fa_fwd_kernel")  # raises with the count
    return max(recs, key=lambda r: (r.registers or 0, r.spill_stores + r.spill_loads))


def figures(log: str, knobs: Knobs, limits: ArchLimits, head_dim: int, causal: bool | None = None) -> StaticFigures:
    rec = kernel_record(log, causal)
    regs = rec.registers or 0
    smem = knobs.smem_bytes(head_dim)
    ctas, limiter = ctas_per_sm(limits, threads=knobs.threads(), smem=smem, regs=regs)
    refusal = launch_refusal(limits, smem=smem, threads=knobs.threads(), regs=regs)
    return StaticFigures(registers=regs, spill_bytes=rec.spill_stores + rec.spill_loads, smem_per_cta=smem,
                         ctas_per_sm=0 if refusal else ctas, warps_per_sm=0 if refusal else ctas * knobs.warps,
                         rows_per_sm=0 if refusal else ctas * knobs.br, limiter=limiter, refusal=refusal)
