"""The search loop: seed -> A/A null -> [rescreen | propose -> predict -> measure -> keep or
shelve] until the budget or the plateau -> re-anchor against the seed and the comparator.

I/O lives in the rooms: the bench (experiments, profiler) measures, the store remembers; this
file only decides, and reports progress through `say(event, **data)`.
"""

from __future__ import annotations

import json
import statistics
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from experiments.outcome import Outcome
from experiments.problem import Shape, c1_shapes
from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs, source_hash
from profiler.diagnosis import Diagnosis, diagnose, metrics_from_row
from profiler.ncu import parse_raw_csv
from store import queries as q

from . import events as ev
from . import levers as catalog
from . import strategies
from .replay.ladder import PLATEAU
from .replay.settings import LATER_SETTINGS
from .events import Say, quiet
from .policy import CURRENT, policy
from .reanchor import reanchor
from .shelf import Conditions, conditions, due_for_rescreen
from .strategies.base import Move, Proposal, State, Trial
from .trial import close_trial, evaluate_ahead, outcome_event, run_trial

REANCHOR_EVERY = 3  # keeps between re-anchors (the seed's RA1 came after three)



class SearchOptions(BaseModel):
    """How a search spends its budget (the CLI's `run` options)."""

    budget: int = 20
    aa_repeats: int = 5
    plateau: int = PLATEAU
    exclude: tuple[str, ...] = ()
    use_calibration: bool = True
    reanchor_every: int = REANCHOR_EVERY
    # screen: every applicable lever once against the seed, which never moves (the seed's v7 "knob
    # screen"): a table of each lever's paired margin against its off setting, no keeps, no plateau
    screen: bool = False
    # evidence: margins already measured against the current kernel in earlier runs of this
    # database (a screen, an earlier search) rank the levers and become their predicted bands
    evidence: bool = True
    strategy: str = "agent"  # agent.strategies.NAMES
    rng_seed: int = 0  # random and TPE draws
    # the A/A null belongs to the kernel being compared: re-measured on the best when its time per
    # call has moved by more than this factor since the kernel the current null was measured on
    renoise_factor: float = 2.0
    renoise: bool = True
    # the agent's policy (agent.policy.POLICIES): a replay or a resume runs the one it recorded
    agent_version: int = CURRENT.version
    # a screen ends with its fixed kernel paired against SDPA flash, so its margin table has an
    # absolute anchor (screens recorded before this setting had none)
    screen_comparator: bool = True
    # a screen measures every single lever that applies to the seed (in the strategy's rank among
    # singles) before any compound move; screens recorded before this setting took the strategy's
    # rank as it came, compounds among the singles (issue 13: 29 of 30 were compounds on the H200)
    screen_singles_first: bool = True


# how many proposals the loop takes from a strategy's rank at each step (a screen's fan-out window)
ASK = 8
# a screen that orders singles first reads the strategy's whole rank: its singles may all rank
# below eight compounds
ASK_ALL = 10_000


class SearchError(RuntimeError):
    pass


def _diagnose(bench, knobs: Knobs, arch: str, artifacts: Path, tag: str,
              agent_version: int | None = None) -> tuple[Diagnosis | None, dict | None, str]:
    """Profile with ncu and diagnose with the rules of `agent_version` (None: the current ones), so a
    replay labels each profile as its recorded run did; (None, None, why) when there is no profile."""
    rec = bench.profile(knobs)
    if rec.csv is None:
        return None, None, rec.error or "no profile"
    rows = parse_raw_csv(rec.csv)
    if not rows:
        return None, None, "ncu printed no kernel row"
    artifacts.mkdir(parents=True, exist_ok=True)
    path = artifacts / f"ncu_{tag}_{knobs.key()}.csv"
    path.write_text(rec.csv)
    d = diagnose(metrics_from_row(rows[0], arch), tiles_per_warp=max(1, knobs.br // (16 * knobs.warps)),
                 issue_bound=policy(agent_version).diagnose_issue_bound)
    row = {"label": d.label, "summary": d.summary, "metrics": d.model_dump(mode="json"), "knob_key": knobs.key(),
           # integer columns; the unrounded achieved values stay in `metrics`
           "registers": _int(d.registers), "smem_per_cta": _int(d.smem_per_cta), "ctas_per_sm": _int(d.ctas_per_sm),
           "warps_per_sm": _int(d.warps_per_sm), "limiter": d.occupancy_limiter,
           "ncu_csv": str(path.relative_to(artifacts.parent))}  # relative to <db>_artifacts/
    return d, row, ""


def _int(x: float | None) -> int | None:
    return None if x is None else round(x)


def _paired_measure(job, kind: str) -> tuple[dict | None, list[dict]]:
    p = job.value("paired")
    return p, [{"kind": kind, "ok": job.status == "ok", "value": p["margin"] if p else None,
                "payload": p or {"status": job.status, "stderr": job.stderr}}]


def run_search(bench, db, *, shape: Shape, seed: Knobs, artifacts: Path, options: SearchOptions = SearchOptions(),
               command: str = "", say: Say = quiet, bench_settings: dict | None = None) -> int:
    """A new run; `bench_settings` (time per measurement, L2, profiling) are kept with the options so
    `run --resume` rebuilds the same bench."""
    # the settings the decisions depend on go through the bench, so a replay runs the recorded ones
    o = SearchOptions(**{**options.model_dump(), **bench.setup(options.model_dump(mode="json"))})
    if o.budget <= 0:
        raise SearchError("--budget must be at least 1 experiment")
    if o.strategy not in strategies.NAMES:
        raise SearchError(f"unknown strategy '{o.strategy}'; known: {', '.join(strategies.NAMES)}")
    for name in o.exclude:
        catalog.get(name)  # an unknown lever name is refused before anything runs
    strategy = strategies.make(o.strategy, o.rng_seed, agent_version=o.agent_version)  # a missing optional dependency fails here
    dev = bench.device()
    q.check_same_setup(db, dev.name, shape.key())
    run_id = q.create_run(
        db, gpu_name=dev.name, arch=dev.arch, sm_count=dev.sm_count, problem_key=shape.key(),
        problem=shape.model_dump(), toolchain={"driver": dev.driver, "torch": dev.torch, "cuda": dev.torch_cuda},
        seed_knobs=seed.model_dump(mode="json"), budget=o.budget, command=command, strategy=o.strategy,
        source_hash=source_hash(), nvcc=_nvcc(),
        options={"search": o.model_dump(mode="json"), "bench": bench_settings or {}})
    say(ev.RunStarted(run_id=run_id, device=dev, shape=shape, strategy=o.strategy))
    return guarded(bench, db, run_id, dev, shape, seed, Path(artifacts) / f"run-{run_id}", o, strategy, say)


def guarded(bench, db, run_id, dev, shape, seed, artifacts, o: SearchOptions, strategy, say, progress=None) -> int:
    """The search with its ends recorded: a Ctrl-C or an error closes the experiment in flight as
    INTERRUPTED (uncounted) and leaves the run resumable (`run --resume`)."""
    try:
        if progress is None:
            cal = _calibration(bench, db, dev, shape, o.use_calibration)
            if cal:
                q.update_run(db, run_id, calibration_id=cal["id"], t_noise=cal["t_noise"], t_keep=cal["t_keep"],
                             aa_margins=cal["aa_margins"])
        else:
            cal = progress.cal
        status, reason = _search(bench, db, run_id, dev, shape, seed, artifacts, o, cal, strategy, say, progress)
    except KeyboardInterrupt:
        q.interrupt_run(db, run_id, "the user pressed Ctrl-C")
        raise
    except Exception as e:
        q.interrupt_run(db, run_id, f"{type(e).__name__}: {e}"[:500], status="error")
        raise
    q.update_run(db, run_id, status=status, stop_reason=reason, finished_at=q.now())
    say(ev.Done(run_id=run_id, status=status, reason=reason, summary=run_summary(db, run_id)))
    return run_id


def _nvcc() -> str | None:
    try:
        from experiments.build import nvcc_version

        return nvcc_version()
    except Exception:  # noqa: BLE001 - a replay on a machine without nvcc
        return None


def _calibration(bench, db, dev, shape, use: bool) -> dict | None:
    """The newest calibration of this GPU and problem (`fa5090-search calibrate`), through the
    bench so a replay answers with the one the recorded run used."""
    found = q.latest_calibration(db, dev.name, shape.key()) if use else None
    cal = bench.calibration(found)
    if cal and not db["calibrations"].count_where("id = ?", [cal["id"]]):  # replayed into a fresh database
        fields = {k: v for k, v in cal.items() if k not in ("id", "created_at")}
        cal = {**cal, "id": q.record_calibration(db, **fields)}
    return cal


def ceiling_of(cal: dict | None, dtype: str) -> float | None:
    """The highest rate measured on this card for the dtype: above it a result is not physical."""
    c = (cal or {}).get("ceilings") or {}
    vals = [c.get("gemm_tflops"), c.get("mma_sync_tflops")] if c.get("dtype") == dtype else []
    vals = [v for v in vals if v]
    return max(vals) if vals else None


class Noise(BaseModel):
    """The A/A null in force, and the kernel (and its time per call) it was measured on."""

    t_noise: float
    t_keep: float
    margins: list[float]
    knob_key: str | None
    ms: float | None  # that kernel's time per call; None: unknown (then never re-measured)
    source: str


def _aa(bench, db, run_id, knobs: Knobs, repeats: int, why: str, say, noises: list[Noise], ceiling=None) -> Noise:
    """Measure a null and record it: its row and the run's list of nulls in one transaction (a
    resumed run reads which null was in force from that list)."""
    say(ev.Phase(text=f"A/A null: {knobs.label()} against itself, {repeats} fresh processes ({why})"))
    aa = bench.aa_null(knobs, repeats)
    margins = [a["margin"] for a in aa]
    tn = noise_of(margins)
    ms = statistics.median(a["ms_base"] for a in aa) if all("ms_base" in a for a in aa) else None
    noise = Noise(t_noise=tn, t_keep=1.0 + tn, margins=margins, knob_key=knobs.key(), ms=ms,
                  source=f"A/A null of {knobs.label()} ({ms:.3f} ms/call), {len(margins)} fresh processes: {why}"
                  if ms else f"A/A null of {knobs.label()}, {len(margins)} fresh processes: {why}")
    with q.atomic(db):
        q.record_experiment(db, run_id, kind="aa_null", knob_key=knobs.key(), knobs=knobs,
                            margin=max(margins, key=lambda m: abs(m - 1)),
                            detail=f"t_noise {tn:.4%}, t_keep {1 + tn:.5f}; {noise.source}",
                            tflops_base=aa[0]["tflops_base"], tflops_cand=aa[0]["tflops_cand"],
                            measurements=[{"kind": "aa", "ok": True, "value": a["margin"], "payload": a} for a in aa])
        noises.append(noise)
        _record_noise(db, run_id, noises, say, ceiling)
    return noise


def _record_noise(db, run_id, history: list[Noise], say, ceiling=None) -> None:
    n = history[-1]
    q.update_run(db, run_id, t_noise=n.t_noise, t_keep=n.t_keep, aa_margins=n.margins,
                 noise=[h.model_dump() for h in history])
    say(ev.NullMeasured(margins=n.margins, t_noise=n.t_noise, t_keep=n.t_keep, source=n.source, ceiling=ceiling))


class Progress(BaseModel):
    """Where an interrupted run stood after its last finished experiment (agent.resume.restore):
    the loop's own variables, and the steps it still owed after that experiment."""
    model_config = ConfigDict(arbitrary_types_allowed=True)

    cal: dict | None = None
    seeded: bool = False  # the seed's row exists: attrs and diag below are its
    attrs: dict | None = None
    diag: Diagnosis | None = None
    noises: list[Noise] = []  # empty: the first null was never recorded
    best: Knobs | None = None
    conds: dict = {}
    trials: list[Trial] = []
    links: list[float] = []
    link_noise: list[float] = []
    done: int = 0
    since_keep: int = 0
    figures: dict = {}
    owed: set[str] = set()  # what the last keep had not done yet: "renoise", "reanchor"
    last_paired: dict | None = None  # that keep's paired measurement
    final_done: set[str] = set()  # the closing steps already recorded: "final_reanchor", "comparator"


def _renoise_due(o: SearchOptions, noise: Noise, pr: dict) -> bool:
    return bool(o.renoise and noise.ms and pr.get("ms_cand") and
                max(noise.ms / pr["ms_cand"], pr["ms_cand"] / noise.ms) > o.renoise_factor)


def _after_keep(bench, db, run_id, o: SearchOptions, seed, best, pr: dict, noise: Noise, noises: list[Noise], links,
                link_noise, ceiling, say, owed=("renoise", "reanchor")) -> Noise:
    # the null belongs to the kernel being compared: re-measured once the time per call has moved
    if "renoise" in owed and _renoise_due(o, noise, pr):
        noise = _aa(bench, db, run_id, best, o.aa_repeats,
                    f"time per call moved {noise.ms:.3f} -> {pr['ms_cand']:.3f} ms since the last null", say, noises,
                    ceiling)
    if "reanchor" in owed and o.reanchor_every and len(links) % o.reanchor_every == 0:
        _reanchor(bench, db, run_id, seed, best, links, noise.t_noise, say, link_noise)
    return noise


def _search(bench, db, run_id, dev, shape, seed, artifacts, o: SearchOptions, cal, strategy, say,
            progress: Progress | None = None):
    arch, budget, plateau = dev.arch, o.budget, o.plateau
    resumed = progress is not None and progress.seeded
    if resumed:
        attrs, diag = progress.attrs, progress.diag
        say(ev.Phase(text=f"resuming run {run_id} after experiment {progress.done}"))
    else:
        attrs, diag = _seed_step(bench, db, run_id, seed, shape, arch, artifacts, say, o.agent_version)
    ceiling = ceiling_of(cal, shape.dtype)
    if resumed and progress.noises:
        noises = list(progress.noises)
        noise = noises[-1]
    else:
        noises = []
        noise = _first_null(bench, db, run_id, seed, o, cal, noises, ceiling, say)

    # the levers this run may use, through the bench so a replay searches the catalog it recorded
    in_use = tuple(lv for lv in (catalog.get(n) for n in bench.levers([lv.name for lv in catalog.CATALOG]))
                   if lv.name not in o.exclude)
    reads_figures = strategy.reads_figures
    if resumed:
        best, conds, trials = progress.best, Conditions(**progress.conds), list(progress.trials)
        label = diag.label if diag else None
        links, link_noise, figures = list(progress.links), list(progress.link_noise), dict(progress.figures)
        done, since_keep = progress.done, progress.since_keep
        if progress.owed:  # what the last keep had not done when the run stopped
            noise = _after_keep(bench, db, run_id, o, seed, best, progress.last_paired, noise, noises, links,
                                link_noise, ceiling, say, owed=progress.owed)
    else:
        links, link_noise = [], []  # the paired margins of the keeps since the seed, and the t_noise each was judged with
        best, label = seed, (diag.label if diag else None)
        conds = conditions(attrs, label)
        trials, figures = [], {}
        done = since_keep = 0
    prefetched = None
    reason = "budget"
    while True:
        if done >= budget:
            reason = "budget"
            break
        evidence = (q.lever_evidence(db, best.key(), run_id, source_hash=source_hash(), nvcc=_nvcc())
                    if o.evidence and not o.screen and reads_figures else
                    q.lever_evidence(db, best.key(), run_id) if o.evidence and not o.screen else {})
        state = State(best=best, seed=seed, diagnosis=diag, trials=tuple(trials),
                      shelf=tuple(q.shelf(db, run_id, status="shelved")), conditions=conds.model_dump(),
                      t_noise=noise.t_noise, t_keep=noise.t_keep, budget_left=budget - done, causal=shape.causal,
                      head_dim=shape.D, levers=in_use, evidence=evidence, limits=dev.limits)
        if reads_figures:  # every candidate built in one ninja call, and read before anything is timed
            state = _with_figures(bench, state, strategy, figures, say)
        elif prefetched != best:
            bench.prefetch([m.knobs for m in strategy.moves(state)])
            prefetched = best
        if o.screen and o.screen_singles_first:
            proposals = singles_first(strategy.ask(state, ASK_ALL))[:ASK]
        else:
            proposals = strategy.ask(state, ASK)
        if not o.screen and since_keep >= plateau and (
                strategy.strict_plateau or not any(p.promising(noise.t_keep) for p in proposals)):
            reason = "plateau"
            break
        if not proposals:
            reason = "exhausted"
            break
        fan = bench.fan_out()
        if fan is not None:
            # several GPUs: what the strategy lets them measure at once against the current best (a
            # screen's measurements are independent against its fixed seed and null: all of them); the
            # loop still takes one experiment at a time in its own order, so a measurement is used only
            # when that very candidate is asked for against that best with that null, and the decisions
            # are a one-GPU run's. What is never asked for is dropped (_discard_ahead).
            ahead = (proposals[:budget - done] if o.screen else
                     strategy.measure_ahead(state, proposals, min(len(fan.workers), budget - done)))
            evaluate_ahead(fan, ahead, best, {"t_keep": noise.t_keep, "t_noise": noise.t_noise, "ceiling": ceiling})
        p = proposals[0]
        say(ev.Ranked(proposals=proposals[:4], t_keep=noise.t_keep))
        done += 1
        prior = evidence.get(p.move.name)
        entry = next((r for r in state.shelf if r["lever"] == p.move.name), None) if p.move.kind == "rescreen" else None
        fig = figures.get(p.move.knobs.key())
        gate = {"t_keep": noise.t_keep, "t_noise": noise.t_noise, "ceiling": ceiling}
        t = run_trial(bench, db, run_id, done, budget, p, best, gate, say, prior=prior,
                      static={"candidate": fig.model_dump() if fig else None,
                              "best": (figures.get(best.key()).model_dump() if figures.get(best.key()) else None)}
                      if reads_figures else None)
        pr = t.paired
        trials.append(Trial(move=p.move, base_key=best.key(), outcome=t.outcome.value, margin=pr and pr["margin"],
                            tflops=pr and pr["tflops_cand"], static=fig))
        strategy.tell(trials[-1])
        if o.screen:  # the seed stays the base: a KEPT here only says the lever would be kept
            close_trial(db, t)
            say(outcome_event(done, p.move.name, t))
        elif t.outcome is Outcome.KEPT:
            _discard_ahead(bench, db, run_id, t.cand, say)
            new_attrs = t.ev.attributes or bench.attributes(t.cand)
            diag, drow, why = _diagnose(bench, t.cand, arch, artifacts, f"exp{t.exp_id}", o.agent_version)
            close_trial(db, t, diagnosis=drow, rescreen_of=entry and entry["id"])
            best, label, since_keep = t.cand, (diag.label if diag else None), 0
            new_conds = conditions(new_attrs, label)
            due = due_for_rescreen(q.shelf(db, run_id, status="shelved"), new_conds)
            conds = new_conds
            say(ev.Kept(seq=done, lever=p.move.name, margin=pr["margin"], tflops=pr["tflops_cand"], diagnosis=diag,
                        why=why, rescreens=[r["lever"] for r in due] if strategy.rescreens_shelf else []))
            links.append(pr["margin"])
            link_noise.append(noise.t_noise)
            noise = _after_keep(bench, db, run_id, o, seed, best, pr, noise, noises, links, link_noise, ceiling, say)
        else:
            # a sampled configuration is no lever to re-screen: only moves of levers go to the shelf
            close_trial(db, t, shelf_conditions=conds.model_dump() if p.move.levers else None,
                        rescreen_of=entry and entry["id"])
            since_keep += 1
            say(outcome_event(done, p.move.name, t))

    _discard_ahead(bench, db, run_id, None, say)  # what was measured ahead and never asked for
    if reason != "budget" and not o.screen:
        left = strategy.remaining(state)
        if left:
            say(ev.Remaining(items=left))
    if not o.screen:
        _final(bench, db, run_id, seed, best, links, noise.t_noise, say, link_noise,
               owed={"final_reanchor", "comparator"} - (progress.final_done if resumed else set()))
    elif o.screen_comparator:  # the screened kernel itself against SDPA flash: the table's anchor
        _final(bench, db, run_id, seed, best, links, noise.t_noise, say, link_noise,
               owed={"comparator"} - (progress.final_done if resumed else set()))
    return reason, _reason_text(reason, done, plateau, budget, strategy.strict_plateau)


def singles_first(proposals: list[Proposal]) -> list[Proposal]:
    """A screen's order: every single lever before any compound move, each group in the strategy's
    own rank (a stable sort). A lever that cannot apply alone (its precondition is another lever's)
    is screened through its compound, after the singles; sampled configurations keep their place."""
    return sorted(proposals, key=lambda p: len(p.move.levers) > 1)


def _discard_ahead(bench, db, run_id, best: Knobs | None, say) -> None:
    """After a keep, the evaluations a cluster bench started ahead against the old best were measured
    against a superseded best: one GPU would never have measured them. They are dropped unasked (no
    experiment, no budget), and counted in the run's options["speculation"] (run_summary). With best
    None (the search is over) every evaluation still ahead goes: the agent's proposals it never asked
    for again."""
    fan = bench.fan_out()
    got = fan.discard_ahead(best) if fan is not None else None
    if not got or not got["discarded"]:
        return
    opts = q.get_run(db, run_id).get("options") or {}
    sp = opts.get("speculation") or {}
    q.update_run(db, run_id, options={**opts, "speculation": {k: sp.get(k, 0) + got[k] for k in ("discarded", "measured")}})
    if best is None:
        say(ev.Phase(text=f"{got['discarded']} evaluation(s) started ahead and never asked for discarded "
                          f"({got['measured']} of them taken by a worker)"))
    else:
        say(ev.Phase(text=f"{got['discarded']} evaluation(s) started ahead against the superseded best discarded "
                          f"({got['measured']} of them taken by a worker); the next draws are measured against the new best"))


def _seed_step(bench, db, run_id, seed: Knobs, shape: Shape, arch: str, artifacts: Path, say, agent_version: int):
    """The seed must be correct before anything is timed against it; returns its attributes and diagnosis."""
    say(ev.Phase(text=f"building and checking the seed {seed.label()}"))
    built = bench.build([seed])[seed.key()]
    if not built.ok:
        raise SearchError(f"the seed {seed.label()} does not compile:\n{built.log[-1500:]}")
    job = bench.check(seed, c1_shapes(shape, seed) + [shape])
    res = job.value("check")
    if job.status != "ok" or not res or not res["ok"]:
        raise SearchError(f"the seed {seed.label()} fails its correctness tier ({job.status}): "
                          f"{json.dumps(res)[:600] if res else job.stderr[-600:]}")
    attrs = bench.attributes(seed)
    diag, drow, why = _diagnose(bench, seed, arch, artifacts, "seed", agent_version)
    if diag is None:
        say(ev.Warn(text=f"no diagnosis: {why}; levers are ranked by the compiler's figures and predicted gain"))
    q.record_experiment(db, run_id, kind="seed", lever=None, knob_key=seed.key(), knobs=seed, outcome=None,
                        detail="seed built, C1 and C2 passed",
                        measurements=[{"kind": "c2", "ok": True, "payload": res},
                                      {"kind": "build", "ok": True, "payload": {"attributes": attrs, "log": built.log[-4000:]}}],
                        diagnosis=drow)
    say(ev.Diagnosed(knobs=seed, diagnosis=diag, why=why))
    return attrs, diag


def _first_null(bench, db, run_id, seed: Knobs, o: SearchOptions, cal, noises: list[Noise], ceiling, say) -> Noise:
    """The keep threshold is set before any result exists, on the kernel being compared."""
    if cal:
        runs_ = cal.get("aa_runs") or []
        ms = statistics.median(r["ms_base"] for r in runs_) if runs_ and all(r.get("ms_base") for r in runs_) else None
        noise = Noise(t_noise=cal["t_noise"], t_keep=cal["t_keep"], margins=cal["aa_margins"],
                      knob_key=cal.get("knob_key"), ms=ms if o.renoise else None,
                      source=f"calibration {cal['id']} of {cal['created_at']}" + (" (provisional)" if cal["provisional"] else ""))
        if not (o.renoise and cal.get("knob_key") != seed.key()):
            noises.append(noise)
            _record_noise(db, run_id, noises, say, ceiling)
            return noise
        return _aa(bench, db, run_id, seed, o.aa_repeats, "the calibration was measured on another kernel", say,
                   noises, ceiling)
    return _aa(bench, db, run_id, seed, o.aa_repeats, "the seed, before any result", say, noises, ceiling)


def _with_figures(bench, state: State, strategy, figures: dict, say) -> State:
    """The compiler's figures of the best and of every move the strategy may propose (two passes:
    a compound is worth building only once its parts' figures show a cost to give back)."""
    for _ in range(2):
        want = [state.best] + [m.knobs for m in strategy.moves(state)]
        todo = [k for k in dict.fromkeys(want, None) if k.key() not in figures]
        if todo:
            say(ev.Phase(text=f"building {len(todo)} candidate(s) and reading their registers, spills and occupancy"))
            figures.update(bench.static(todo))
        state = state.model_copy(update={"static": {k: f for k, f in figures.items() if f is not None},
                                         "best_static": figures.get(state.best.key())})
    return state


def _reason_text(reason: str, done: int, plateau: int, budget: int, strict: bool = False) -> str:
    if strict:  # the ladder's rule and words, as its recorded runs printed them
        return {"budget": f"budget of {done} experiments spent",
                "plateau": f"{plateau} consecutive experiments without a keep",
                "exhausted": "no applicable lever left in the catalog"}[reason]
    return {"budget": f"budget of {done} experiments spent",
            "plateau": f"{plateau} consecutive experiments without a keep and no candidate predicted to reach t_keep "
                       f"({budget - done} of {budget} experiments unspent)",
            "exhausted": f"no candidate left ({budget - done} of {budget} experiments unspent)"}[reason]


def run_summary(db, run_id: int) -> dict:
    """What a run came to, for its last lines, `compare` and `report`: seed -> final TFLOP/s (the last
    re-anchor's pair), the final kernel against SDPA flash (the comparator's pair), how well it
    predicted (measured margins inside the band written before measuring), and what an experiment
    cost (median seconds from start to outcome; whole-run wall time per counted experiment)."""
    run = q.get_run(db, run_id)
    hist = q.history(db, run_id)
    rows = [e for e in hist if e["seq"] is not None and e["outcome"] is not None]  # finished, counted
    banded = [e for e in rows if e["margin"] is not None and e["predicted_lo"] is not None]
    inside = sum(e["predicted_lo"] <= e["margin"] <= e["predicted_hi"] for e in banded)
    secs = [(datetime.fromisoformat(e["finished_at"]) - datetime.fromisoformat(e["started_at"])).total_seconds()
            for e in rows if e["finished_at"] and e["started_at"]]
    anchor = next((e for e in reversed(hist) if e["kind"] == "reanchor" and e["margin"]), None)
    comp = next((e for e in reversed(hist) if e["kind"] == "comparator" and e["margin"]), None)
    wall = None
    if run.get("finished_at") and rows:
        wall = (datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])).total_seconds() / len(rows)
    best = best_of_run(db, run_id)
    return {"run_id": run_id, "strategy": run.get("strategy") or "ladder", "status": run["status"],
            "stop_reason": run["stop_reason"], "gpu": run["gpu_name"], "problem": run["problem_key"],
            "experiments": len(rows), "kept": sum(e["outcome"] == "KEPT" for e in rows), "banded": len(banded),
            "inside_band": inside, "median_seconds": statistics.median(secs) if secs else None,
            "wall_seconds_per_experiment": wall, "final_knobs": best.label(),
            "seed_tflops": anchor and anchor["tflops_base"], "final_tflops": anchor and anchor["tflops_cand"],
            "vs_seed": anchor and anchor["margin"], "sdpa_flash_tflops": comp and comp["tflops_cand"], "final_tflops_vs_sdpa": comp and comp["tflops_base"],
            "vs_sdpa_flash": comp and 1 / comp["margin"], "nulls": len(run.get("noise") or []) or None,
            "speculation": (run.get("options") or {}).get("speculation")}


def _reanchor(bench, db, run_id, seed: Knobs, best: Knobs, links: list[float], t_noise: float, say: Say,
              link_noise: list[float] | None = None) -> None:
    job = bench.paired({"knobs": seed}, {"knobs": best})
    p, meas = _paired_measure(job, "anchor")
    ra = reanchor(links, p["margin"], p["margin_ab"], p["margin_ba"], t_noise, link_noise) if p and links else None
    if ra:
        meas.append({"kind": "anchor", "ok": ra.verdict == "consistent", "value": ra.gap, "payload": ra.model_dump()})
    q.record_experiment(db, run_id, kind="reanchor", lever=None, base_key=seed.key(), base_knobs=seed, knob_key=best.key(),
                        knobs=best, margin=p and p["margin"], margin_lo=p and p["margin_lo"], margin_hi=p and p["margin_hi"],
                        margin_ab=p and p["margin_ab"], margin_ba=p and p["margin_ba"],
                        tflops_base=p and p["tflops_base"], tflops_cand=p and p["tflops_cand"],
                        detail=ra.text if ra else "best against the untouched seed (no keeps to multiply)", measurements=meas)
    say(ev.Anchored(result=p, reanchor=ra))


def _final(bench, db, run_id, seed: Knobs, best: Knobs, links: list[float], t_noise: float, say: Say,
           link_noise: list[float] | None = None, owed: set[str] | None = None) -> None:
    """The final kernel beside the seed (a re-anchor) and beside SDPA, each in the same paired protocol;
    `owed`: the ones a resumed run still owes (None: both)."""
    owed = {"final_reanchor", "comparator"} if owed is None else owed
    say(ev.Phase(text="final: best against the seed, and SDPA against the best"))
    if "final_reanchor" in owed:
        _reanchor(bench, db, run_id, seed, best, links, t_noise, say, link_noise)
    if "comparator" not in owed:
        return
    job = bench.paired({"knobs": best}, {"sdpa": "flash"})
    p, meas = _paired_measure(job, "comparator")
    q.record_experiment(db, run_id, kind="comparator", lever="sdpa_flash", base_key=best.key(), base_knobs=best,
                        margin=p and p["margin"], margin_ab=p and p["margin_ab"], margin_ba=p and p["margin_ba"],
                        tflops_base=p and p["tflops_base"], tflops_cand=p and p["tflops_cand"],
                        detail="torch SDPA (FLASH backend) against the final best; margin > 1 means SDPA is faster",
                        measurements=meas)
    say(ev.Compared(result=p))


def best_of_run(db, run_id: int) -> Knobs:
    """The run's current best: the last kept candidate, else the seed."""
    run = q.get_run(db, run_id)
    kept = [e for e in q.history(db, run_id) if e["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"] if kept else run["seed_knobs"])


def rescreen(bench, db, run_id: int, *, artifacts: Path, say: Say = quiet) -> int:
    """Re-try shelved levers whose conditions differ from the current best's; returns how many ran."""
    run = q.get_run(db, run_id)
    if run["t_keep"] is None:
        raise SearchError(f"run {run_id} has no A/A null (t_keep); it stopped before calibration")
    best = best_of_run(db, run_id)
    dev = bench.device()
    q.check_same_setup(db, dev.name, run["problem_key"])
    search = (run.get("options") or {}).get("search") or {}
    diag, drow, why = _diagnose(bench, best, dev.arch, Path(artifacts) / f"run-{run_id}", "rescreen",
                                search.get("agent_version", LATER_SETTINGS["agent_version"]))
    now = conditions(bench.attributes(best), diag.label if diag else run_label(db, run_id))
    causal = run["problem"]["causal"]
    due = [r for r in due_for_rescreen(q.shelf(db, run_id, status="shelved"), now)
           if catalog.get(r["lever"]).applies_to(best, causal)]
    seq = q.next_seq(db, run_id)
    cal = q.get_calibration(db, run["calibration_id"]) if run.get("calibration_id") else None
    gate = {"t_keep": run["t_keep"], "t_noise": run["t_noise"], "ceiling": ceiling_of(cal, run["problem"]["dtype"])}
    for i, entry in enumerate(due):
        lever = catalog.get(entry["lever"])
        cand, _ = catalog.candidate(lever, best)
        prop = Proposal(move=Move(levers=(lever.name,), knobs=cand or best, kind="rescreen"), predicted=lever.predicted,
                        rationale=f"{lever.name}: re-screen, conditions changed since it was shelved")
        t = run_trial(bench, db, run_id, seq + i, seq + len(due) - 1, prop, best, gate, say)
        p = t.paired or {}
        kept = t.outcome is Outcome.KEPT
        close_trial(db, t, shelf_conditions=None if kept else now.model_dump(), rescreen_of=entry["id"])
        best = t.cand if kept else best
        say(outcome_event(seq + i, lever.name, t))
    return len(due)


def run_label(db, run_id: int) -> str | None:
    ds = q.diagnoses(db, run_id)
    return ds[-1]["label"] if ds else None
