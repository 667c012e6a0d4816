"""Search strategies behind one interface (base.Strategy): the loop asks, measures through the
same keep gate, and tells. `agent` (limiter) is the current agent; `random` and `tpe` are the
references it is judged against; `ladder`, the first agent, lives with what only recorded runs need
(agent.replay)."""
from __future__ import annotations

from ..policy import Policy
from .base import Move, Proposal, State, Strategy, Trial

NAMES = ("agent", "random", "tpe", "ladder")


def make(name: str, seed: int = 0, agent_version: int | Policy | None = None, tpe_draw: str = "constructive") -> Strategy:
    """A strategy by name; `agent_version`: the agent's policy (agent.policy; None: the current one); `tpe_draw`:
    how TPE draws a point (SearchOptions.tpe_draw)."""
    if name == "agent":
        from .limiter import LimiterAgent

        return LimiterAgent(agent_version)
    if name == "random":
        from .random_search import RandomSearch

        return RandomSearch(seed)
    if name == "tpe":
        from .tpe import TpeSearch

        return TpeSearch(seed, draw=tpe_draw)
    if name == "ladder":
        from ..replay.ladder import Ladder

        return Ladder()
    raise ValueError(f"unknown strategy '{name}'; known: {', '.join(NAMES)}")


__all__ = ["Move", "Proposal", "State", "Strategy", "Trial", "NAMES", "make"]
