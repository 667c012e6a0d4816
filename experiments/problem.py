"""The problem a run optimises for, and the reduced shapes of the C1 tier."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator


class Shape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    B: int
    H: int
    N: int
    D: Literal[64, 128]
    dtype: Literal["float16", "bfloat16"] = "float16"
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


def c1_shapes(target: Shape) -> list[Shape]:
    """Reduced shapes run on every candidate: the target's dtype and head dim, both mask modes,
    N below, at, and off the tile (odd tails), a single row."""
    group = target.H // target.kv_heads

    def mk(**kw):
        if group > 1:  # a grouped-query target: the reduced shapes keep its group size
            kw["Hkv"], kw["H"] = kw["H"], kw["H"] * group
        return Shape(**{**target.model_dump(), **kw})

    return [
        mk(B=1, H=2, N=128, causal=False),
        mk(B=2, H=3, N=197, causal=False),
        mk(B=1, H=2, N=333, causal=True),
        mk(B=1, H=1, N=1, causal=False),
        mk(B=2, H=1, N=81, causal=True),
    ]
