"""`run --resume`: continue an interrupted run from its last finished experiment.

Everything the loop decides from lives in the database: the run's options, problem, seed and nulls
(runs), each finished experiment's move, base, outcome, margin and compiler figures, each keep's
diagnosis and attributes (experiments, measurements, diagnoses) and the shelf. `restore` reads them
back into the loop's own variables (agent.state.Progress) and the loop goes on as if it had never
stopped; the experiment that was in flight is not counted (store.queries.interrupt_run) and is run
again under its number.

The strategy's own state is re-derived by replaying it over the finished trials, not re-seeded:
random search and TPE are asked again at each finished experiment's state and told its result, so
their RNG (and TPE's model) stand exactly where the uninterrupted run's stood, and the next draw is
the one it would have made. A re-seed by the seq would give a valid run but not the same one.
Each replayed draw is checked against the recorded one; a mismatch (another Optuna, say) refuses
the resume rather than continue a different search under the same run. The agent decides from the
state alone (its `tell` only keeps a list), so it is told the trials and asked nothing."""
from __future__ import annotations

from pathlib import Path

from experiments.problem import Shape
from kernel_src.knobs import Knobs
from profiler.diagnosis import Diagnosis
from profiler.static import StaticFigures
from store import queries as q

from . import levers as catalog
from . import strategies
from .events import RunStarted, Say, quiet
from .loop import guarded
from .reanchor import link_noise
from .replay.settings import LATER_SETTINGS
from .shelf import conditions
from .state import Noise, Progress, Run, SearchError, SearchOptions, renoise_due
from .strategies.base import Move, State, Trial

RESUMABLE = ("interrupted", "error")


def pick(db, run_id: int | None) -> dict:
    """The run to resume: the one named, else the latest interrupted one."""
    if run_id is None:
        found = [r for r in q.runs(db) if r["status"] == "interrupted"]
        if not found:
            raise SearchError("there is no interrupted run in this database to resume")
        return found[-1]
    run = q.get_run(db, run_id)
    if run["status"] not in RESUMABLE:
        raise SearchError(f"run {run_id} is {run['status']}, not interrupted: there is nothing to resume")
    if not run.get("options"):
        raise SearchError(f"run {run_id} was recorded before runs kept their options (m005); it cannot be resumed")
    return run


def _payload(full: dict, kind: str) -> dict | None:
    m = next((m for m in full["measurements"] if m["kind"] == kind), None)
    return m["payload"] if m else None


def restore(db, run: dict, o: SearchOptions, strategy, bench, in_use, limits) -> Progress:
    """Where the run stood after its last finished experiment (see the module's docstring)."""
    rid, seed, shape = run["id"], Knobs.parse(run["seed_knobs"]), Shape(**run["problem"])
    cal = q.get_calibration(db, run["calibration_id"]) if run.get("calibration_id") else None
    rows = q.history(db, rid)
    seed_row = next((r for r in rows if r["kind"] == "seed"), None)
    if seed_row is None:
        return Progress(cal=cal)  # stopped before the seed was checked: everything is still to do
    full = q.experiment(db, seed_row["id"])
    attrs = (_payload(full, "build") or {}).get("attributes")
    diag = Diagnosis(**full["diagnosis"]["metrics"]) if full["diagnosis"] else None
    noises = [Noise(**n) for n in run.get("noise") or []]
    aa_rows = sum(r["kind"] == "aa_null" for r in rows)
    first_aa = aa_rows - (len(noises) - 1)  # 1: the first null was measured in the run; 0: it was the calibration's
    if noises and first_aa not in (0, 1):
        raise SearchError(f"run {rid}'s list of A/A nulls ({len(noises)}) does not match its {aa_rows} aa_null rows; "
                          "it cannot be resumed")
    best, best_attrs = seed, attrs
    p = Progress(cal=cal, seeded=True, attrs=attrs, diag=diag, noises=noises, best=seed)
    if not noises:
        p.conds = conditions(attrs, diag.label if diag else None).model_dump()
        return p
    replays = strategy.draws
    aa_seen, tail_from, last = 0, seed_row["id"], None
    for r in rows:
        if r["kind"] == "aa_null":
            aa_seen += 1
            continue
        if r["seq"] is None or r["outcome"] is None:
            continue  # seed, re-anchors, comparators, what was in flight
        noise = noises[max(0, aa_seen - first_aa)]  # the null in force when it was judged
        base = Knobs.parse(r["base_knobs"])
        move = Move(levers=tuple(r["move"] or ([r["lever"]] if r["kind"] != "sample" else [])),
                    knobs=Knobs.parse(r["knobs"]) if r["knobs"] else base, kind=r["kind"])
        fig = (r.get("static") or {}).get("candidate")
        t = Trial(move=move, base_key=r["base_key"], outcome=r["outcome"], margin=r["margin"], tflops=r["tflops_cand"],
                  static=StaticFigures(**fig) if fig else None)
        if fig:
            p.figures[move.knobs.key()] = t.static
        if (r.get("static") or {}).get("best"):
            p.figures.setdefault(r["base_key"], StaticFigures(**r["static"]["best"]))
        if replays:
            state = State(best=base, seed=seed, trials=tuple(p.trials), t_noise=noise.t_noise, t_keep=noise.t_keep,
                          budget_left=o.budget - r["seq"] + 1, causal=shape.causal, head_dim=shape.D,
                          seqlen=shape.N, dtype=shape.dtype, levers=in_use,
                          limits=limits)
            asked = strategy.ask(state, 8)
            if not asked or asked[0].move.knobs.key() != r["knob_key"]:
                raise SearchError(f"run {rid} cannot be resumed: replayed, the {strategy.name} strategy does not draw "
                                  f"experiment {r['seq']} again ({asked[0].move.knobs.label() if asked else 'nothing'} "
                                  f"instead of {move.knobs.label()}); its RNG does not reproduce here")
        p.trials.append(t)
        strategy.tell(t)
        p.done, tail_from, last = r["seq"], r["id"], r
        if o.screen:
            continue
        if r["outcome"] == "KEPT":
            full = q.experiment(db, r["id"])
            if any(m["kind"] == "owed_null" for m in full["measurements"]):
                # judged under the null measured while it ran (lazy_null): the next one in the list
                noise = noises[max(0, aa_seen + 1 - first_aa)]
            best = Knobs.parse(r["knobs"])
            diag = Diagnosis(**full["diagnosis"]["metrics"]) if full["diagnosis"] else None
            best_attrs = (_payload(full, "build") or {}).get("attributes") or bench.attributes(best)
            p.since_keep = 0
            p.links.append(r["margin"])
            rep = next((m["value"] for m in full["measurements"] if m["kind"] == "replicate"), None)
            p.link_noise.append(link_noise(noise.t_noise, r["margin"], rep))
            p.last_paired = _payload(full, "paired")
        else:
            p.since_keep += 1
    p.best, p.diag = best, diag
    p.conds = conditions(best_attrs, diag.label if diag else None).model_dump()
    _owed(p, [r for r in rows if r["id"] > tail_from], last, o)
    return p


def _owed(p: Progress, tail: list[dict], last: dict | None, o: SearchOptions) -> None:
    """From what came after the last finished experiment (`tail`): the steps of its keep still owed, and
    the closing steps already recorded."""
    periodic = False
    if o.lazy_null and not o.screen and p.links:
        # the null owed since a keep moved the time per call, wherever the run stopped after it (the last null
        # in the list is the last one measured; measured since that keep, it is that kernel's own)
        p.null_owed = renoise_due(o, p.noise, p.last_paired or {})
    if last is not None and last["outcome"] == "KEPT" and not o.screen:
        periodic = bool(o.reanchor_every and len(p.links) % o.reanchor_every == 0)
        if (not o.lazy_null and not any(r["kind"] == "aa_null" for r in tail)
                and renoise_due(o, p.noise, p.last_paired or {})):
            p.owed.add("renoise")
        if periodic and not any(r["kind"] == "reanchor" for r in tail):
            p.owed.add("reanchor")
    if sum(r["kind"] == "reanchor" for r in tail) > (1 if periodic else 0):
        p.final_done.add("final_reanchor")
    # each closing pair on its own: a run stopped between flash and cuDNN owes cuDNN only
    p.final_done |= {r["lever"] for r in tail if r["kind"] == "comparator"}


def resume_search(bench, db, run_id: int | None = None, *, artifacts: Path, say: Say = quiet) -> int:
    """Continue an interrupted run (default: the latest) with its own options on `bench`; returns its id."""
    run = pick(db, run_id)
    rid = run["id"]
    # a setting the run's options lack is one it ran without (what a replay of it answers with)
    o = SearchOptions(**{**LATER_SETTINGS, **run["options"]["search"]})
    strategy = strategies.make(o.strategy, o.rng_seed, agent_version=o.agent_version, tpe_draw=o.tpe_draw)  # the agent it ran with
    if not strategy.resumable:
        raise SearchError(f"the {o.strategy} strategy is kept to replay recorded runs; its runs cannot be resumed")
    dev = bench.device()
    if dev.name != run["gpu_name"]:
        raise SearchError(f"run {rid} was measured on {run['gpu_name']}; resume it on that GPU, not {dev.name}")
    in_use = tuple(lv for lv in catalog.CATALOG if lv.name not in o.exclude)
    progress = restore(db, run, o, strategy, bench, in_use, dev.limits)  # refuses before the run is touched
    q.claim_run(db, rid, after_seq=progress.done)
    say(RunStarted(run_id=rid, device=dev, shape=Shape(**run["problem"]), strategy=o.strategy))
    return guarded(Run(bench=bench, db=db, run_id=rid, dev=dev, shape=Shape(**run["problem"]),
                       seed=Knobs.parse(run["seed_knobs"]), artifacts=Path(artifacts) / f"run-{rid}", o=o,
                       strategy=strategy, say=say), progress)

