"""`--strategy random`: uniform over the valid, launchable configurations of the same space the
agent's levers reach (agent.strategies.base.space), same budget, same timer, same keep gate.

Each draw is timed paired against the current best and kept only through the gate, so a random
run climbs like any other; it is the reference the agent has to beat (Bergstra and Bengio's
point: on a small space random search is a strong baseline)."""
from __future__ import annotations

import random

from .base import Move, Proposal, Sampler, State, Trial, sample_valid, space


class RandomSearch(Sampler):
    name = "random"
    word = "uniform draw"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.drawn: set[str] = set()
        self._next: Move | None = None

    def _draw(self, state: State) -> Move | None:
        if self._next is None or self._next.knobs.key() in state.measured_keys():
            dims = space(state.levers, state.seed or state.best, state.causal)
            k = sample_valid(self.rng, dims, state.limits, state.head_dim,
                             exclude=self.drawn | state.measured_keys() | {state.best.key()})
            self._next = Move(knobs=k, kind="sample") if k is not None else None
            if k is not None:
                self.drawn.add(k.key())
        return self._next

    def tell(self, trial: Trial) -> None:
        self._next = None

    def measure_ahead(self, state: State, proposals: list[Proposal], width: int) -> list[Proposal]:
        """This draw and the next ones, as long as none is kept (`ahead`)."""
        return proposals[:1] + self.ahead(state, width - 1)

    def ahead(self, state: State, n: int) -> list[Proposal]:
        """The n draws after the current one, as this strategy will draw them one at a time if none
        of the draws before them is kept (several GPUs measure them meanwhile: agent.loop). A draw
        excludes what was drawn, measured and the best, and a keep changes only the best, so
        until a keep the later draws are known now; a copy of the RNG draws them and the strategy's
        own RNG and `drawn` are left as they were: the draws themselves still happen in `_draw`,
        one per experiment, whatever the number of GPUs. After a keep the loop discards what was
        drawn ahead and the next `_draw` excludes the new best, as one GPU's would."""
        cur = self._draw(state) if n > 0 else None
        if cur is None:
            return []
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        drawn = set(self.drawn)
        seen = state.measured_keys() | {state.best.key()}
        dims = space(state.levers, state.seed or state.best, state.causal)
        out = []
        for _ in range(n):
            k = sample_valid(rng, dims, state.limits, state.head_dim, exclude=drawn | seen)
            if k is None:
                break
            drawn.add(k.key())
            out.append(Proposal(move=Move(knobs=k, kind="sample"), predicted=None, rationale=f"{self.word}: {k.label()}"))
        return out

