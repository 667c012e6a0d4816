"""The search loop: seed -> A/A null -> [ask the strategy -> predict -> measure -> keep or shelve]
until the budget or the plateau -> re-anchor against the seed and the comparator.

I/O lives in the rooms: the bench (experiments, profiler) measures, the store remembers; this file
only decides, and reports progress through `say(event)` (agent.events). One experiment is written
by agent.trial, the nulls by agent.nulls, the re-anchors and the comparator by agent.anchors.
"""

from __future__ import annotations

import time
from pathlib import Path

from experiments.outcome import Outcome
from experiments.problem import Shape
from kernel_src.knobs import Knobs, source_hash
from store import queries as q

from . import events as ev
from . import health
from . import levers as catalog
from . import strategies
from .anchors import calibration_of, ceiling_of, final, reanchor_best
from .events import Say, quiet
from .figures import build_ahead, with_figures
from .nulls import first_null, gate_for, measure_null, settle_banded
from .reanchor import link_noise
from .shelf import conditions, due_for_rescreen
from .state import ASK, ASK_ALL, Progress, Run, SearchError, SearchOptions, renoise_due
from .strategies.base import Proposal, State, Trial
from .summary import run_summary, stop_text
from .trial import TrialRecord, close_trial, diagnose_profile, evaluate_ahead, outcome_event, run_trial, seed_step


def run_search(bench, db, *, shape: Shape, seed: Knobs, artifacts: Path, options: SearchOptions = SearchOptions(),
               command: str = "", say: Say = quiet, bench_settings: dict | None = None, one_problem: bool = True) -> int:
    """A new run; `bench_settings` (time per measurement, L2, profiling) are kept with the options so
    `run --resume` rebuilds the same bench. `one_problem` False: the database may hold runs at other
    problems (a `tune` campaign, agent.campaign), never another GPU's."""
    # the settings the decisions depend on go through the bench, so a replay runs the recorded ones
    o = SearchOptions(**{**options.model_dump(), **bench.setup(options.model_dump(mode="json"))})
    if o.budget <= 0:
        raise SearchError("--budget must be at least 1 experiment")
    if o.strategy not in strategies.NAMES:
        raise SearchError(f"unknown strategy '{o.strategy}'; known: {', '.join(strategies.NAMES)}")
    for name in o.exclude:
        catalog.get(name)  # an unknown lever name is refused before anything runs
    strategy = strategies.make(o.strategy, o.rng_seed, agent_version=o.agent_version, tpe_draw=o.tpe_draw)  # a missing optional dependency fails here
    dev = bench.device()
    q.check_same_setup(db, dev.name, shape.key(), one_problem=one_problem)
    run_id = q.create_run(
        db, gpu_name=dev.name, arch=dev.arch, sm_count=dev.sm_count, problem_key=shape.key(),
        problem=shape.model_dump(), toolchain={"driver": dev.driver, "torch": dev.torch, "cuda": dev.torch_cuda},
        seed_knobs=seed.model_dump(mode="json"), budget=o.budget, command=command, strategy=o.strategy,
        source_hash=source_hash(), nvcc=_nvcc(),
        options={"search": o.model_dump(mode="json"), "bench": bench_settings or {}})
    say(ev.RunStarted(run_id=run_id, device=dev, shape=shape, strategy=o.strategy))
    return guarded(Run(bench=bench, db=db, run_id=run_id, dev=dev, shape=shape, seed=seed,
                       artifacts=Path(artifacts) / f"run-{run_id}", o=o, strategy=strategy, say=say))


def guarded(run: Run, progress: Progress | None = None) -> int:
    """The search with its ends recorded: a Ctrl-C or an error closes the experiment in flight as
    INTERRUPTED (uncounted) and leaves the run resumable (`run --resume`). `progress`: where an
    interrupted run stood (agent.resume); None: a new run."""
    db, run_id = run.db, run.run_id
    try:
        if progress is None:
            cal = calibration_of(run.bench, db, run.dev, run.shape, run.o.use_calibration)
            if cal:
                q.update_run(db, run_id, calibration_id=cal["id"], t_noise=cal["t_noise"], t_keep=cal["t_keep"],
                             aa_margins=cal["aa_margins"])
            progress = Progress(cal=cal)
        run.ceiling = ceiling_of(progress.cal, run.shape.dtype)
        status, reason = _search(run, progress)
    except KeyboardInterrupt:
        q.interrupt_run(db, run_id, "the user pressed Ctrl-C")
        raise
    except health.EnvironmentBroken as e:  # the streak is uncounted already: resumable once the machine is fixed
        q.interrupt_run(db, run_id, e.reason)
        raise
    except Exception as e:
        q.interrupt_run(db, run_id, f"{type(e).__name__}: {e}"[:500], status="error")
        raise
    q.update_run(db, run_id, status=status, stop_reason=reason, finished_at=q.now())
    sm = run_summary(db, run_id)
    if sm.get("time"):  # a replay's child processes took the recorded seconds, its wall time is its own
        from .bench import Replay
        sm["time"]["replayed"] = isinstance(run.bench, Replay)
    run.say(ev.Done(run_id=run_id, status=status, reason=reason, summary=sm))
    return run_id


def _nvcc() -> str | None:
    try:
        from experiments.build import nvcc_version

        return nvcc_version()
    except Exception:  # noqa: BLE001 - a replay on a machine without nvcc
        return None


def _search(run: Run, p: Progress) -> tuple[str, str]:
    _start(run, p)
    reason, state = _steps(run, p)
    _discard_ahead(run, None)  # what was measured ahead and never asked for
    o = run.o
    if reason != "budget" and not o.screen:
        left = run.strategy.remaining(state)
        if left:
            run.say(ev.Remaining(items=left))
    missing = []
    if not o.screen:  # (a resumed run may have recorded some of these before it stopped)
        missing = final(run, p, owed={"final_reanchor", "comparator"} - p.final_done)
    elif o.screen_comparator:  # the screened kernel itself against SDPA flash: the table's anchor
        missing = final(run, p, owed={"comparator"} - p.final_done)
    return reason, "; ".join([stop_text(reason, p.done, o.plateau, o.budget, run.strategy.strict_plateau), *missing])


def _start(run: Run, p: Progress) -> None:
    """The seed checked and its null set, or an interrupted run's own (with what its last keep still owed)."""
    if p.seeded:
        run.say(ev.Phase(text=f"resuming run {run.run_id} after experiment {p.done}"))
    else:
        p.attrs, p.diag = seed_step(run)
        p.seeded, p.best = True, run.seed
        p.conds = conditions(p.attrs, p.diag.label if p.diag else None).model_dump()
    # the levers this run may use, through the bench so a replay searches the catalog it recorded
    run.levers = tuple(lv for lv in (catalog.get(n) for n in run.bench.levers([lv.name for lv in catalog.CATALOG]))
                       if lv.name not in run.o.exclude)
    if not p.noises:
        build_ahead(run, _state(run, p, {}), p.best)  # the first step's candidates compile while the null is measured
        first_null(run, p)
    if p.owed:  # what the last keep had not done when the run stopped
        _after_keep(run, p, p.last_paired, owed=p.owed)


def _steps(run: Run, p: Progress) -> tuple[str, State | None]:
    """Experiments until the budget, the plateau or nothing left; the reason, and the last state asked."""
    o, strategy, state, prefetched = run.o, run.strategy, None, None
    while p.done < o.budget:
        evidence = _evidence(run, p)
        state = _state(run, p, evidence)
        if strategy.reads_figures:  # every candidate built in one ninja call, and read before anything is timed
            t0 = time.perf_counter()
            state = with_figures(run, state, p.figures)
            run.figures_s = time.perf_counter() - t0  # the wait for builds, kept with the experiment it preceded
        elif prefetched != p.best:
            run.bench.prefetch([m.knobs for m in strategy.moves(state)])
            prefetched = p.best
        if o.screen and o.screen_singles_first:
            proposals = singles_first(strategy.ask(state, ASK_ALL))[:ASK]
        else:
            proposals = strategy.ask(state, ASK)
        if not o.screen and p.since_keep >= o.plateau and (
                strategy.strict_plateau or not any(strategy.worth(x, p.noise.t_keep) for x in proposals)):
            return "plateau", state
        if not proposals:
            return "exhausted", state
        fan = run.bench.fan_out()
        if fan is not None:
            # several GPUs: what the strategy lets them measure at once against the current best (a
            # screen's measurements are independent against its fixed seed and null: all of them); the
            # loop still takes one experiment at a time in its own order, so a measurement is used only
            # when that very candidate is asked for against that best with that null, and the decisions
            # are a one-GPU run's. What is never asked for is dropped (_discard_ahead).
            ahead = (proposals[:o.budget - p.done] if o.screen else
                     strategy.measure_ahead(state, proposals, min(len(fan.workers), o.budget - p.done)))
            evaluate_ahead(fan, ahead, p.best, run.gate(p.noise), run.o.agent_version)
        _experiment(run, p, state, proposals, evidence)
    return "budget", state


def _state(run: Run, p: Progress, evidence: dict) -> State:
    return State(best=p.best, seed=run.seed, diagnosis=p.diag, trials=tuple(p.trials),
                 shelf=tuple(q.shelf(run.db, run.run_id, status="shelved")), conditions=p.conds,
                 t_noise=p.noise.t_noise if p.noises else 0.0, t_keep=p.noise.t_keep if p.noises else 1.0,
                 budget_left=run.o.budget - p.done, causal=run.shape.causal, head_dim=run.shape.D,
                 seqlen=run.shape.N, dtype=run.shape.dtype, levers=run.levers,
                 evidence=evidence, limits=run.dev.limits)


def _evidence(run: Run, p: Progress) -> dict:
    """Margins measured against the current best in earlier runs of this database; a strategy that
    reads the compiler's figures takes only those measured from the same source and toolchain."""
    o = run.o
    if not o.evidence or o.screen:
        return {}
    if run.strategy.reads_figures:
        return q.lever_evidence(run.db, p.best.key(), run.run_id, source_hash=source_hash(), nvcc=_nvcc(),
                                problem_key=run.shape.key())
    return q.lever_evidence(run.db, p.best.key(), run.run_id, problem_key=run.shape.key())


def _experiment(run: Run, p: Progress, state: State, proposals: list[Proposal], evidence: dict) -> None:
    """The strategy's first proposal measured through the keep gate, recorded, and told."""
    prop, best, figures = proposals[0], p.best, p.figures
    run.say(ev.Ranked(proposals=proposals[:4], t_keep=p.noise.t_keep))
    p.done += 1
    entry = next((r for r in state.shelf if r["lever"] == prop.move.name), None) if prop.move.kind == "rescreen" else None
    fig = figures.get(prop.move.knobs.key())
    static = ({"candidate": fig.model_dump() if fig else None,
               "best": figures[best.key()].model_dump() if figures.get(best.key()) else None}
              if run.strategy.reads_figures else None)
    build_ahead(run, state, prop.move.knobs, proposals)
    gate, banded = gate_for(run, p, prop)  # the band's while the best's own null is owed (agent.nulls)
    t = run_trial(run.bench, run.db, run.run_id, p.done, run.o.budget, prop, best, gate, run.say,
                  prior=evidence.get(prop.move.name), static=static, version=run.o.agent_version)
    if banded:
        t = settle_banded(run, p, t, best)
    if run.figures_s is not None:
        t.extra.append({"kind": "timing", "ok": True, "value": run.figures_s, "payload": {"figures_s": run.figures_s}})
        run.figures_s = None
    pr = t.paired
    p.trials.append(Trial(move=prop.move, base_key=best.key(), outcome=t.outcome.value, margin=pr and pr["margin"],
                          tflops=pr and pr["tflops_cand"], static=fig))
    run.strategy.tell(p.trials[-1])
    broken = health.after_failure(run, p, t)  # a streak of failures: the candidates', or the machine's?
    if run.o.screen:  # the seed stays the base: a KEPT here only says the lever would be kept
        close_trial(run.db, t)
        run.say(outcome_event(p.done, prop.move.name, t))
    elif t.outcome is Outcome.KEPT:
        _keep(run, p, prop, t, entry)
    else:
        # a sampled configuration is no lever to re-screen: only moves of levers go to the shelf
        close_trial(run.db, t, shelf_conditions=p.conds if prop.move.levers else None, rescreen_of=entry and entry["id"])
        p.since_keep += 1
        run.say(outcome_event(p.done, prop.move.name, t))
    if broken is not None:
        health.stop(run, p, broken, t)


def _keep(run: Run, p: Progress, prop: Proposal, t: TrialRecord, entry: dict | None) -> None:
    """A keep: the candidate becomes the best, profiled and diagnosed; the shelf it re-opens, the null
    and the re-anchor it may call for."""
    _discard_ahead(run, t.cand)
    attrs = t.ev.attributes or run.bench.attributes(t.cand)
    spent: list[float] = []
    diag, drow, why = diagnose_profile(run.bench, t.cand, run.dev.arch, run.artifacts, f"exp{t.exp_id}",
                                       run.o.agent_version, spent)
    t.extra.append({"kind": "timing", "ok": True, "value": spent[0], "payload": {"profile_s": spent[0]}})
    close_trial(run.db, t, diagnosis=drow, rescreen_of=entry and entry["id"])
    p.best, p.diag, p.since_keep = t.cand, diag, 0
    conds = conditions(attrs, diag.label if diag else None)
    due = due_for_rescreen(q.shelf(run.db, run.run_id, status="shelved"), conds)
    p.conds = conds.model_dump()
    pr = t.paired
    run.say(ev.Kept(seq=p.done, lever=prop.move.name, margin=pr["margin"], tflops=pr["tflops_cand"], diagnosis=diag,
                    why=why, rescreens=[r["lever"] for r in due] if run.strategy.rescreens_shelf else []))
    p.links.append(pr["margin"])
    p.link_noise.append(link_noise(p.noise.t_noise, pr["margin"], (getattr(t.ev, "confirm", None) or {}).get("margin")))
    _after_keep(run, p, pr)


def _after_keep(run: Run, p: Progress, pr: dict, owed=("renoise", "reanchor")) -> None:
    o, noise = run.o, p.noise
    # the null belongs to the kernel being compared: re-measured once the time per call has moved (lazily:
    # owed until a decision needs it, _needs_null; a cluster's evaluations ahead are judged by the null in force)
    if "renoise" in owed and renoise_due(o, noise, pr):
        if o.lazy_null and not o.screen and run.bench.fan_out() is None:
            p.null_owed = True
        else:
            measure_null(run, p, p.best, f"time per call moved {noise.ms:.3f} -> {pr['ms_cand']:.3f} ms since the last null")
    if "reanchor" in owed and o.reanchor_every and len(p.links) % o.reanchor_every == 0:
        reanchor_best(run, p)


def singles_first(proposals: list[Proposal]) -> list[Proposal]:
    """A screen's order: every single lever before any compound move, each group in the strategy's
    own rank (a stable sort). A lever that cannot apply alone (its precondition is another lever's)
    is screened through its compound, after the singles; sampled configurations keep their place."""
    return sorted(proposals, key=lambda p: len(p.move.levers) > 1)


def _discard_ahead(run: Run, best: Knobs | None) -> None:
    """After a keep, the evaluations a cluster bench started ahead against the old best were measured
    against a superseded best: one GPU would never have measured them. They are dropped unasked (no
    experiment, no budget), and counted in the run's options["speculation"] (run_summary). With best
    None (the search is over) every evaluation still ahead goes: the agent's proposals it never asked
    for again."""
    fan = run.bench.fan_out()
    got = fan.discard_ahead(best) if fan is not None else None
    if not got or not got["discarded"]:
        return
    opts = q.get_run(run.db, run.run_id).get("options") or {}
    sp = opts.get("speculation") or {}
    q.update_run(run.db, run.run_id,
                 options={**opts, "speculation": {k: sp.get(k, 0) + got[k] for k in ("discarded", "measured")}})
    if best is None:
        run.say(ev.Phase(text=f"{got['discarded']} evaluation(s) started ahead and never asked for discarded "
                              f"({got['measured']} of them taken by a worker)"))
    else:
        run.say(ev.Phase(text=f"{got['discarded']} evaluation(s) started ahead against the superseded best discarded "
                              f"({got['measured']} of them taken by a worker); the next draws are measured against "
                              "the new best"))
