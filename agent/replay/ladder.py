"""`--strategy ladder`: the first agent, kept so that runs recorded with it replay exactly.

It ranks the applicable levers that target the diagnosis *label* by the catalog's predicted band
(propose()), re-screens the whole shelf, oldest first, after a keep that changed the conditions,
and stops after `plateau` experiments without a keep. It reads no compiler figures; on the H200 it
stopped at 0.65x SDPA flash with 13 of 20 experiments unspent, which is why `agent` replaced it as
the default."""
from __future__ import annotations

from collections.abc import Mapping

from kernel_src.knobs import Knobs

from ..levers import CATALOG, Lever, candidate
from ..shelf import Conditions, due_for_rescreen
from ..state import PLATEAU
from ..strategies.base import Move, Proposal, State, Strategy, Trial



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
    """The ladder's stopping rule: the budget, or `plateau` experiments without a keep (patience alone)."""
    if done >= budget:
        return "budget"
    if since_keep >= plateau:
        return "plateau"
    return None


class Ladder(Strategy):
    name = "ladder"
    reads_figures = False  # it ranks by the diagnosis label and the catalog's bands; candidates are only prefetched
    strict_plateau = True  # the old rule: patience alone stops the run
    rescreens_shelf = True
    resumable = False  # kept to replay recorded runs; its runs are not resumed

    def __init__(self) -> None:
        self._best: str | None = None
        self._queue: list[dict] = []

    def _sync(self, state: State) -> None:
        if state.best.key() != self._best:
            if self._best is not None:  # a keep: the shelf is re-screened first, oldest first
                self._queue = due_for_rescreen(list(state.shelf), Conditions(**state.conditions))
            self._best = state.best.key()

    def moves(self, state: State) -> list[Move]:
        out = []
        for lv in state.levers:
            if lv.applies_to(state.best, state.causal, state.head_dim):
                try:
                    out.append(Move(levers=(lv.name,), knobs=lv.apply(state.best)))
                except Exception:  # noqa: BLE001 - an invalid combination is refused at evaluation
                    continue
        return out

    def ask(self, state: State, n: int = 1) -> list[Proposal]:
        self._sync(state)
        by = {lv.name: lv for lv in state.levers}
        while self._queue:
            entry = self._queue[0]
            lv = by.get(entry["lever"])
            if lv is None or not lv.applies_to(state.best, state.causal, state.head_dim):
                self._queue.pop(0)  # the keep that re-opened it also made it moot
                continue
            return [Proposal(move=_move(lv, state, "rescreen"), predicted=lv.predicted,
                             rationale=f"{lv.name}: re-screen, conditions changed since it was shelved")]
        shelved = {r["lever"] for r in state.shelf}
        measured = {k: e["margin"] for k, e in state.evidence.items()}
        lv = propose(state.best, state.diagnosis.label if state.diagnosis else None,
                     state.tried_at_best() | shelved, state.levers, state.causal, measured)
        if lv is None:
            return []
        prior = state.evidence.get(lv.name)
        return [Proposal(move=_move(lv, state, "lever"),
                         predicted=predicted_band(lv, prior and prior["margin"], state.t_noise),
                         rationale=f"{lv.name}: targets the diagnosis label, catalog band {lv.predicted[0]:.2f}-"
                                   f"{lv.predicted[1]:.2f}")]

    def tell(self, trial: Trial) -> None:
        if trial.move.kind == "rescreen" and self._queue and self._queue[0]["lever"] == trial.move.name:
            self._queue.pop(0)

    def remaining(self, state: State) -> list[tuple[str, str]]:
        return []


def _move(lv, state: State, kind: str) -> Move:
    k, _ = candidate(lv, state.best)
    return Move(levers=(lv.name,), knobs=k if k is not None else state.best, kind=kind)
