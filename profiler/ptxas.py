"""Per-function resource report from `nvcc -Xptxas -v` (ptxas writes it to stderr).

Format checked against nvcc 13.0 for sm_80, sm_90 and sm_120 (tests compile a kernel for real):

    ptxas info    : 0 bytes gmem                                    <- one per ptxas run (per arch)
    ptxas info    : Compiling entry function '_Z6fa_fwd...' for 'sm_90'
    ptxas info    : Function properties for _Z6fa_fwd...
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 128 registers, used 1 barriers, 32768 bytes smem, 400 bytes cmem[0]

On sm_90a, before a pass's first line, ptxas may say that it serialised a function's wgmma:

    ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to
                    program dependence on compiler-inserted WG.AR in divergent path in the function '_ZN2fa...'

(every wgmma of that function then waits for the one before it: a causal build with P packed among its exponentials
lost 22-31% that way, results/2026-12-03_h200_agent_suite); the record of that function reads `wgmma_serialized`.

sm_90/sm_120 print no cmem for kernels whose parameters fit the launch-parameter space, and
`256 bytes cumulative stack size` when there is a stack. A non-entry (device) function gets a
"Function properties" block but no "Compiling" line, and under -rdc it is printed *before* its
pass's first entry, so its arch is filled in once that pass names one.
"""
from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

_PASS = re.compile(r"ptxas info\s*:\s*\d+ bytes gmem")
_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas info\s*:\s*Used (\d+) registers")
_SERIALIZED = re.compile(r"\(C7520\).*wgmma\.mma_async instructions are serialized.*in the function '([^']+)'")


class PtxasRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    function: str  # mangled name
    arch: str | None
    entry: bool  # a __global__ kernel, not a device function
    registers: int | None = None
    barriers: int | None = None
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    cumulative_stack: int | None = None
    smem: int = 0  # static shared memory only; dynamic is a launch parameter
    cmem: dict[int, int] = {}  # constant bank -> bytes
    wgmma_serialized: bool = False  # ptxas C7520: every wgmma of the function waits for the one before it

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0


def _num(pattern: str, line: str) -> int | None:
    m = re.search(pattern, line)
    return int(m[1]) if m else None


def parse_ptxas(text: str) -> list[PtxasRecord]:
    recs: list[dict] = []
    cur: dict | None = None
    entry: str | None = None
    arch: str | None = None
    pass_start = 0
    for line in text.splitlines():
        if _PASS.search(line):
            arch, entry, cur, pass_start = None, None, None, len(recs)
        elif m := _ENTRY.search(line):
            entry, arch = m[1], m[2]
            for r in recs[pass_start:]:
                r["arch"] = r["arch"] or arch
        elif m := _PROPS.search(line):
            cur = dict(function=m[1], arch=arch, entry=m[1] == entry)
            recs.append(cur)
        elif (m := _FRAME.search(line)) and cur is not None:
            cur.update(stack_frame=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        elif m := _USED.search(line):
            if cur is None or cur["function"] != entry:
                cur = dict(function=entry or "?", arch=arch, entry=entry is not None)
                recs.append(cur)
            cur.update(registers=int(m[1]), barriers=_num(r"used (\d+) barriers", line),
                       smem=_num(r"(\d+) bytes smem", line) or 0,
                       cumulative_stack=_num(r"(\d+) bytes cumulative stack size", line),
                       cmem={int(b): int(n) for n, b in re.findall(r"(\d+) bytes cmem\[(\d+)\]", line)})
    serialized = set(_SERIALIZED.findall(text))
    return [PtxasRecord(**r, wgmma_serialized=r["function"] in serialized) for r in recs]


def find_entry(records: list[PtxasRecord], name_regex: str = "fa_fwd",
               arch: str | None = None) -> PtxasRecord:
    """The one kernel whose mangled name matches `name_regex` (for `arch`, if given)."""
    hits = [r for r in records if r.entry and re.search(name_regex, r.function)
            and (arch is None or r.arch == arch)]
    if len(hits) != 1:
        raise LookupError(f"{len(hits)} ptxas entries match /{name_regex}/"
                          f"{f' for {arch}' if arch else ''}; expected exactly one")
    return hits[0]
