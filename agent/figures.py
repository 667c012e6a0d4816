"""The compiler's figures of the candidates a strategy may propose (registers, spills, occupancy): read before
it is asked, in two passes (a compound is worth building only once its parts' figures show a cost to give back),
and built ahead in the background while the GPU measures the candidate in flight."""
from __future__ import annotations

from kernel_src.knobs import Knobs

from . import events as ev
from .state import Run
from .strategies.base import State

AHEAD_DRAWS = 2  # a sampler's next draws built in the background (a draw builds in one nvcc call: a core each)


def with_figures(run: Run, state: State, figures: dict) -> State:
    """The compiler's figures of the best and of every move the strategy may propose (two passes:
    a compound is worth building only once its parts' figures show a cost to give back)."""
    for _ in range(2):
        want = [state.best] + [m.knobs for m in run.strategy.moves(state)]
        todo = [k for k in dict.fromkeys(want, None) if k.key() not in figures]
        if todo:
            run.say(ev.Phase(text=f"building {len(todo)} candidate(s) and reading their registers, spills and occupancy"))
            figures.update(run.bench.static(todo))
        state = state.model_copy(update={"static": {k: f for k, f in figures.items() if f is not None},
                                         "best_static": figures.get(state.best.key())})
    return state


def build_ahead(run: Run, state: State, best: Knobs, proposals: list | None = None) -> None:
    """The candidates the strategy would build first were `best` the best (its single levers; compounds wait for
    their parts' figures), compiled in the background while the GPU measures, so after a keep the next step reads
    finished builds. A strategy that draws configurations (random search) builds instead the draws it will make
    after `proposals[0]` if that is not kept (`measure_ahead`; none where it cannot know them, as TPE). What is
    never asked for costs CPU time, not wall time; nothing is recorded."""
    if run.o.screen:
        return
    if run.strategy.draws:
        later = run.strategy.measure_ahead(state, proposals, 1 + AHEAD_DRAWS)[1:] if proposals else []
        if later:
            run.bench.build_ahead([p.move.knobs for p in later])
        return
    ahead = state.model_copy(update={"best": best, "static": {}, "best_static": None})

    def compounds(figs: dict) -> list[Knobs]:  # _with_figures' second pass, on the figures of finished builds
        s = ahead.model_copy(update={"static": {k: f for k, f in figs.items() if f is not None},
                                     "best_static": figs.get(best.key())})
        return [m.knobs for m in run.strategy.moves(s)]
    run.bench.build_ahead([best, *(m.knobs for m in run.strategy.moves(ahead))], then=compounds)
