"""Search strategies behind one interface (base.Strategy): the loop asks, measures through the
same keep gate, and tells."""
from __future__ import annotations

from .base import Move, Proposal, State, Strategy, Trial

NAMES = ("agent", "random", "tpe", "ladder")


def make(name: str, seed: int = 0, agent_version: int | None = None) -> Strategy:
    if name == "agent":
        from .limiter import VERSION, LimiterAgent

        return LimiterAgent(agent_version or VERSION)
    if name == "random":
        from .random_search import RandomSearch

        return RandomSearch(seed)
    if name == "tpe":
        from .tpe import TpeSearch

        return TpeSearch(seed)
    if name == "ladder":
        from .ladder import Ladder

        return Ladder()
    raise ValueError(f"unknown strategy '{name}'; known: {', '.join(NAMES)}")


__all__ = ["Move", "Proposal", "State", "Strategy", "Trial", "NAMES", "make"]
