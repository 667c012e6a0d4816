"""What the compiler made of a candidate, before anything runs: registers, spills, shared memory,
and the occupancy those predict on a given device (kernel_src.arch's calculator).

The search reads these for every candidate it has built (one ninja call) to rank levers by what
they do to resources, and `fa5090-search static` prints them for any arch without a GPU.
"""
from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from kernel_src.arch import TABLE, ArchLimits, ctas_per_sm, launch_refusal
from kernel_src.knobs import Knobs

from .ptxas import find_entry, parse_ptxas
from .sass import CuobjdumpMissing, census, dump_sass


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
    # ptxas serialised the kernel's wgmma (C7520: each waits for the one before it; profiler.ptxas)
    wgmma_serialized: bool = False

    def line(self) -> str:
        spill = f", {self.spill_bytes} B spilled" if self.spill_bytes else ""
        serial = ", wgmma serialised by ptxas (C7520)" if self.wgmma_serialized else ""
        return (f"{self.registers} regs{spill}{serial}, {self.smem_per_cta} B smem, {self.ctas_per_sm} CTAs/SM "
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
    refusal = launch_refusal(limits, smem=smem, threads=knobs.threads(), regs=regs, needs_arch=knobs.needs_arch())
    return StaticFigures(registers=regs, spill_bytes=rec.spill_stores + rec.spill_loads, smem_per_cta=smem,
                         ctas_per_sm=0 if refusal else ctas, warps_per_sm=0 if refusal else ctas * knobs.warps,
                         rows_per_sm=0 if refusal else ctas * knobs.br, limiter=limiter, refusal=refusal,
                         wgmma_serialized=rec.wgmma_serialized)


class Built(Protocol):
    """What `static_report` reads of one build (experiments.build.BuildResult has these): the
    profiler reads build logs and libraries, it does not build."""
    ok: bool
    log: str
    library: str | None


def static_report(knobs_list: Sequence[Knobs], builds: Sequence[Built], arch: str,
                  head_dim: int) -> tuple[list[dict], str | None]:
    """One row per candidate compiled for `arch` (builds[i] is knobs_list[i]'s, one dtype, head_dim,
    non-causal): registers, spills, smem/CTA, CTAs/SM and warps/SM with the limiting resource,
    the launch refusal if any, and the attention kernel's SASS census by instruction family. Also
    returns why there is no census (cuobjdump missing), else None; those rows' census is None.

    `fa5090-search static` prints these rows (and --json them as they are). Unlike `figures`, the
    refusal here looks at shared memory and threads only, and CTAs/SM is the calculator's figure
    even for a candidate that cannot launch."""
    lim = TABLE[arch]
    rows, warned = [], None
    for knobs, r in zip(knobs_list, builds, strict=True):
        row = {"knobs": knobs.model_dump(mode="json"), "label": knobs.label(), "arch": arch, "built": r.ok}
        if not r.ok:
            row["error"] = r.log.strip().splitlines()[-1][:200] if r.log.strip() else "nvcc failed"
            rows.append(row)
            continue
        # the attention kernel itself; split-KV libraries also hold the combine kernel
        rec = find_entry(parse_ptxas(r.log), "fa_fwd_kernel")
        smem = knobs.smem_bytes(head_dim)
        ctas, limiter = ctas_per_sm(lim, threads=knobs.threads(), smem=smem, regs=rec.registers)
        row.update(registers=rec.registers, spill_bytes=rec.spill_stores + rec.spill_loads, smem_per_cta=smem,
                   ctas_per_sm=ctas, warps_per_sm=ctas * knobs.warps, limiter=limiter,
                   refusal=launch_refusal(lim, smem=smem, threads=knobs.threads(), needs_arch=knobs.needs_arch()),
                   wgmma_serialized=rec.wgmma_serialized)
        try:
            counts = {f: c for f, c in census(dump_sass(r.library)).items() if "fa_fwd_kernel" in f}
            row["census"] = dict(next(iter(counts.values())).most_common()) if counts else {}
        except CuobjdumpMissing as e:
            warned, row["census"] = str(e), None
        rows.append(row)
    return rows, warned


def build_figures(builds: Sequence[tuple[str, Knobs, int]], sass_line: Callable[[list[str]], str],
                  jobs: int = 2) -> list[str]:
    """The compiler's figures of named knob sets as the CPU records print them (no GPU): each (name, knobs, head dim)
    built for sm_90a in fp16, causal and not; a line with the shared memory a CTA asks for, one with the registers,
    stack and spill bytes of each of the two kernels, and the line `sass_line` makes from the cubin's SASS (the
    instructions a change adds or removes)."""
    from experiments.build import BuildSpec, build

    specs = {(n, d): BuildSpec(knobs=k, arch="sm_90", dtypes=("float16",), dims=(d,), causals=(False, True),
                               host=False) for n, k, d in builds}
    knobs = {(n, d): k for n, k, d in builds}
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        res = build(list(specs.values()), Path(tmp), jobs=jobs)
        for (n, d), sp in specs.items():
            r = res[sp.key()]
            out.append(f"{n} D{d}: {'built' if r.ok else 'FAILED'}{'; C7520' if 'C7520' in r.log else ''}; "
                       f"{knobs[(n, d)].smem_bytes(d)} B shared memory a CTA")
            if not r.ok:
                out.append(r.log[-2000:])
                continue
            causal = lambda rec: bool(re.search(r"Li\d+ELb1E", rec.function))  # noqa: E731  the CAUSAL argument
            for rec in sorted((x for x in parse_ptxas(r.log) if x.entry), key=causal):
                out.append(f"  {'causal' if causal(rec) else 'non-causal'}: {rec.registers} registers, stack "
                           f"{rec.stack_frame} B, spill stores {rec.spill_stores} B, loads {rec.spill_loads} B")
            out.append("  " + sass_line(dump_sass(str(Path(tmp) / sp.key() / "fa.cubin")).splitlines()))
    return out
