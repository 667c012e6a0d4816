"""Conditions a lever was measured under, and when a shelved lever deserves another look.

The seed's deferred-rescale lost -0.17% at 8 warps/SM and won +0.97% at 12: a rejection is
conditional on occupancy, so it is stored with the conditions it lost under, and re-screened
when a keep changes them.
"""

from __future__ import annotations

from pydantic import BaseModel


class Conditions(BaseModel):
    registers: int | None = None
    smem_per_cta: int | None = None
    ctas_per_sm: int | None = None
    warps_per_sm: int | None = None
    diagnosis: str | None = None


# Registers move on nearly every keep; they matter through occupancy, which ctas/warps per SM
# capture, so a register change alone does not re-open the shelf.
TRIGGERS = ("smem_per_cta", "ctas_per_sm", "warps_per_sm", "diagnosis")


def conditions(attributes: dict | None, diagnosis_label: str | None) -> Conditions:
    """From the driver's attributes of the current best (registers, smem, resident CTAs/SM) and
    the profiler's label; warps/SM is resident CTAs x warps per CTA."""
    a = attributes or {}
    ctas = a.get("ctas_per_sm")
    warps = ctas * (a["threads"] // 32) if ctas is not None and a.get("threads") else None
    return Conditions(registers=a.get("registers"), smem_per_cta=a.get("smem_per_cta"), ctas_per_sm=ctas,
                      warps_per_sm=warps, diagnosis=diagnosis_label)


def changed(old: Conditions | dict, new: Conditions) -> list[str]:
    """The trigger conditions that differ; unknown values (None) never trigger."""
    o = old if isinstance(old, dict) else old.model_dump()
    n = new.model_dump()
    return [k for k in TRIGGERS if o.get(k) is not None and n.get(k) is not None and o[k] != n[k]]


def due_for_rescreen(shelved: list[dict], now: Conditions) -> list[dict]:
    """Shelf rows (store.queries.shelf) whose recorded conditions differ from `now`, oldest first."""
    return [row for row in shelved if changed(row.get("conditions") or {}, now)]
