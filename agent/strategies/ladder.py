"""`--strategy ladder`: the first agent, kept so that runs recorded with it replay exactly.

It ranks the applicable levers that target the diagnosis *label* by the catalog's predicted band
(propose()), re-screens the whole shelf, oldest first, after a keep that changed the conditions,
and stops after `plateau` experiments without a keep. It reads no compiler figures; on the H200 it
stopped at 0.65x SDPA flash with 13 of 20 experiments unspent (issue 8), which is why `agent`
replaced it as the default."""
from __future__ import annotations

from ..propose import predicted_band, propose
from ..shelf import Conditions, due_for_rescreen
from .base import Move, Proposal, State, Trial

STRICT_PLATEAU = True  # the old rule: patience alone stops the run


class Ladder:
    name = "ladder"
    strict_plateau = True

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
            if lv.applies_to(state.best, state.causal):
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
            if lv is None or not lv.applies_to(state.best, state.causal):
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
    from ..levers import candidate

    k, _ = candidate(lv, state.best)
    return Move(levers=(lv.name,), knobs=k if k is not None else state.best, kind=kind)
