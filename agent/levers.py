"""The lever catalog: declared values a test can iterate over (STYLE.md habit 2).

Each lever names the knob values it sets, the diagnoses it targets, its precondition on the
current knobs, a predicted margin band (written to the store before the lever is measured)
and its hypothesis. Bands are leads from the seed's 5090 ladder widened for a different card,
not results: the tool measures, and a miss in either direction is itself information.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kernel_src.knobs import KnobError, Knobs


class UnknownLever(KeyError):
    pass


class Lever(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    sets: dict[str, str | int]  # knob -> value
    targets: tuple[str, ...]  # diagnosis labels this lever addresses
    requires: dict[str, tuple[str | int, ...]] = {}  # knob -> allowed current values
    predicted: tuple[float, float]  # margin band over the current best
    hypothesis: str
    simpler: bool = False  # strictly less code/instructions: kept at a NULL margin >= 1 (logged as a simplification)

    def applies_to(self, knobs: Knobs) -> bool:
        cur = knobs.model_dump(mode="json")
        if any(cur[k] not in allowed for k, allowed in self.requires.items()):
            return False
        return any(cur[k] != v for k, v in self.sets.items())  # a no-op is not an experiment

    def apply(self, knobs: Knobs) -> Knobs:
        """The candidate; raises KnobError when the combination is invalid."""
        return knobs.replace(**self.sets)

    def mid(self) -> float:
        return (self.predicted[0] * self.predicted[1]) ** 0.5


CATALOG: tuple[Lever, ...] = (
    Lever(
        name="tensor_cores", sets={"compute": "mma"}, targets=("tensor_idle_scalar_fma",), predicted=(2.0, 8.0),
        hypothesis="Both matmuls run as scalar FMAs while the tensor pipe reads 0%; mma.sync m16n8k16 with "
        "ldmatrix does 64+ MACs per instruction and S's accumulator layout is P's operand layout "
        "(seed v0->v1: 6.9x on the 5090).",
    ),
    Lever(
        name="swizzle", sets={"layout": "swizzle"}, targets=("smem_bank_conflicts",), requires={"compute": ("mma",)},
        predicted=(1.15, 1.8),
        hypothesis="Row strides of 128/256 B put every ldmatrix gather on the same banks (32 wavefronts "
        "against 4); XOR-ing the 16-byte chunk with row&7 spreads them for zero bytes; Amdahl caps the "
        "gain at the shared-memory stall share (seed v1->v2: 8x fewer conflicts, 1.68x).",
    ),
    Lever(
        name="padding", sets={"layout": "pad"}, targets=("smem_bank_conflicts",), requires={"compute": ("mma",)},
        predicted=(1.05, 1.7),
        hypothesis="8 elements of padding per row also removes the conflicts, paid in shared memory per "
        "CTA; the 5090 lost a CTA/SM to it (0.62x of the swizzle), a 227 KB part may not.",
    ),
    Lever(
        name="cp_async", sets={"staging": "cp_async"}, targets=("global_latency", "occupancy_limited"),
        predicted=(1.1, 1.6),
        hypothesis="Scalar 2-byte staging moves 64 B per warp-instruction through registers and the load "
        "must land before its store issues; 16-byte cp.async moves 512 B per warp-instruction with no "
        "register to scoreboard (seed v2->v3: 1.51x for the width).",
    ),
    Lever(
        name="exp2", sets={"exp": "ex2"}, targets=("issue_latency_chain", "tensor_bound", "occupancy_limited"),
        predicted=(1.02, 1.12),
        hypothesis="expf lowers to ~8 instructions with one MUFU; ex2.approx with log2(e) folded into the "
        "host scale removes ~7 per score from a serial QK->softmax->PV chain (seed v3->v4: 1.09x).",
    ),
    Lever(
        name="narrow_kv_tile", sets={"bc": 32}, targets=("occupancy_limited", "barrier_bound"),
        requires={"compute": ("mma",)}, predicted=(0.95, 1.05),
        hypothesis="BC 64->32 halves K/V shared memory and the score registers, so more CTAs fit: more "
        "independent __syncthreads domains per SM, against twice the per-block fixed cost (seed v7 "
        "exp1: +0.38% at 12 warps/SM, v5: 0.91-1.01x elsewhere).",
    ),
    Lever(
        name="wide_kv_tile", sets={"bc": 128}, targets=("barrier_bound", "issue_latency_chain", "tensor_bound"),
        requires={"compute": ("mma",)}, predicted=(0.92, 1.08),
        hypothesis="BC 64->128 halves the key-block iterations and their barriers and softmax bookkeeping, "
        "paid in registers (scores) and shared memory per CTA, which may cost occupancy.",
    ),
    Lever(
        name="tall_q_tile", sets={"br": 128, "warps": 8}, targets=("occupancy_limited", "global_latency"),
        requires={"compute": ("mma",)}, predicted=(0.9, 1.1),
        hypothesis="BR 64->128 with 8 warps shares each staged K/V tile among twice the query rows (half "
        "the L2->SMEM traffic per FLOP), but one CTA's barrier now stalls 8 warps.",
    ),
)

BY_NAME = {lv.name: lv for lv in CATALOG}
# The catalog as it stood when runs did not yet record theirs (results/2026-11-30_h200_run2):
# a replay of such a recording searches exactly these.
FIRST_CATALOG = ("tensor_cores", "swizzle", "padding", "cp_async", "exp2", "narrow_kv_tile", "wide_kv_tile", "tall_q_tile")


def get(name: str) -> Lever:
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownLever(f"unknown lever '{name}'; known: {', '.join(BY_NAME)}") from None


def candidate(lever: Lever, knobs: Knobs) -> tuple[Knobs | None, str | None]:
    """(candidate knobs, None) or (None, why it cannot be built)."""
    try:
        return lever.apply(knobs), None
    except KnobError as e:
        return None, str(e)
