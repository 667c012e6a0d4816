"""What every strategy sees and returns (STYLE.md: a strategy is a value with two verbs).

A strategy receives a frozen `State` (best knobs, diagnosis, the compiler's figures of each
candidate it asked to have built, past trials, the shelf, t_noise, budget left) and answers
`ask(state, n)` with ranked `Proposal`s; it hears each result through `tell`. It never touches the
store, the bench or a subprocess, so the agent, random search and TPE are judged by one keep gate.
"""
from __future__ import annotations

import math

import random
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from kernel_src.arch import ArchLimits, launch_refusal
from kernel_src import knob_table as table
from kernel_src.knobs import KnobError, Knobs
from profiler.diagnosis import Diagnosis
from profiler.static import StaticFigures

from ..levers import Lever


class Move(BaseModel):
    """One experiment's change: 1-3 levers applied to the base, or a sampled configuration."""
    model_config = ConfigDict(frozen=True)

    levers: tuple[str, ...] = ()  # empty for a configuration sampled whole (random, TPE)
    knobs: Knobs
    kind: str = "lever"  # lever | compound | rescreen | sample

    @property
    def name(self) -> str:
        return "+".join(self.levers) if self.levers else "sample"


class Proposal(BaseModel):
    model_config = ConfigDict(frozen=True)

    move: Move
    predicted: tuple[float, float] | None  # the band written before measuring; None: no prediction
    rationale: str  # one line: why this move, in this rank

    def point(self) -> float | None:
        """The predicted margin: the band's geometric middle."""
        return None if self.predicted is None else (self.predicted[0] * self.predicted[1]) ** 0.5

    def promising(self, t_keep: float) -> bool:
        """Worth a measurement: no prediction (a sample), or a predicted margin that reaches t_keep."""
        return self.predicted is None or self.point() >= t_keep

    def chance(self, t_keep: float) -> float:
        """The chance that the margin reaches t_keep, the band read as the 95% interval of a log-normal
        (1.0 with no prediction)."""
        if self.predicted is None:
            return 1.0
        lo, hi = self.predicted
        sd = math.log(hi / lo) / 3.92 if hi > lo else 0.0
        z = math.log(self.point() / t_keep)
        return (1.0 if z >= 0 else 0.0) if sd == 0 else 0.5 * math.erfc(-z / (sd * math.sqrt(2)))


class Trial(BaseModel):
    """A finished experiment as a strategy hears of it."""
    model_config = ConfigDict(frozen=True)

    move: Move
    base_key: str
    outcome: str
    margin: float | None = None
    tflops: float | None = None  # the candidate's rate in its paired measurement
    static: StaticFigures | None = None


class State(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    best: Knobs
    seed: Knobs | None = None  # the run's start: the space is what the levers reach from it
    best_static: StaticFigures | None = None
    diagnosis: Diagnosis | None = None
    static: dict[str, StaticFigures] = {}  # knob key -> figures on this device, for built candidates
    trials: tuple[Trial, ...] = ()
    shelf: tuple[dict, ...] = ()  # store.queries.shelf rows still shelved
    conditions: dict = {}  # agent.shelf.Conditions of the current best
    t_noise: float = 0.0
    t_keep: float = 1.0
    budget_left: int = 0
    causal: bool = False
    head_dim: int = 128
    seqlen: int | None = None  # the problem's N (None: not known, as in a replay's state before it was recorded)
    dtype: str | None = None  # the problem's input dtype (None: not known, as in a replay's state before it was recorded)
    levers: tuple[Lever, ...] = ()  # the catalog this run may use
    evidence: dict[str, dict] = {}  # lever -> margin measured on this very kernel in earlier runs
    limits: ArchLimits | None = None

    def tried_at_best(self) -> set[str]:
        """Moves already measured against the current best."""
        return {t.move.name for t in self.trials if t.base_key == self.best.key()}

    def measured_keys(self) -> set[str]:
        return {t.move.knobs.key() for t in self.trials}


class Strategy(Protocol):
    """What the loop asks of a strategy. The attributes and `measure_ahead` are optional capabilities
    declared here with their defaults (Optuna's BaseSampler style): a strategy that has one says so
    by overriding it, and the loop reads the declaration, never the strategy's name."""
    name: str
    # the compiler's figures of every candidate are built and read before `ask` (False: the candidates
    # are only prefetched, and the loop records no figures with an experiment)
    reads_figures: bool = True
    # the plateau rule on patience alone: `plateau` experiments without a keep stop the run even while a
    # proposal is still predicted to reach t_keep
    strict_plateau: bool = False
    # a keep that changes the conditions re-opens shelved levers; the keep's line names them
    rescreens_shelf: bool = False
    # proposes configurations drawn from an RNG: a resumed run asks it again at every finished experiment
    # so its RNG stands where the uninterrupted run's stood (agent.resume)
    draws: bool = False
    resumable: bool = True  # `run --resume` may continue its runs

    def moves(self, state: State) -> list[Move]:
        """Candidates to build (one ninja call) and read the compiler's figures of before `ask`."""

    def ask(self, state: State, n: int = 1) -> list[Proposal]:
        """Up to n proposals, best first; an empty list: nothing left worth a measurement."""

    def tell(self, trial: Trial) -> None:
        """The result of a proposal this strategy made."""

    def remaining(self, state: State) -> list[tuple[str, str]]:
        """(move, why it was not worth a measurement) for what is left when the run stops."""

    def worth(self, proposal: Proposal, t_keep: float) -> bool:
        """Whether the plateau rule counts `proposal` as worth a measurement (default: its predicted margin
        reaches t_keep)."""
        return proposal.promising(t_keep)

    def measure_ahead(self, state: State, proposals: list[Proposal], width: int) -> list[Proposal]:
        """The proposals a bench of `width` GPUs measures at once against the current best, `proposals`
        being this ask's answer; the loop still takes one experiment at a time in its own order. Empty
        (the default): nothing is measured before it is asked for."""
        return []


class Sampler(Strategy):
    """A strategy that proposes whole configurations and predicts nothing (random search, TPE):
    subclasses draw in `_draw(state)` and name their draws in `word`."""
    word = "draw"
    draws = True

    def _draw(self, state: State) -> Move | None:
        raise NotImplementedError

    def moves(self, state: State) -> list[Move]:
        m = self._draw(state)
        return [m] if m else []

    def ask(self, state: State, n: int = 1) -> list[Proposal]:
        m = self._draw(state)
        return [Proposal(move=m, predicted=None, rationale=f"{self.word}: {m.knobs.label()}")] if m else []

    def remaining(self, state: State) -> list[tuple[str, str]]:
        return []  # a draw is never judged before it is measured


# ---- the space every strategy draws from ------------------------------------------------------
def space(levers: tuple[Lever, ...], seed: Knobs, causal: bool) -> dict[str, list]:
    """The knob values the catalog's levers can reach from the seed, per knob; BR and warps move
    together (a lever sets both), so they are one dimension `tile` of (br, warps) pairs."""
    s = seed.model_dump(mode="json")
    dims: dict[str, list] = {k: [v] for k, v in s.items() if k not in ("br", "warps")}
    dims["tile"] = [(s["br"], s["warps"])]
    for lv in levers:
        if (lv.causal_only and not causal) or (lv.noncausal_only and causal) or not lv.sampled:
            continue
        for k, v in lv.sets.items():
            if k in ("br", "warps"):
                pair = (lv.sets.get("br", s["br"]), lv.sets.get("warps", s["warps"]))
                if pair not in dims["tile"]:
                    dims["tile"].append(pair)
            elif v not in dims[k]:
                dims[k].append(v)
    # A knob added after random and TPE runs were recorded enters the space only once a lever moves
    # it: a dimension of one value still draws from the RNG, so keeping it would change every
    # later draw of those recordings' replays.
    default = Knobs().model_dump(mode="json")
    dims = {k: v for k, v in dims.items() if not (k in LATER_KNOBS and v == [default[k]])}
    # A knob valid only with one value of another is drawn as more values of that other's dimension (knob_table's
    # `join`: pingpong with kv_release=producer as "producer+pingpong", exp_poly with exp=ex2 as "ex2+poly_<value>",
    # q_load=tma with mainloop=ws as "ws+q_load_tma"), so no draw lands in the invalid half: from the mma seed, 0.60% of the points were valid with pingpong a
    # dimension of its own, 0.95% joined (results/2026-11-30_cpu_build_checks/tpe_draw_asks.txt). Each valid
    # configuration still has one point.
    for k in table.KNOBS:
        j = k.join
        if j and len(dims.get(k.name, ())) > 1 and j.when in dims.get(j.parent, ()):
            moved = [v for v in dims.pop(k.name) if v != k.default]
            dims[j.parent] = [*dims[j.parent], *(j.label.format(value=v) for v in moved)]
    return dims


PRODUCER_PINGPONG = table.BY_NAME["pingpong"].join.label  # "producer+pingpong": kv_release=producer, pingpong=on
EX2_POLY = table.BY_NAME["exp_poly"].join.label.removesuffix("{value}")  # "ex2+poly_": exp=ex2 with that exp_poly
WS_Q_TMA = table.BY_NAME["q_load"].join.label.format(value="tma")  # "ws+q_load_tma": mainloop=ws, q_load=tma

# knobs added after the first random and TPE recordings (knob_table's `later`)
LATER_KNOBS = tuple(k.name for k in table.KNOBS if k.later)


_DEFAULTS = Knobs().model_dump(mode="json")
# knob_table's joins: parent -> [(child, its default, {label: (parent's value, child's value)})], a label for each of
# the child's values but its default ("producer+pingpong": kv_release=producer, pingpong=on)
_JOINS: dict[str, list] = {}
for _k in table.KNOBS:
    if _k.join:
        _JOINS.setdefault(_k.join.parent, []).append(
            (_k.name, _k.default, {_k.join.label.format(value=v): (_k.join.when, v) for v in _k.values if v != _k.default}))


def knobs_of(choice: dict) -> Knobs:
    """A point of `space` as Knobs (raises KnobError when the combination is invalid)."""
    c = dict(choice)
    c["br"], c["warps"] = c.pop("tile")
    for parent, joined in _JOINS.items():  # the joined values of space()
        for child, _default, labels in joined:
            if c.get(parent) in labels:
                c[parent], c[child] = labels[c[parent]]
    # The table's plain rules first, on the values as drawn: Knobs.parse checks the same rules (and more), so a
    # point they refuse is refused either way and the draws are the same; only faster. Of the space from the naive
    # seed 0.02% is valid; 77 -> 28 us a point (results/2026-12-01_cpu_ci_time/sampler_point_time.txt).
    full = {**_DEFAULTS, **c}
    if not all(r.holds(full) for r in table.RULES):
        raise KnobError("a rule of kernel_src/knob_table.py refuses this combination")
    return Knobs.parse(c)


def dim_knobs(dim: str, value, own=()) -> dict:
    """The knob values one point of a `space` dimension fixes: `tile` is (br, warps); a joined label its parent's
    `when` and the child's value; a join parent's plain value leaves its joined children at their defaults, as
    knobs_of decodes the whole point. `own`: the space's dimensions; a child that has its own dimension there (a knob
    not joined because it had one value) is left to it."""
    if dim == "tile":
        return {"br": value[0], "warps": value[1]}
    out = {dim: value}
    for child, default, labels in _JOINS.get(dim, ()):
        if child in own:
            continue
        if value in labels:
            out[dim], out[child] = labels[value]
        else:
            out[child] = default
    return out


class Constructive:
    """Draws a point of `space` one dimension at a time, offering each dimension only the values that no rule of
    kernel_src/knob_table.py refuses beside the values drawn before it (a rule is read once every knob it names is
    fixed). From the naive seed 5.1% of the points so drawn are valid (the validator's own checks in
    kernel_src/knobs.py refuse the rest, or a dimension is left no value), where 0.02% of the space's uniform points
    are, so TPE asks a few times a draw instead of thousands (results/2026-12-04_cpu_tpe_constructive).
    `pick(name, choices)` chooses among two or more values; a dimension left one value is fixed without asking."""

    def __init__(self, dims: dict[str, list]) -> None:
        self.dims = dims
        covered = {k for d in dims for k in (("br", "warps") if d == "tile" else (d,))}
        covered |= {child for parent in dims for child, _, _ in _JOINS.get(parent, ())}
        self.fixed = {k: v for k, v in _DEFAULTS.items() if k not in covered}
        self.rules = [(set(r.when) | set(r.need), r) for r in table.RULES]

    def _allowed(self, values: dict) -> bool:
        full = {**_DEFAULTS, **values}
        return all(r.holds(full) for names, r in self.rules if names <= values.keys())

    def draw(self, pick) -> dict | None:
        """A point (dimension -> value), or None where a dimension was left no value (a dead end)."""
        values, point = dict(self.fixed), {}
        for d, vals in self.dims.items():
            ok = [v for v in vals if self._allowed({**values, **dim_knobs(d, v, self.dims)})]
            if not ok:
                return None
            v = ok[0] if len(ok) == 1 else pick(d, ok)
            point[d] = v
            values.update(dim_knobs(d, v, self.dims))
        return point


def launchable(k: Knobs, limits: ArchLimits | None, head_dim: int) -> bool:
    return limits is None or launch_refusal(limits, smem=k.smem_bytes(head_dim), threads=k.threads(),
                                              needs_arch=k.needs_arch()) is None


def sample_valid(rng: random.Random, dims: dict[str, list], limits: ArchLimits | None, head_dim: int,
                 exclude: set[str], tries: int = 100_000) -> Knobs | None:
    """Uniform over the valid, launchable configurations of the space (rejection sampling)."""
    for _ in range(tries):
        try:
            k = knobs_of({d: rng.choice(vals) for d, vals in dims.items()})
        except KnobError:
            continue
        if k.key() not in exclude and launchable(k, limits, head_dim):
            return k
    return None
