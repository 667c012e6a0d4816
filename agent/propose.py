"""What to try next, and when to stop."""

from __future__ import annotations

from collections.abc import Mapping

from kernel_src.knobs import Knobs

from .levers import CATALOG, Lever

PLATEAU = 3  # consecutive experiments without a keep (seed v7 stopped under this rule)


def propose(best: Knobs, diagnosis: str | None, excluded: set[str], levers: tuple[Lever, ...] = CATALOG,
            causal: bool = False, evidence: Mapping[str, float] | None = None) -> Lever | None:
    """The applicable lever that targets the current diagnosis, largest predicted gain first;
    with no diagnosis (no counters), by predicted gain alone. `excluded`: levers tried at this
    best or sitting on the shelf. `evidence`: margins already measured against this very kernel
    (a screen, an earlier run): a measured gain goes first, diagnosis or not, and a measured
    margin replaces the catalog's predicted one (look back before predicting again)."""
    ev = evidence or {}
    options = [lv for lv in levers if lv.name not in excluded and lv.applies_to(best, causal)]
    if not options:
        return None
    return max(options, key=lambda lv: (max(ev.get(lv.name, 0.0), 1.0), diagnosis is not None and diagnosis in lv.targets,
                                        ev.get(lv.name, lv.mid())))


def predicted_band(lever: Lever, measured: float | None, t_noise: float) -> tuple[float, float]:
    """The band written before measuring: the catalog's, or a margin this kernel has already shown,
    widened by twice the A/A null either way."""
    if measured is None:
        return lever.predicted
    return measured * (1 - 2 * t_noise), measured * (1 + 2 * t_noise)


def stop_reason(done: int, budget: int, since_keep: int, plateau: int = PLATEAU) -> str | None:
    if done >= budget:
        return "budget"
    if since_keep >= plateau:
        return "plateau"
    return None
