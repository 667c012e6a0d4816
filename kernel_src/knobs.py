"""The schema of what can vary in kernel_src/fa_fwd.cu.

A `Knobs` value is immutable and hashable; its canonical JSON (plus the source hash, the arch
and the toolchain) is the build-cache key and the experiment key. An invalid combination is
refused here, with a sentence naming the knob, before anything compiles.
"""

from __future__ import annotations

import functools
import hashlib
import json
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

SOURCE = Path(__file__).with_name("fa_fwd.cu")


class Compute(str, Enum):
    scalar = "scalar"  # CUDA-core FMAs, the seed's v0
    mma = "mma"  # mma.sync m16n8k16 + ldmatrix, v1
    wgmma = "wgmma"  # warpgroup MMA from shared-memory descriptors, sm_90a only (issue 10)


class Layout(str, Enum):
    row_major = "row_major"
    swizzle = "swizzle"
    pad = "pad"
    sw128 = "sw128"  # the 128-byte swizzle in 64-column tiles that wgmma's descriptors read


class Staging(str, Enum):
    scalar = "scalar"  # 2-byte loads through registers
    cp_async = "cp_async"  # 16-byte LDGSTS
    tma = "tma"  # K/V tiles by cp.async.bulk.tensor, mbarrier completion; compute=wgmma only (issue 10 step 2)


class Exp(str, Enum):
    expf = "expf"
    ex2 = "ex2"  # ex2.approx, log2(e) folded into the host-side scale


class QIn(str, Enum):
    regs = "regs"  # Q fragments held in registers across the key loop
    smem = "smem"  # re-read from shared memory every key block


class Switch(str, Enum):
    off = "off"
    on = "on"


class CausalMask(str, Enum):
    runtime = "runtime"  # one body, a runtime flag in the per-element test
    predicate = "predicate"  # a function template per block kind
    split = "split"  # the key loop split at the diagonal, the mode a type


class CtaOrder(str, Enum):
    launch = "launch"
    heaviest_first = "heaviest_first"


class Store(str, Enum):
    default = "default"
    cs = "cs"  # streaming, evict-first
    wt = "wt"  # write-through


class Softmax(str, Enum):
    separate = "separate"  # scale (FMUL), then exp(s - m) (FADD + MUFU): the row max in scaled units
    fused = "fused"  # exp2(s * c - m * c): one FFMA + one MUFU, the row max in raw-score units


class Epilogue(str, Enum):
    direct = "direct"  # each thread stores its accumulator pairs, 4 B at a time
    smem = "smem"  # through shared memory (the warp's own Q rows), then 16-byte coalesced stores


class KvRelease(str, Enum):
    barrier = "barrier"  # a block barrier at the end of each key block frees its K/V buffer for the next copy
    last_warp = "last_warp"  # TMA ring: each warp counts itself done with a buffer; the last one refills it, no thread waits
    producer = "producer"  # a producer warpgroup (128 more threads, setmaxnreg) issues every copy, waiting on each stage's empty mbarrier: warp specialisation


class Copies(str, Enum):
    loop = "loop"  # a strided loop over a tile's chunks, each with its own address and row test
    unrolled = "unrolled"  # a fixed count per thread, unrolled, one address per tile; the row test only at N


class ExpPoly(str, Enum):
    off = "off"  # every exponential of P on MUFU.EX2
    quarter = "quarter"  # one in four by a cubic on the FMA pipe
    half = "half"  # one in two


class MainLoop(str, Enum):
    general = "general"  # the one body every arm shares (fa_fwd.cu's body_mma)
    ws = "ws"  # warp-specialised Hopper mainloop (mainloop_sm90_ws.cuh): TMA producer, 2-3 wgmma consumer warpgroups


class QLoad(str, Enum):
    cp_async = "cp_async"  # each consumer warpgroup copies its own Q rows and waits for them
    tma = "tma"  # mainloop=ws: the producer loads the Q tile by TMA once the last item's QK^T is done


class VLoad(str, Enum):
    ldmatrix_trans = "ldmatrix_trans"  # one LDSM.T per 4 fragment registers
    lds = "lds"  # 16-bit shared loads, packed by hand: the same bits


# The instantiations fa_fwd.cu can emit, in the order of its FA_DTYPES and FA_DIMS bits: every
# kernel of this space is built for these input dtypes and head dims, and for no other.
DTYPES = ("float16", "bfloat16")
HEAD_DIMS = (64, 128)

# The enum order is the integer the kernel's #define receives.
_CODES = {
    "compute": list(Compute),
    "layout": list(Layout),
    "staging": list(Staging),
    "exp": list(Exp),
    "q_in": list(QIn),
    "rescale_skip": list(Switch),
    "causal_mask": list(CausalMask),
    "cta_order": list(CtaOrder),
    "store": list(Store),
    "v_load": list(VLoad),
    "persistent": list(Switch),
    "softmax": list(Softmax),
    "kv_overlap": list(Switch),
    "epilogue": list(Epilogue),
    "rescale_lazy": list(Switch),
    "pipeline": list(Switch),
    "kv_release": list(KvRelease),
    "pingpong": list(Switch),
    "copies": list(Copies),
    "exp_poly": list(ExpPoly),
    "pv_slab": list(Switch),
    "mainloop": list(MainLoop),
    "q_load": list(QLoad),
}
# integer knobs passed as they are
_INTS = ("br", "bc", "warps", "kv_stages", "min_ctas", "split_kv")
# knobs that only the tensor-core path reads
_MMA_ONLY = {"kv_stages": 1, "q_in": QIn.regs, "rescale_skip": Switch.off, "causal_mask": CausalMask.runtime,
             "store": Store.default, "v_load": VLoad.ldmatrix_trans, "persistent": Switch.off, "split_kv": 1,
             "softmax": Softmax.separate, "kv_overlap": Switch.off, "epilogue": Epilogue.direct,
             "rescale_lazy": Switch.off, "pipeline": Switch.off, "kv_release": KvRelease.barrier,
             "pingpong": Switch.off, "exp_poly": ExpPoly.off}


# ptxas refuses a wgmma m64n128 (64 fp32 accumulators a thread) under this register target: "Insufficient
# registers (80) to compile instruction ... Try to compile with register target of 90 or higher" for
# t128x128w8 with min_ctas=3 (results/2026-11-30_cpu_build_checks/wgmma_min_ctas_register_cap.txt)
WGMMA_N128_REGS = 90


class KnobError(ValueError):
    """An unknown knob, a bad value or an invalid combination; the message names the knob."""


class Knobs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    compute: Compute = Compute.scalar
    layout: Layout = Layout.row_major
    staging: Staging = Staging.scalar
    exp: Exp = Exp.expf
    br: int = 64  # query rows per CTA; each warp owns 16
    bc: int = 64  # key rows per key block
    warps: int = 4
    kv_stages: int = 1  # K/V buffers in flight (2, 3: a cp.async ring, K and V in separate groups)
    q_in: QIn = QIn.regs
    rescale_skip: Switch = Switch.off
    causal_mask: CausalMask = CausalMask.runtime
    cta_order: CtaOrder = CtaOrder.launch
    min_ctas: int = 0  # __launch_bounds__ minimum CTAs per SM; 0: none
    store: Store = Store.default
    v_load: VLoad = VLoad.ldmatrix_trans
    persistent: Switch = Switch.off  # resident CTAs pull work items from a list
    split_kv: int = 1  # key splits per (query tile, head), merged by a combine kernel
    softmax: Softmax = Softmax.separate
    kv_overlap: Switch = Switch.off  # one K and one V buffer, V(j) loaded under S(j), K(j+1) under P(j)V(j)
    epilogue: Epilogue = Epilogue.direct
    rescale_lazy: Switch = Switch.off  # keep a row's max until it grows by more than 2^8 (exact after 1/l)
    pipeline: Switch = Switch.off  # QK^T of the next key block issued before this block's softmax
    kv_release: KvRelease = KvRelease.barrier  # what frees a K/V ring buffer for its next TMA copy
    pingpong: Switch = Switch.off  # two consumer warpgroups issue their GEMMs in turns (named barriers)
    copies: Copies = Copies.loop  # how a thread issues its part of a tile's global->shared copies
    exp_poly: ExpPoly = ExpPoly.off  # a share of P's exponentials by a cubic on the FMA pipe instead of MUFU
    pv_slab: Switch = Switch.off  # P made and multiplied into O one 16-key slab at a time (mma.sync)
    mainloop: MainLoop = MainLoop.general  # ws: the warp-specialised wgmma mainloop component
    q_load: QLoad = QLoad.cp_async  # tma: mainloop=ws's producer loads Q, ahead of the item that needs it

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
        if self.bc not in (16, 32, 64, 128) and not (self.bc == 176 and self.mainloop == MainLoop.ws):
            raise ValueError(f"knob 'bc' must be 16, 32, 64 or 128 (176 only with mainloop=ws), not {self.bc}")
        if self.kv_stages not in (1, 2, 3):
            raise ValueError(f"knob 'kv_stages' must be 1, 2 or 3, not {self.kv_stages}")
        if self.split_kv not in (1, 2, 4, 8):
            raise ValueError(f"knob 'split_kv' must be 1 (no split), 2, 4 or 8, not {self.split_kv}")
        if self.min_ctas not in (0, 1, 2, 3, 4):
            raise ValueError(f"knob 'min_ctas' must be 0 (no bound) to 4, not {self.min_ctas}")
        if self.kv_stages > 1 and self.staging == Staging.scalar:
            raise ValueError(f"knob 'kv_stages'={self.kv_stages} needs staging=cp_async (or tma): scalar loads land "
                             "synchronously, so there is nothing to overlap")
        if self.staging == Staging.tma and self.compute != Compute.wgmma:
            raise ValueError("knob 'staging'=tma loads the 128-byte-swizzled tiles that wgmma reads: it needs "
                             f"compute=wgmma (and layout=sw128), not compute={self.compute.value}")
        if self.kv_overlap == Switch.on and (self.kv_stages != 1 or self.staging != Staging.cp_async):
            raise ValueError("knob 'kv_overlap'=on is the one-buffer schedule (V under QK^T, the next K under PV): "
                             f"it needs kv_stages=1 and staging=cp_async, not kv_stages={self.kv_stages}, "
                             f"staging={self.staging.value}")
        if self.epilogue == Epilogue.smem and (self.split_kv != 1 or self.store != Store.default):
            raise ValueError("knob 'epilogue'=smem writes the normalised output with 16-byte default stores: it needs "
                             f"split_kv=1 (not {self.split_kv}) and store=default (not {self.store.value})")
        if self.rescale_lazy == Switch.on and (self.exp != Exp.ex2 or self.rescale_skip != Switch.on):
            raise ValueError("knob 'rescale_lazy'=on counts its threshold in log2 units and saves work only through "
                             "the rescale vote: it needs exp=ex2 and rescale_skip=on")
        if self.pipeline == Switch.on and self.kv_stages < 2:
            raise ValueError("knob 'pipeline'=on computes the next block's QK^T before this block's softmax, "
                             "so the next K must already be in the ring: it needs kv_stages=2 or 3")
        if self.kv_release != KvRelease.barrier and (self.staging != Staging.tma or self.kv_stages < 2):
            raise ValueError(f"knob 'kv_release'={self.kv_release.value} frees a TMA ring's buffers by counts of the warps "
                             f"done with them: it needs staging=tma and kv_stages=2 or 3, not staging={self.staging.value}, "
                             f"kv_stages={self.kv_stages}")
        if self.mainloop == MainLoop.ws and self.min_ctas > 1 and (self.min_ctas > 2 or self.warps != 8 or self.bc != 64):
            # two CTAs of 384 threads leave 80 registers at entry and 104 to each consumer after setmaxnreg: the
            # BC-64 tile at D=64 fits (0 spills), D=128 spills 1.8 KB (results/2026-12-01_h200_short_shapes/static_cpu.txt)
            raise ValueError(f"knob 'mainloop'=ws runs two CTAs per SM only on two consumer warpgroups with bc=64 "
                             f"(104 registers a consumer thread), not min_ctas={self.min_ctas} with warps={self.warps}, "
                             f"bc={self.bc}")
        if self.kv_release == KvRelease.producer and self.min_ctas > 1 and self.mainloop != MainLoop.ws:
            # ptxas gave the consumers 104 registers at t128x64w8 with min_ctas=2 and spilled 1020 B
            raise ValueError(f"knob 'kv_release'=producer adds a producer warpgroup and hands its registers to the "
                             f"consumers; min_ctas={self.min_ctas} leaves them too few (t128x64w8 spills at 2): use 0 or 1")
        if self.pingpong == Switch.on and (self.kv_release != KvRelease.producer or self.compute != Compute.wgmma
                                           or self.warps != 8):
            raise ValueError("knob 'pingpong'=on takes turns between two consumer warpgroups beside a producer "
                             "warpgroup: it needs kv_release=producer, compute=wgmma and warps=8, not "
                             f"kv_release={self.kv_release.value}, compute={self.compute.value}, warps={self.warps}")
        if self.exp_poly != ExpPoly.off and self.exp != Exp.ex2:
            raise ValueError(f"knob 'exp_poly'={self.exp_poly.value} computes 2^x by a polynomial: it needs exp=ex2 "
                             f"(scores in log2 units), not exp={self.exp.value}")
        if self.pv_slab == Switch.on and (self.compute != Compute.mma or self.pipeline == Switch.on
                                          or self.kv_overlap == Switch.on):
            raise ValueError("knob 'pv_slab'=on makes P and multiplies it into O one 16-key slab at a time in "
                             "mma.sync's register fragments, on the plain block schedule: it needs compute=mma, "
                             f"pipeline=off and kv_overlap=off, not compute={self.compute.value}, "
                             f"pipeline={self.pipeline.value}, kv_overlap={self.kv_overlap.value}")
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
            if self.warps not in (4, 8, 12) or self.br != 16 * self.warps or self.bc not in (32, 64, 128, 176):
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
                    "exp_poly": (self.exp_poly, ExpPoly.off), "copies": (self.copies, Copies.loop)}
            for name, (got, want) in need.items():
                if got != want:
                    raise ValueError(f"knob 'mainloop'=ws (a TMA producer warpgroup beside wgmma consumer warpgroups, "
                                     f"the fused ex2 softmax, masks on edge blocks only) needs {name}={want.value}, "
                                     f"not {got.value}")
            if self.warps not in (8, 12) or self.bc not in (64, 128, 176) or self.kv_stages < 2 or self.split_kv != 1:
                raise ValueError(f"knob 'mainloop'=ws runs 2 or 3 consumer warpgroups (warps 8 or 12) on a K/V ring of "
                                 f"2-3 stages with bc 64, 128 or 176 and no key split, not warps={self.warps}, bc={self.bc}, "
                                 f"kv_stages={self.kv_stages}, split_kv={self.split_kv}")
        if self.q_load == QLoad.tma and self.mainloop != MainLoop.ws:
            raise ValueError(f"knob 'q_load'=tma is the producer warpgroup of mainloop=ws loading Q: it needs "
                             f"mainloop=ws, not mainloop={self.mainloop.value}")
        if self.compute == Compute.scalar:
            for name, default in _MMA_ONLY.items():
                if getattr(self, name) != default:
                    raise ValueError(f"knob '{name}' applies to compute=mma only; the scalar path has no such stage")
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
        d = {f"FA_{name.upper()}": _CODES[name].index(getattr(self, name)) for name in _CODES}
        d.update({f"FA_{name.upper()}": getattr(self, name) for name in _INTS})
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
        tiles = (self.br + 2 * self.bc * self.kv_stages) * stride * elem_bytes
        p_tile = self.br * self.bc * 4 if self.compute == Compute.scalar else 0
        slot = 16 if self.persistent == Switch.on else 0  # the persistent grid's work-item slot
        # a K and a V mbarrier per stage, and with kv_release last_warp the stage's count of warps done, with
        # producer its empty mbarrier (8 B either way)
        # (mainloop=ws: K-full, V-full, K-empty and V-empty barriers per stage, 32 B)
        per_stage = 32 if self.mainloop == MainLoop.ws else 16 if self.kv_release == KvRelease.barrier else 24
        bars = per_stage * self.kv_stages if self.staging == Staging.tma else 0
        bars += 16 if self.q_load == QLoad.tma else 0  # Q's full and empty mbarriers
        return tiles + p_tile + bars + slot

    def workspace_bytes(self, batch: int, heads: int, seqlen: int, head_dim: int) -> int:
        """Split-KV's fp32 partial outputs and LSEs in device memory (0 without a split)."""
        if self.split_kv == 1:
            return 0
        return self.split_kv * batch * heads * seqlen * (head_dim + 1) * 4


SEED = Knobs()
_FIRST_KNOBS = ("compute", "layout", "staging", "exp", "br", "bc", "warps")
_DEFAULTS = SEED.model_dump(mode="json")


HEADERS = (SOURCE.with_name("mma.cuh"), SOURCE.with_name("wgmma.cuh"), SOURCE.with_name("mainloop_sm90_ws.cuh"))


def source_hash(source: Path = SOURCE) -> str:
    h = hashlib.sha256()
    for f in (source, *HEADERS):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


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
