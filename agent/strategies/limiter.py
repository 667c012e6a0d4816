"""`--strategy agent`: proposals from the mechanism, not a label.

Every applicable lever, every shelved lever whose conditions changed, and compound moves are
built before anything is timed; the compiler's figures of each (registers, spills, shared memory,
and the CTAs/SM, warps/SM and resident query rows/SM they predict on this device) are read against
the current best's and the diagnosis. The rank is a tuple the output prints for each candidate:

  1. a gain measured on this very kernel in an earlier run (--evidence) goes first, then every
     candidate whose predicted margin (its band's geometric middle) reaches t_keep;
  2. relief: 2 if the figures show the candidate relieves the diagnosed bottleneck (more resident
     rows per SM under a latency-bound diagnosis, fewer spills), 1.5 if the lever
     declares a relief of the diagnosis on this compute arm with a measurement behind it, 1 if the
     lever declares that it targets the diagnosis, 0.5 for more resident rows where latency is only
     part of the story (global-load latency, which the copy hides first, or no counters), 0 otherwise;
  3. cost: 2 if it loses resident rows under a latency-bound diagnosis or spills more than
     SPILL_SMALL new bytes, 1 for a small new spill, 0 otherwise (higher ranks later);
  4. the resident rows it gains, then the predicted band: the catalog's (the seed's 5090 leads),
     widened to what the same lever did to another kernel earlier in this run, raised to the ratio
     of resident rows (Little's law) when it adds rows, capped at 1.0 when its cost is class 2. A move
     that shares a lever with moves already measured against this best takes its band from them
     instead: log margins add over levers, each lever's prior is the band above (a restorer's centred
     at 1.0), and the posterior of that small Gaussian regression (lever_factors) gives the band.

Compound moves are the shelf made actionable: a lever whose cost is a resource (it was shelved
after losing with more registers, a CTA fewer or spills, or the figures show that cost before it
is measured) is paired with each lever that, on its own figures, gives that resource back (fewer
registers, fewer spills, less shared memory), and kept as a move only if the pair's own figures
show the cost gone.

The agent decides by a Policy (agent.policy): CURRENT for a new run, the one a recorded run ran
with for its replay or resume; each switch is a field the code below reads by name.
"""
from __future__ import annotations

from itertools import combinations

from kernel_src.knobs import KnobError, Knobs

from ..levers import Lever, catalog_for
from ..policy import Policy, policy
from .base import Move, Proposal, State, Strategy, Trial
from .lever_factors import fit, prior_of

# Diagnoses under which resident work hides latency (seed 2.7: at 2 warps/scheduler the QK ->
# softmax -> PV chain has no second warp to fill its slots; v7 exp1: three barrier domains paid).
LATENCY_BOUND = ("occupancy_limited", "issue_latency_chain", "barrier_bound")
# issue_bound is deliberately not among them: its warps are ready and wait for the issue slot,
# so resident rows neither relieve it nor are lost at a cost there; fewer instructions per FLOP do
# global-load latency is hidden by more rows in flight too, but first by the copy (v2->v3): rows rank
# as a declared target there, not above cp.async
PARTLY_LATENCY_BOUND = ("global_latency",)
# A few registers' worth of local memory that L1 serves (seed exp15: 16 B of spill went with 7
# registers, and the keep was the registers); past this a spill is a cost in itself.
SPILL_SMALL = 128
MEASURED = ("KEPT", "SLOWER", "NULL")
MAX_COMPOUND = 3


# Policy.plateau_chance: a proposal whose band gives it at least this chance of reaching t_keep keeps the run
# going past the plateau's patience
PLATEAU_CHANCE = 0.25


class LimiterAgent(Strategy):
    name = "agent"
    rescreens_shelf = True

    def __init__(self, version: int | Policy | None = None) -> None:
        self.policy = policy(version)  # UnknownPolicy (a ValueError) for a number no run recorded
        self.version = self.policy.version
        self.catalog = {lv.name: lv for lv in catalog_for(self.policy)}
        self.told: list[Trial] = []
        self._levers: tuple[tuple, tuple[Lever, ...]] = ((), ())

    def levers(self, state: State) -> tuple[Lever, ...]:
        """The run's levers (state.levers: the catalog it may use, in its order) as this policy reads them."""
        names = tuple(lv.name for lv in state.levers)
        if self._levers[0] != names:
            self._levers = (names, tuple(self.catalog[n] for n in names if n in self.catalog))
        return self._levers[1]

    def lever(self, state: State, name: str) -> Lever:
        return next(lv for lv in self.levers(state) if lv.name == name)

    # ---- what to build ---------------------------------------------------------------------
    def _singles(self, state: State) -> list[tuple[Lever, Knobs]]:
        out = []
        for lv in self.levers(state):
            if lv.applies_to(state.best, state.causal, state.head_dim, state.seqlen, state.dtype):
                try:
                    k = lv.apply(state.best)
                except KnobError:
                    continue  # an invalid combination at this best: not a candidate
                if not self._in_space(k):
                    continue
                need = k.needs_arch()
                if need and state.limits is not None and state.limits.arch != need:
                    continue  # instructions this part does not have (wgmma off Hopper): never built
                out.append((lv, k))
        return out

    def _compound_seeds(self, state: State) -> set[str]:
        """Levers whose cost is a resource: shelved after losing with the resource spent (their
        recorded conditions), or whose figures show the cost now."""
        costly = {row["lever"] for row in state.shelf if "+" not in row["lever"]}
        for lv, k in self._singles(state):
            f, b = state.static.get(k.key()), state.best_static
            if f and b and (f.spill_bytes > b.spill_bytes or f.rows_per_sm < b.rows_per_sm):
                costly.add(lv.name)
        return costly

    def _in_space(self, k: Knobs) -> bool:
        """A policy without the wgmma arm searched the arm as Knobs then allowed it: staging cp.async, no
        pipeline (TMA and the arm's pipeline came with the arm). Its replays see that space."""
        if self.policy.wgmma_arm or k.compute.value != "wgmma":
            return True
        return k.staging.value == "cp_async" and k.pipeline.value == "off"

    def moves(self, state: State) -> list[Move]:
        singles = self._singles(state)
        undone = _keeps(state) if self.policy.keeps_stand else []  # a lever alone that undoes a keep: not a move
        moves = [Move(levers=(lv.name,), knobs=k, kind="lever") for lv, k in singles if not _undoes(k, state.best, undone)]
        if not state.static:  # first pass: the singles' figures decide which compounds to build
            return moves
        by = {lv.name: (lv, k) for lv, k in singles}
        b = state.best_static
        restorers = [n for n, (lv, k) in by.items() if (f := state.static.get(k.key())) and b
                     and (f.registers < b.registers or f.spill_bytes < b.spill_bytes or f.smem_per_cta < b.smem_per_cta)]
        seen = {m.knobs.key() for m in moves} | {state.best.key()}
        for costly in sorted(self._compound_seeds(state)):
            if costly not in by:
                continue
            for r in range(1, MAX_COMPOUND):
                for extra in combinations([n for n in restorers if n != costly], r):
                    k = _apply_all(state.best, [by[costly][0], *(by[e][0] for e in extra)])
                    if k is None or k.key() in seen or not self._in_space(k):
                        continue
                    seen.add(k.key())
                    moves.append(Move(levers=(costly, *extra), knobs=k, kind="compound"))
        return moves

    # ---- what to measure -------------------------------------------------------------------
    def assess(self, state: State, move: Move) -> tuple[tuple, tuple[float, float], str] | None:
        """(rank key, predicted band, one-line rationale), or None when it is not a candidate now.

        With shared margins (Policy.shared_margins) the band of a move that shares a lever with a move
        measured against this best is the posterior of what those measurements say (`_shared`); the
        figures, relief and cost are read as without, and the band's middle ranks it."""
        if not self.policy.shared_margins:
            return self._assess(state, move)
        prior = _before_this_best(state)
        got = self._assess(prior, move)
        if got is None:
            return None
        key, band, why = got
        shared = self._shared(state, prior, move, band)
        if shared is None:
            return got
        band, note = shared
        mid = (band[0] * band[1]) ** 0.5
        key = (*key[:1], mid >= state.t_keep, *key[2:5], mid, *key[6:])
        head, _, tail = why.rpartition(" [relief")
        return key, band, f"{head}; {note} [relief{tail}"

    def _shared(self, state: State, prior: State, move: Move,
                band: tuple[float, float]) -> tuple[tuple[float, float], str] | None:
        """The band of `move` given the margins measured against the current best (lever_factors), or
        None when no such move shares a lever with it (its band is then `_assess`'s, untouched).

        Each lever's prior is read from the first move that holds it, the candidate first and then the
        measured moves in order: a move's first lever takes that move's band as `_assess` reads it before
        anything was measured at this best; a restorer (a later lever of a compound, whose gain a
        first-lever band does not count) is centred at 1.0 with the spread of its band alone at this best."""
        names = {lv.name for lv in state.levers}
        measured = [t for t in state.trials if t.base_key == state.best.key() and t.outcome in MEASURED
                    and t.margin and t.move.levers and set(t.move.levers) <= names]
        if self.policy.restorer_margins and len(move.levers) == 1:
            measured = [t for t in measured if move.levers[0] not in t.move.levers[1:]]
        if not any(set(t.move.levers) & set(move.levers) for t in measured):
            return None
        priors = {}
        for i, m in enumerate([move] + [t.move for t in measured]):
            for j, n in enumerate(m.levers):
                if n in priors:
                    continue
                if j:
                    priors[n] = prior_of(self._alone(prior, n), centre=1.0)
                else:
                    priors[n] = prior_of(band if i == 0 else self._band(prior, m))
        post = fit(priors, [(t.move.levers, t.margin) for t in measured], state.t_noise)
        seen = [n for n in move.levers if post.moves[n]]
        note = "levers measured at this best: " + ", ".join(
            f"{n} ~{post.factor(n):.2f} from {post.moves[n]} move{'s' if post.moves[n] > 1 else ''}" for n in seen)
        got = post.band(move.levers)
        return got, f"{note}; band {got[0]:.3f}-{got[1]:.3f} from them"

    def _band(self, state: State, move: Move) -> tuple[float, float]:
        got = self._assess(state, move)
        return got[1] if got else self.lever(state, move.levers[0]).predicted

    def _alone(self, state: State, name: str) -> tuple[float, float]:
        """The band the lever gets as a single move at this best, or its catalog band where it is none."""
        lv = self.lever(state, name)
        if lv.applies_to(state.best, state.causal, state.head_dim, state.seqlen, state.dtype):
            try:
                return self._band(state, Move(levers=(name,), knobs=lv.apply(state.best)))
            except KnobError:
                pass
        return lv.predicted

    def _assess(self, state: State, move: Move) -> tuple[tuple, tuple[float, float], str] | None:
        """The figures, the diagnosis and the look-back (every policy's; without shared margins the whole of it)."""
        f, b = state.static.get(move.knobs.key()), state.best_static
        if f is not None and f.refusal:
            return None
        levers = [self.lever(state, n) for n in move.levers]
        if self.policy.compound_band == "first_lever":
            # a compound move's band is its first lever's: the restorers are there to give back that
            # lever's cost, which the figures below judge, not to add their own catalog gains
            lo, hi = levers[0].predicted
        else:  # "product" (Policy.compound_band)
            lo = hi = 1.0
            for lv in levers:
                lo, hi = lo * lv.predicted[0], hi * lv.predicted[1]
        label = state.diagnosis.label if state.diagnosis else None
        compute = state.best.compute.value
        # a compound move is its first lever plus what gives that lever's cost back: it targets
        # what its first lever targets, its reliefs included
        targets = label in levers[0].targets_on(compute) if label else False
        relief, cost, why = (1 if targets else 0), 0, [f"targets {label}"] if targets else []
        declared = levers[0].relief(label, compute) if label else None
        if declared is not None:
            # a relief measured on this arm outranks a catalog target, and its band is the arm's
            relief = 1.5
            why[-1] = f"relieves {label} on {compute} (catalog: measured on the arm)"
            if declared.predicted is not None:
                lo, hi = declared.predicted
        rows_gain = 0
        if f is not None and b is not None:
            rows_gain = f.rows_per_sm - b.rows_per_sm
            new_spill = f.spill_bytes - b.spill_bytes
            latency = label in LATENCY_BOUND
            # without counters (label None) more rows in flight is a lead, not a diagnosis
            if rows_gain > 0 and new_spill <= SPILL_SMALL and (latency or label in PARTLY_LATENCY_BOUND or label is None):
                relief = max(relief, 2 if latency else 0.5)
                why.append(f"rows/SM {b.rows_per_sm} -> {f.rows_per_sm}")
                hi = max(hi, f.rows_per_sm / b.rows_per_sm)  # Little's law: at most the work in flight
            if b.spill_bytes and f.spill_bytes < b.spill_bytes and rows_gain >= 0:
                relief = max(relief, 2)
                why.append(f"spills {b.spill_bytes} -> {f.spill_bytes} B")
            if rows_gain < 0 and latency and self.policy.async_mainloop and levers[0].asynchronous:
                why.append(f"rows/SM {b.rows_per_sm} -> {f.rows_per_sm}, latency hidden by the producer and "
                           f"asynchronous wgmma instead")
            elif rows_gain < 0 and latency:
                cost = 2
                why.append(f"loses rows/SM {b.rows_per_sm} -> {f.rows_per_sm} under {label or 'no diagnosis'}")
            if rows_gain < 0 and self.policy.async_rows and levers[0].asynchronous:
                rows_gain = 0  # rows given up for the producer's asynchrony: no tie-break against the move either
            if new_spill > SPILL_SMALL:
                cost = 2
                why.append(f"spills {f.spill_bytes} B")
            elif new_spill > 0:
                cost = max(cost, 1)
                why.append(f"spills {f.spill_bytes} B (small)")
            if f.wgmma_serialized and not b.wgmma_serialized:
                cost = 2  # each wgmma waits for the one before it: the overlap the mainloop is built on is gone
                why.append("ptxas serialises its wgmma (C7520)")
            if cost == 2:
                hi = min(hi, 1.0)  # predicted not to pay: the figures show what it costs
        earlier = [t for t in state.trials if t.move.name == move.name and t.margin is not None
                   and t.outcome in ("KEPT", "SLOWER", "NULL")]
        if earlier and len(levers) == 1:  # look back: what it did to another kernel of this run
            m = earlier[-1].margin
            lo, hi = min(lo, m * (1 - 2 * state.t_noise)), max(hi, m * (1 + 2 * state.t_noise))
            why.append(f"measured {m:.3f} on {earlier[-1].base_key} earlier in this run")
        ev = state.evidence.get(move.name)
        if ev is not None:
            m = ev["margin"]
            lo, hi = m * (1 - 2 * state.t_noise), m * (1 + 2 * state.t_noise)
            why.insert(0, f"measured {m:.3f} on this kernel before (run {ev['run_id']})")
        shelved = next((r for r in state.shelf if r["lever"] == move.name), None)
        if shelved is not None:
            why.append(f"shelved at {shelved['margin'] or 0:.3f}; conditions changed")
        figs = f"{b.registers}->{f.registers} regs, CTAs/SM {b.ctas_per_sm}->{f.ctas_per_sm}" if f and b else "no figures"
        mid = (lo * hi) ** 0.5
        key = (max(ev["margin"], 1.0) if ev else 1.0, mid >= state.t_keep, relief, -cost, rows_gain, mid, -len(levers))
        rationale = f"{move.name}: {figs}; " + ("; ".join(why) or "no relief of the diagnosis") + \
            f" [relief {relief}, cost {cost}]"
        return key, (lo, hi), rationale

    def ranked(self, state: State) -> list[Proposal]:
        done = state.tried_at_best() | state.measured_keys()
        shelved = {r["lever"]: r for r in state.shelf}
        conds = state.conditions or {}
        out, single_cost = [], {}
        for move in sorted(self.moves(state), key=lambda m: len(m.levers)):  # singles first: their cost
            got = self.assess(state, move)
            if got is None:
                continue
            key, band, why = got
            if len(move.levers) == 1:
                single_cost[move.name] = -key[3]
            elif single_cost.get(move.levers[0], 0) <= -key[3]:
                continue  # a compound earns its place only by giving back what its first lever costs
            if move.name in done or move.knobs.key() in done:
                continue
            row = shelved.get(move.name)
            if row is not None:
                if not _changed(row.get("conditions") or {}, conds):
                    continue  # lost under these very conditions: nothing new to learn
                move = move.model_copy(update={"kind": "rescreen"})
            out.append((key, Proposal(move=move, predicted=band, rationale=why)))
        out.sort(key=lambda kp: kp[0], reverse=True)
        return [p for _, p in out]

    def ask(self, state: State, n: int = 1) -> list[Proposal]:
        return self.ranked(state)[:n]

    def measure_ahead(self, state: State, proposals: list[Proposal], width: int) -> list[Proposal]:
        """The top proposals, one per GPU: each measured against the current best with its band fixed by
        `ask` before its measurement started; the loop asks again after each outcome and uses a measurement
        only when the agent asks for that very candidate against that best with that null."""
        return proposals[:width]

    def tell(self, trial: Trial) -> None:
        self.told.append(trial)

    def worth(self, proposal: Proposal, t_keep: float) -> bool:
        if proposal.promising(t_keep):
            return True
        return self.policy.plateau_chance and proposal.chance(t_keep) >= PLATEAU_CHANCE

    def remaining(self, state: State) -> list[tuple[str, str]]:
        return [(p.move.name, f"predicted {p.point():.3f} (band {p.predicted[0]:.3f}-{p.predicted[1]:.3f}) < t_keep "
                 f"{state.t_keep:.4f}" + (f", a {p.chance(state.t_keep):.0%} chance to reach it"
                                          if self.policy.plateau_chance else "") + "; " + p.rationale)
                for p in self.ranked(state) if not self.worth(p, state.t_keep)]


def _before_this_best(state: State) -> State:
    """The state as it stood before anything was measured against the current best: the priors of
    `_shared` (the look-back of `earlier` would otherwise count a same-best margin twice)."""
    best = state.best.key()
    if all(t.base_key != best for t in state.trials):
        return state
    return state.model_copy(update={"trials": tuple(t for t in state.trials if t.base_key != best)})


def _keeps(state: State) -> list[dict[str, tuple]]:
    """What each keep of this run changed: knob -> (the value it replaced, the value it put), read from the kept
    candidates and the kernels they were measured against (the seed or an earlier keep)."""
    known = {t.move.knobs.key(): t.move.knobs for t in state.trials}
    if state.seed is not None:
        known[state.seed.key()] = state.seed
    return [{x: (replaced, put) for x, (put, replaced) in t.move.knobs.diff(known[t.base_key]).items()}
            for t in state.trials if t.outcome == "KEPT" and t.base_key in known]


def _undoes(cand: Knobs, best: Knobs, keeps: list[dict[str, tuple]]) -> bool:
    """`cand` puts back, on every knob it changes from `best`, the value one keep replaced (Policy.keeps_stand)."""
    moved = cand.diff(best)  # knob -> (candidate's value, best's value)
    return bool(moved) and any(all(x in keep and keep[x] == (c, b) for x, (c, b) in moved.items()) for keep in keeps)


def _apply_all(base: Knobs, levers: list[Lever]) -> Knobs | None:
    sets: dict = {}
    for lv in levers:
        for k, v in lv.sets.items():
            if k in sets and sets[k] != v:
                return None  # two levers disagree on a knob: not one move
            sets[k] = v
    try:
        return base.replace(**sets)
    except KnobError:
        return None


def _changed(old: dict, now: dict) -> bool:
    from ..shelf import TRIGGERS

    return any(old.get(k) is not None and now.get(k) is not None and old[k] != now[k] for k in TRIGGERS)
