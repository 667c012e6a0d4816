"""`--strategy random`: uniform over the valid, launchable configurations of the same space the
agent's levers reach (agent.strategies.base.space), same budget, same timer, same keep gate.

Each draw is timed paired against the current best and kept only through the gate, so a random
run climbs like any other; it is the reference the agent has to beat (Bergstra and Bengio's
point: on a small space random search is a strong baseline)."""
from __future__ import annotations

import random

from .base import Move, Sampler, State, Trial, sample_valid, space


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

