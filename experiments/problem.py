"""The problem a run optimises for, and the reduced shapes of the C1 tier."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from kernel_src.knobs import DTYPES, HEAD_DIMS


class Shape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    B: int
    H: int
    N: int
    D: Literal[HEAD_DIMS]
    dtype: Literal[DTYPES] = "float16"
    causal: bool = False
    Hkv: int | None = None  # K/V heads (grouped-query attention); None: H (MHA); 1: MQA

    @field_validator("B", "H", "N")
    @classmethod
    def _positive(cls, v: int) -> int:
        if v <= 0:
            raise ValueError("B, H and N must be positive")
        return v

    @model_validator(mode="after")
    def _groups(self) -> "Shape":
        if self.Hkv is not None and (self.Hkv <= 0 or self.H % self.Hkv):
            raise ValueError(f"Hkv={self.Hkv} must divide H={self.H} (each K/V head serves H/Hkv query heads)")
        return self

    @property
    def kv_heads(self) -> int:
        return self.Hkv or self.H

    def key(self) -> str:
        gqa = f"-Hkv{self.Hkv}" if self.Hkv not in (None, self.H) else ""
        return f"B{self.B}-H{self.H}{gqa}-N{self.N}-D{self.D}-{self.dtype}-{'causal' if self.causal else 'noncausal'}"

    def flops(self) -> float:
        """Matmul FLOPs: 2 GEMMs of 2*N*N*D per head, or the live triangle when causal."""
        pairs = self.N * (self.N + 1) / 2 if self.causal else self.N * self.N
        return 4.0 * self.B * self.H * pairs * self.D


# No single GPU holds 1 TiB (the H200 has 141 GB): a problem whose own tensors exceed it is refused
# before anything is built, on any machine; once a GPU is probed, against that GPU's memory.
MEMORY_BOUND = 1 << 40


def tensor_bytes(shape: Shape) -> int:
    """Bytes of q and o (H heads) and k and v (Hkv heads) in the input dtype, and of the fp32 log-sum-exp
    (one per query row) the kernel writes beside o."""
    return _qkvo_bytes(shape) + _lse_bytes(shape)


def _qkvo_bytes(shape: Shape) -> int:
    return 2 * shape.B * (2 * shape.H + 2 * shape.kv_heads) * shape.N * shape.D


def _lse_bytes(shape: Shape) -> int:
    return 4 * shape.B * shape.H * shape.N


def memory_refusal(shape: Shape, memory: int | None = None, device: str | None = None) -> str | None:
    """Why the problem cannot run: its q, k, v, o and lse alone exceed `memory` (the GPU's bytes; None: no
    GPU probed, MEMORY_BOUND), with the arithmetic; None when they fit."""
    need = tensor_bytes(shape)
    limit = memory or MEMORY_BOUND
    if need <= limit:
        return None
    against = (f"the {limit / 1e9:.0f} GB of {device or 'the GPU'}" if memory else
               f"{limit / 2**40:.0f} TiB, more than any single GPU holds")
    return (f"problem {shape.key()} does not fit: q, k, v and o take 2 B x B{shape.B} x (2 x H{shape.H} + 2 x "
            f"Hkv{shape.kv_heads}) x N{shape.N} x D{shape.D} = {_qkvo_bytes(shape):.3e} B and the fp32 lse 4 B x "
            f"B{shape.B} x H{shape.H} x N{shape.N} = {_lse_bytes(shape):.3e} B, {need:.3e} B ({need / 2**40:.1f} TiB) "
            f"in all, more than {against}; choose a smaller --seqlen, --batch or --heads")


# The largest N checked with both input patterns; above it a shape is the target itself (C2).
REDUCED_N = 2048


def c1_shapes(target: Shape, knobs=None) -> list[Shape]:
    """Reduced shapes run on every candidate: the target's dtype and head dim, both mask modes,
    N below, at, and off the tile (odd tails), a single row; with the candidate's `knobs`, also
    the tails of its own tile (tile_shapes)."""
    group = target.H // target.kv_heads

    def mk(**kw):
        if group > 1:  # a grouped-query target: the reduced shapes keep its group size
            kw["Hkv"], kw["H"] = kw["H"], kw["H"] * group
        return Shape(**{**target.model_dump(), **kw})

    today = [
        mk(B=1, H=2, N=128, causal=False),
        mk(B=2, H=3, N=197, causal=False),
        mk(B=1, H=2, N=333, causal=True),
        mk(B=1, H=1, N=1, causal=False),
        mk(B=2, H=1, N=81, causal=True),
    ]
    if knobs is None:
        return today
    split = getattr(knobs, "tail_rows", None) == "split"
    return today + [mk(B=1, H=2, N=n, causal=c) for n in tile_ns(knobs.br, knobs.bc, split) for c in (False, True)]


def tile_ns(br: int, bc: int, split_tail: bool = False) -> list[int]:
    """Where an off-by-one in a tile's edge tests lives: one key short of a key block,
    exactly one, one past it (a block of a single real key); one query row short of and past two
    query tiles; and a single short key block. The five fixed N above never hit N = -1 mod BC for
    BC in {16, 32, 64, 128}. With `split_tail` (tail_rows=split) and two or three consumer warpgroups (BR 128, 192),
    also a second tile whose last warpgroup's 64 rows alone lie past N, one row short of them: the one case where that
    warpgroup computes a key block for the others. (Only there: the recorded runs' checks keep their shapes.)"""
    split = [2 * br - 65] if split_tail and br >= 128 else []
    return list(dict.fromkeys([bc - 1, bc, bc + 1, 2 * br - 1, 2 * br + 1, bc // 2 + 1] + split))


# experiments.tier.HOSTILE (kept here too: problem.py imports nothing of torch), drawn on the reduced shapes
# of at least HOSTILE_MIN_N rows, which span two key blocks or more at every BC up to 64
HOSTILE = ("rising", "sink", "late_jump", "large_qk", "large_v", "zero_q")
HOSTILE_MIN_N = 128


def c1_patterns(shapes: list[Shape]) -> tuple[list[Shape], list[str]]:
    """Every reduced shape on N(0,1) inputs, then again on inputs where a key that should be masked
    dominates its row, then the first three reduced shapes of HOSTILE_MIN_N rows or more on each of the
    hostile patterns (experiments.tier.PATTERNS)."""
    small = [s for s in shapes if s.N <= REDUCED_N]
    hostile = [s for s in small if s.N >= HOSTILE_MIN_N][:3]
    return (shapes + small + [s for s in hostile for _ in HOSTILE],
            ["normal"] * len(shapes) + ["masked_dominant"] * len(small) + [p for _ in hostile for p in HOSTILE])
