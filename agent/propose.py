"""What to try next, and when to stop."""

from __future__ import annotations

from kernel_src.knobs import Knobs

from .levers import CATALOG, Lever

PLATEAU = 3  # consecutive experiments without a keep (seed v7 stopped under this rule)


def propose(best: Knobs, diagnosis: str | None, excluded: set[str], levers: tuple[Lever, ...] = CATALOG,
            causal: bool = False) -> Lever | None:
    """The applicable lever that targets the current diagnosis, largest predicted gain first;
    with no diagnosis (no counters), by predicted gain alone. `excluded`: levers tried at this
    best or sitting on the shelf."""
    options = [lv for lv in levers if lv.name not in excluded and lv.applies_to(best, causal)]
    if not options:
        return None
    return max(options, key=lambda lv: (diagnosis is not None and diagnosis in lv.targets, lv.mid()))


def stop_reason(done: int, budget: int, since_keep: int, plateau: int = PLATEAU) -> str | None:
    if done >= budget:
        return "budget"
    if since_keep >= plateau:
        return "plateau"
    return None
