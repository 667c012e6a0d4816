"""The schema of what can vary in kernel_src/fa_fwd.cu.

A `Knobs` value is immutable and hashable; its canonical JSON (plus the source hash, the arch
and the toolchain) is the build-cache key and the experiment key. An invalid combination is
refused here, with a sentence naming the knob, before anything compiles.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, create_model, model_validator

from . import knob_table as table

SOURCE = Path(__file__).with_name("fa_fwd.cu")


# The knobs are declared in kernel_src/knob_table.py; this module makes them a pydantic model. An enum
# knob's values are an Enum (knobs with the same values share one: Switch), in the order of the integers
# the kernel's macro receives.
ENUMS: dict[str, type[Enum]] = {}
for _k in table.KNOBS:
    if _k.is_enum and _k.py_enum not in ENUMS:
        ENUMS[_k.py_enum] = Enum(_k.py_enum, [(v, v) for v in _k.values], type=str, module=__name__,
                                 qualname=_k.py_enum)
    assert not _k.is_enum or tuple(m.value for m in ENUMS[_k.py_enum]) == _k.values, _k.name
(Compute, Layout, Staging, Exp, QIn, Switch, CausalMask, CtaOrder, Store, Softmax, Epilogue, KvRelease, Copies,
 ExpPoly, VLoad, MainLoop, QLoad, OStore, RowMax, PPack) = (ENUMS[n] for n in ("Compute", "Layout", "Staging", "Exp", "QIn", "Switch",
                                                                "CausalMask", "CtaOrder", "Store", "Softmax", "Epilogue",
                                                                "KvRelease", "Copies", "ExpPoly", "VLoad", "MainLoop",
                                                                "QLoad", "OStore", "RowMax", "PPack"))

# The instantiations fa_fwd.cu can emit, in the order of its FA_DTYPES and FA_DIMS bits: every
# kernel of this space is built for these input dtypes and head dims, and for no other.
DTYPES = ("float16", "bfloat16")
HEAD_DIMS = (64, 128)

# The enum order is the integer the kernel's #define receives.
_CODES = {k.name: list(ENUMS[k.py_enum]) for k in table.KNOBS if k.is_enum}
# integer knobs passed as they are
_INTS = tuple(k.name for k in table.KNOBS if not k.is_enum)


# ptxas refuses a wgmma m64n128 (64 fp32 accumulators a thread) under this register target: "Insufficient
# registers (80) to compile instruction ... Try to compile with register target of 90 or higher" for
# t128x128w8 with min_ctas=3 (results/2026-11-30_cpu_build_checks/wgmma_min_ctas_register_cap.txt)
WGMMA_N128_REGS = 90


# the integer knobs whose values _Knobs._combination checks with a sentence of their own
_INT_CHECKED = ("br", "bc", "warps", "kv_stages", "split_kv", "min_ctas")


class KnobError(ValueError):
    """An unknown knob, a bad value or an invalid combination; the message names the knob."""


class _Knobs(BaseModel):
    """The methods and the validator of `Knobs`; its fields, one per row of kernel_src/knob_table.py, are added by
    create_model below."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="after")
    def _combination(self) -> "Knobs":
        if self.warps not in (1, 2, 4, 8) and not (self.warps == 12 and self.mainloop == MainLoop.ws):
            raise ValueError(f"knob 'warps' must be 1, 2, 4 or 8 (12, three consumer warpgroups, only with "
                             f"mainloop=ws), not {self.warps}")
        if self.br == 32 * self.warps and self.compute != Compute.mma:
            raise ValueError(f"knob 'br'={self.br} with warps={self.warps} gives each warp 32 query rows, which "
                             "only compute=mma tiles (two m16 tiles a warp); the scalar path needs br = 16 x warps")
        if self.br not in (16 * self.warps, 32 * self.warps):
            raise ValueError(
                f"knob 'br' must equal 16 x 'warps' (each warp owns 16 query rows) or, with compute=mma, "
                f"32 x 'warps': br={self.br} with warps={self.warps} would need br={16 * self.warps} or {32 * self.warps}"
            )
        if self.bc not in (16, 32, 64, 128) and not (self.bc in (176, 192) and self.mainloop == MainLoop.ws):
            raise ValueError(f"knob 'bc' must be 16, 32, 64 or 128 (176 or 192 only with mainloop=ws), not {self.bc}")
        if self.kv_stages not in (1, 2, 3):
            raise ValueError(f"knob 'kv_stages' must be 1, 2 or 3, not {self.kv_stages}")
        if self.split_kv not in (1, 2, 4, 8):
            raise ValueError(f"knob 'split_kv' must be 1 (no split), 2, 4 or 8, not {self.split_kv}")
        if self.min_ctas not in (0, 1, 2, 3, 4):
            raise ValueError(f"knob 'min_ctas' must be 0 (no bound) to 4, not {self.min_ctas}")
        for k in table.KNOBS:  # the table's other integer knobs: one of their listed values
            if not k.is_enum and k.name not in _INT_CHECKED and getattr(self, k.name) not in k.values:
                raise ValueError(f"knob '{k.name}' must be one of {', '.join(map(str, k.values))}, "
                                 f"not {getattr(self, k.name)}")
        values = self.model_dump(mode="json")
        for rule in table.RULES:  # the table's rules, in its order: the first one broken is the sentence
            if not rule.holds(values):
                raise ValueError(rule.sentence.format(**values))
        if (self.compute == Compute.wgmma) != (self.layout == Layout.sw128):
            raise ValueError("knob 'compute'=wgmma reads its tiles by descriptor and needs layout=sw128, and "
                             "layout=sw128 is that layout alone: set both or neither")
        if self.compute == Compute.wgmma:
            bad = {"q_in": (self.q_in, QIn.smem),
                   "v_load": (self.v_load, VLoad.ldmatrix_trans), "epilogue": (self.epilogue, Epilogue.direct)}
            for name, (got, want) in bad.items():
                if got != want:
                    raise ValueError(f"knob 'compute'=wgmma (this step of the Hopper arm) needs {name}={want.value}, "
                                     f"not {got.value}")
            if self.staging == Staging.scalar:
                raise ValueError("knob 'compute'=wgmma needs staging=cp_async or tma, not scalar")
            if self.warps not in (4, 8, 12) or self.br != 16 * self.warps or self.bc not in (32, 64, 128, 176, 192):
                raise ValueError(f"knob 'compute'=wgmma runs whole warpgroups of 64 query rows: warps 4 or 8 with "
                                 f"br = 16 x warps, and bc 32, 64 or 128 (got br={self.br}, bc={self.bc}, warps={self.warps})")
            if self.bc == 128 and self.min_ctas and 65536 // (self.min_ctas * self.threads()) < WGMMA_N128_REGS:
                raise ValueError(f"knob 'min_ctas'={self.min_ctas} on {self.warps} warps leaves at most "
                                 f"{65536 // (self.min_ctas * self.threads())} registers a thread, and compute=wgmma with bc=128 "
                                 f"issues m64n128 wgmma that ptxas cannot compile under {WGMMA_N128_REGS} (error C7602)")
        if self.mainloop == MainLoop.ws:
            need = {"compute": (self.compute, Compute.wgmma), "staging": (self.staging, Staging.tma),
                    "kv_release": (self.kv_release, KvRelease.producer), "softmax": (self.softmax, Softmax.fused),
                    "exp": (self.exp, Exp.ex2), "causal_mask": (self.causal_mask, CausalMask.predicate),
                    "copies": (self.copies, Copies.loop)}
            for name, (got, want) in need.items():
                if got != want:
                    raise ValueError(f"knob 'mainloop'=ws (a TMA producer warpgroup beside wgmma consumer warpgroups, "
                                     f"the fused ex2 softmax, masks on edge blocks only) needs {name}={want.value}, "
                                     f"not {got.value}")
            if self.warps not in (4, 8, 12) or self.bc not in (64, 128, 176, 192) or self.kv_stages < 2 or self.split_kv != 1:
                raise ValueError(f"knob 'mainloop'=ws runs 1-3 consumer warpgroups (warps 4, 8 or 12) on a K/V ring of "
                                 f"2-3 stages with bc 64, 128, 176 or 192 and no key split, not warps={self.warps}, bc={self.bc}, "
                                 f"kv_stages={self.kv_stages}, split_kv={self.split_kv}")
        if self.compute == Compute.scalar:
            for k in table.KNOBS:  # the knobs only the tensor-core arms read
                if "scalar" not in k.arms and values[k.name] != k.default:
                    raise ValueError(f"knob '{k.name}' applies to compute=mma only; the scalar path has no such stage")
        return self

    # ---- construction with clear errors -------------------------------------------------
    @classmethod
    def parse(cls, data: dict) -> "Knobs":
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise KnobError(_sentence(e)) from None

    @classmethod
    def parse_assignments(cls, items: list[str], base: "Knobs | None" = None) -> "Knobs":
        """`["compute=mma", "layout=swizzle"]` on top of `base` (default: the seed)."""
        data = (base or cls()).model_dump(mode="json")
        for item in items:
            name, sep, value = item.partition("=")
            if not sep:
                raise KnobError(f"'{item}' is not NAME=VALUE (e.g. compute=mma)")
            data[name.strip()] = value.strip()
        return cls.parse(data)

    def replace(self, **changes) -> "Knobs":
        return Knobs.parse({**self.model_dump(mode="json"), **changes})

    # ---- identity ------------------------------------------------------------------------
    def canonical(self) -> str:
        return _canonical(self)

    def key(self) -> str:
        return _key(self)

    def _canonical(self) -> str:
        # A knob added after the first seven enters the identity only once moved off its default,
        # and its default must reproduce the kernel as it was before the knob existed: keys in
        # recorded runs and caches stay valid as the kernel grows.
        d = self.model_dump(mode="json")
        d = {k: v for k, v in d.items() if k in _FIRST_KNOBS or v != _DEFAULTS[k]}
        return json.dumps(d, sort_keys=True, separators=(",", ":"))

    def label(self) -> str:
        extra = "".join(f"/{k}={v}" for k, v in self.model_dump(mode="json").items()
                        if k not in _FIRST_KNOBS and v != _DEFAULTS[k])
        return (
            f"{self.compute.value}/{self.layout.value}/{self.staging.value}/{self.exp.value}"
            f"/t{self.br}x{self.bc}w{self.warps}{extra}"
        )

    def diff(self, other: "Knobs") -> dict[str, tuple[str, str]]:
        a, b = self.model_dump(mode="json"), other.model_dump(mode="json")
        return {k: (a[k], b[k]) for k in a if a[k] != b[k]}

    # ---- what the compiler receives ------------------------------------------------------
    def defines(self) -> dict[str, int]:
        v = self.model_dump(mode="json")
        d = {table.BY_NAME[n].macro: table.BY_NAME[n].code(v[n]) for n in _CODES}
        d.update({table.BY_NAME[n].macro: v[n] for n in _INTS})
        return d

    # ---- pre-flight arithmetic -----------------------------------------------------------
    def needs_arch(self) -> str | None:
        """The one architecture these knobs' instructions exist on, or None (any sm_80+)."""
        return "sm_90" if self.compute == Compute.wgmma else None

    def threads(self) -> int:
        """Threads a CTA launches: the warps, and kv_release=producer's producer warpgroup."""
        return 32 * self.warps + (128 if self.kv_release == KvRelease.producer else 0)

    def smem_bytes(self, head_dim: int, elem_bytes: int = 2) -> int:
        """Dynamic shared memory per CTA, the same formula as smem_bytes<>() in fa_fwd.cu."""
        stride = head_dim + 8 if self.layout == Layout.pad else head_dim
        # item_stream: the next item's Q beside this one's; q_buffers=2: the next item's Q loaded early
        q_tiles = 2 if self.item_stream == Switch.on or self.q_buffers == 2 else 1
        o_tile = 1 if self.o_store == OStore.tma else 0  # o_store=tma: the O tile the TMA store reads (tma_in_q: Q's)
        tiles = (self.br * (q_tiles + o_tile) + 2 * self.bc * self.kv_stages) * stride * elem_bytes
        p_tile = self.br * self.bc * 4 if self.compute == Compute.scalar else 0
        p_tile += 1024 if self.row_sum == ENUMS["RowSum"].mma else 0  # row_sum=mma: the tile of ones after V's
        if self.p_in == ENUMS["PIn"].smem:  # p_in=smem: each consumer warpgroup's P tile, whole 64-column swizzle atoms
            p_tile += (self.warps // 4) * -(-self.bc // 64) * 64 * 64 * elem_bytes
        slot = 16 if self.persistent == Switch.on else 0  # the persistent grid's work-item slot
        slot += 16 if self.schedule == ENUMS["Schedule"].dynamic else 0  # its full and empty mbarriers
        # a K and a V mbarrier per stage, and with kv_release last_warp the stage's count of warps done, with
        # producer its empty mbarrier (8 B either way)
        # (mainloop=ws: K-full, V-full, K-empty and V-empty barriers per stage, 32 B)
        per_stage = 32 if self.mainloop == MainLoop.ws else 16 if self.kv_release == KvRelease.barrier else 24
        bars = per_stage * self.kv_stages if self.staging == Staging.tma else 0
        bars += 16 * q_tiles if self.q_load == QLoad.tma else 0  # Q's full and empty mbarriers, per Q tile
        if self.tail_rows == ENUMS["TailRows"].split:  # the helper's "partials read" mbarrier and its fp32 partials
            bars += 16 + (self.warps // 4 - 1) * 128 * (head_dim // 2 + 4) * 4
        return tiles + p_tile + bars + slot

    def workspace_bytes(self, batch: int, heads: int, seqlen: int, head_dim: int) -> int:
        """Split-KV's fp32 partial outputs and LSEs in device memory (0 without a split)."""
        if self.split_kv == 1:
            return 0
        return self.split_kv * batch * heads * seqlen * (head_dim + 1) * 4


def _field(k: table.Knob) -> tuple:
    if k.is_enum:
        return ENUMS[k.py_enum], ENUMS[k.py_enum](k.default)
    return int, k.default


Knobs = create_model("Knobs", __base__=_Knobs, __module__=__name__, **{k.name: _field(k) for k in table.KNOBS})
Knobs.__qualname__ = "Knobs"
Knobs.__doc__ = "One configuration of the kernel: a value per knob of kernel_src/knob_table.py, validated."

SEED = Knobs()
_FIRST_KNOBS = ("compute", "layout", "staging", "exp", "br", "bc", "warps")
_DEFAULTS = SEED.model_dump(mode="json")


# Every header of the kernel's components (fa_fwd.cu includes them; wgmma_probe.cu and mma_peak.cu, separate
# sources, include mma.cuh/wgmma.cuh): the build cache key hashes them all, and export inlines them
HEADERS = tuple(sorted(SOURCE.parent.glob("*.cuh")))


def source_hash(source: Path = SOURCE) -> str:
    h = hashlib.sha256()
    for f in (source, *HEADERS):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*(//.*)?$')


def inlined(source: Path = SOURCE, banner: bool = True) -> str:
    """The source as one text: each `#include "header"` of a kernel_src/ header replaced by the header's text,
    recursively, the first time it is met, and dropped after that (what #pragma once does); `banner` marks
    where each header starts. System includes stay where they are."""
    seen: set[str] = set()

    def expand(path: Path) -> str:
        out = []
        for line in path.read_text().splitlines(keepends=True):
            m = _INCLUDE.match(line)
            if m and (path.parent / m[1]).is_file():
                if m[1] not in seen:
                    seen.add(m[1])
                    out.append((f"// ---- {m[1]} (inlined)\n" if banner else "") + expand(path.parent / m[1]))
                continue
            if line.strip() != "#pragma once":
                out.append(line)
        return "".join(out)

    return expand(source)


def _sentence(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"])
        if err["type"] == "extra_forbidden":
            parts.append(f"unknown knob '{loc}' (known: {', '.join(Knobs.model_fields)})")
        elif err["type"] == "enum":
            allowed = err.get("ctx", {}).get("expected", "")
            parts.append(f"knob '{loc}' cannot be {err['input']!r}; expected {allowed}")
        elif loc:
            parts.append(f"knob '{loc}': {err['msg']}")
        else:
            parts.append(err["msg"].removeprefix("Value error, "))
    return "; ".join(parts)


# A configuration's identity, computed once per configuration: a simulated search asks for the keys of the
# same few hundred frozen Knobs about 80,000 times (a third of test_resume's twenty-kills test went to
# model_dump and json.dumps for them).
@functools.lru_cache(maxsize=1 << 16)
def _canonical(knobs: Knobs) -> str:
    return knobs._canonical()


@functools.lru_cache(maxsize=1 << 16)
def _key(knobs: Knobs) -> str:
    return hashlib.sha256(_canonical(knobs).encode()).hexdigest()[:12]
