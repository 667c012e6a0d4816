"""The search loop: seed -> A/A null -> [rescreen | propose -> predict -> measure -> keep or
shelve] until the budget or the plateau -> re-anchor against the seed and the comparator.

I/O lives in the rooms: the bench (experiments, profiler) measures, the store remembers; this
file only decides, and reports progress through `say(event, **data)`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from pydantic import BaseModel

from experiments.outcome import Outcome
from experiments.problem import Shape, c1_shapes
from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs
from profiler.diagnosis import Diagnosis, diagnose, metrics_from_row
from profiler.ncu import parse_raw_csv
from store import queries as q

from . import levers as catalog
from .propose import PLATEAU, predicted_band, propose, stop_reason
from .reanchor import reanchor
from .shelf import conditions, due_for_rescreen

REANCHOR_EVERY = 3  # keeps between re-anchors (the seed's RA1 came after three)

Say = Callable[..., None]


class SearchOptions(BaseModel):
    """How a search spends its budget (the CLI's `run` options)."""

    budget: int = 20
    aa_repeats: int = 3
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


class SearchError(RuntimeError):
    pass


def _diagnose(bench, knobs: Knobs, arch: str, artifacts: Path, tag: str) -> tuple[Diagnosis | None, dict | None, str]:
    """Profile with ncu and diagnose; (None, None, why) when there is no profile."""
    rec = bench.profile(knobs)
    if rec.csv is None:
        return None, None, rec.error or "no profile"
    rows = parse_raw_csv(rec.csv)
    if not rows:
        return None, None, "ncu printed no kernel row"
    artifacts.mkdir(parents=True, exist_ok=True)
    path = artifacts / f"ncu_{tag}_{knobs.key()}.csv"
    path.write_text(rec.csv)
    d = diagnose(metrics_from_row(rows[0], arch))
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
               command: str = "", say: Say = lambda *a, **k: None) -> int:
    o = options
    if o.budget <= 0:
        raise SearchError("--budget must be at least 1 experiment")
    for name in o.exclude:
        catalog.get(name)  # an unknown lever name is refused before anything runs
    dev = bench.device()
    q.check_same_setup(db, dev.name, shape.key())
    run_id = q.create_run(
        db, gpu_name=dev.name, arch=dev.arch, sm_count=dev.sm_count, problem_key=shape.key(),
        problem=shape.model_dump(), toolchain={"driver": dev.driver, "torch": dev.torch, "cuda": dev.torch_cuda},
        seed_knobs=seed.model_dump(mode="json"), budget=o.budget, command=command)
    artifacts = Path(artifacts) / f"run-{run_id}"
    say("run", run_id=run_id, device=dev, shape=shape)
    try:
        cal = _calibration(bench, db, dev, shape, o.use_calibration)
        if cal:
            q.update_run(db, run_id, calibration_id=cal["id"], t_noise=cal["t_noise"], t_keep=cal["t_keep"],
                         aa_margins=cal["aa_margins"])
        status, reason = _search(bench, db, run_id, dev, shape, seed, artifacts, o, cal, say)
    except KeyboardInterrupt:
        q.update_run(db, run_id, status="interrupted", stop_reason="interrupted by the user", finished_at=q.now())
        raise
    except Exception as e:
        q.update_run(db, run_id, status="error", stop_reason=f"{type(e).__name__}: {e}"[:500], finished_at=q.now())
        raise
    q.update_run(db, run_id, status=status, stop_reason=reason, finished_at=q.now())
    say("done", run_id=run_id, status=status, reason=reason)
    return run_id


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


def _search(bench, db, run_id, dev, shape, seed, artifacts, o: SearchOptions, cal, say):
    arch, budget, plateau = dev.arch, o.budget, o.plateau
    # ---- the seed must be correct before anything is timed against it
    say("phase", text=f"building and checking the seed {seed.label()}")
    built = bench.build([seed])[seed.key()]
    if not built.ok:
        raise SearchError(f"the seed {seed.label()} does not compile:\n{built.log[-1500:]}")
    job = bench.check(seed, c1_shapes(shape) + [shape])
    res = job.value("check")
    if job.status != "ok" or not res or not res["ok"]:
        raise SearchError(f"the seed {seed.label()} fails its correctness tier ({job.status}): "
                          f"{json.dumps(res)[:600] if res else job.stderr[-600:]}")
    attrs = bench.attributes(seed)
    diag, drow, why = _diagnose(bench, seed, arch, artifacts, "seed")
    if diag is None:
        say("warn", text=f"no diagnosis: {why}; levers are proposed by predicted gain alone")
    q.record_experiment(db, run_id, kind="seed", lever=None, knob_key=seed.key(), knobs=seed, outcome=None,
                        detail="seed built, C1 and C2 passed",
                        measurements=[{"kind": "c2", "ok": True, "payload": res},
                                      {"kind": "build", "ok": True, "payload": {"attributes": attrs, "log": built.log[-4000:]}}],
                        diagnosis=drow)
    say("diagnosis", knobs=seed, diagnosis=diag, why=why)

    # ---- the keep threshold is set before any result exists: a stored calibration, or an A/A null now
    ceiling = ceiling_of(cal, shape.dtype)
    if cal:
        tn, t_keep, margins = cal["t_noise"], cal["t_keep"], cal["aa_margins"]
        say("aa", margins=margins, t_noise=tn, t_keep=t_keep,
            source=f"calibration {cal['id']} of {cal['created_at']}" + (" (provisional)" if cal["provisional"] else ""),
            ceiling=ceiling)
    else:
        say("phase", text=f"A/A null: the seed against itself, {o.aa_repeats} fresh processes")
        aa = bench.aa_null(seed, o.aa_repeats)
        margins = [a["margin"] for a in aa]
        tn = noise_of(margins)
        t_keep = 1.0 + tn
        q.update_run(db, run_id, t_noise=tn, t_keep=t_keep, aa_margins=margins)
        q.record_experiment(db, run_id, kind="aa_null", knob_key=seed.key(), knobs=seed,
                            margin=max(margins, key=lambda m: abs(m - 1)),
                            detail=f"t_noise {tn:.4%}, t_keep {t_keep:.5f} from {len(margins)} A/A runs",
                            tflops_base=aa[0]["tflops_base"], tflops_cand=aa[0]["tflops_cand"],
                            measurements=[{"kind": "aa", "ok": True, "value": a["margin"], "payload": a} for a in aa])
        say("aa", margins=margins, t_noise=tn, t_keep=t_keep, source="A/A null of this run (no calibration stored)",
            ceiling=None)
    links: list[float] = []  # the paired margins of the keeps since the seed
    # the levers this run may use, through the bench so a replay searches the catalog it recorded
    in_use = tuple(catalog.get(n) for n in bench.levers([lv.name for lv in catalog.CATALOG]))

    best = seed
    label = diag.label if diag else None
    conds = conditions(attrs, label)
    tried: set[str] = set(o.exclude)  # levers measured against the current best, or excluded
    rescreens: list[dict] = []
    done = since_keep = 0
    prefetched = None
    while True:
        if prefetched != best:  # a new best: build every applicable candidate in one ninja call
            bench.prefetch([c for lv in in_use if lv.applies_to(best, shape.causal)
                            for c, _ in [catalog.candidate(lv, best)] if c])
            prefetched = best
        reason = stop_reason(done, budget, 0 if o.screen else since_keep, plateau)
        if reason:
            break
        shelved = {row["lever"] for row in q.shelf(db, run_id, status="shelved")}
        entry = rescreens.pop(0) if rescreens else None
        evidence = q.lever_evidence(db, best.key(), run_id) if o.evidence and not o.screen else {}
        measured = {name: e["margin"] for name, e in evidence.items()}
        lever = catalog.get(entry["lever"]) if entry else propose(best, label, tried | shelved, in_use, shape.causal,
                                                                   measured)
        if lever is None:
            reason = "exhausted"
            break
        if entry and not lever.applies_to(best, shape.causal):
            continue  # the keep that re-opened it also made it moot (e.g. padding after a swizzle)
        done += 1
        tried.add(lever.name)
        gate = {"t_keep": t_keep, "t_noise": tn, "ceiling": ceiling}
        prior = evidence.get(lever.name)
        exp_id, cand, ev, fields = _trial(bench, db, run_id, done, budget, "rescreen" if entry else "lever", lever,
                                          best, gate, say, predicted=predicted_band(lever, prior and prior["margin"], tn),
                                          prior=prior)
        p, meas = (ev.paired if ev else None), _measurements(ev)
        if o.screen:  # the seed stays the base: a KEPT here only says the lever would be kept
            q.finish_experiment(db, exp_id, measurements=meas, **fields)
            say("kept" if fields["outcome"] is Outcome.KEPT else "rejected", seq=done, lever=lever,
                outcome=fields["outcome"], detail=fields["detail"], margin=p["margin"] if p else None,
                tflops=p["tflops_cand"] if p else None, diagnosis=None, why="", rescreens=[])
        elif fields["outcome"] is Outcome.KEPT:
            new_attrs = ev.attributes or bench.attributes(cand)
            diag, drow, why = _diagnose(bench, cand, arch, artifacts, f"exp{exp_id}")
            new_label = diag.label if diag else None
            new_conds = conditions(new_attrs, new_label)
            q.finish_experiment(db, exp_id, measurements=meas, diagnosis=drow, **fields)
            if entry:
                q.mark_shelf(db, entry["id"], "resurrected", exp_id)
            best, label, since_keep, tried = cand, new_label, 0, set(o.exclude)
            # the shelf is re-screened, oldest first, before any new lever
            rescreens = due_for_rescreen(q.shelf(db, run_id, status="shelved"), new_conds)
            conds = new_conds
            say("kept", seq=done, lever=lever, margin=p["margin"], tflops=p["tflops_cand"], diagnosis=diag, why=why,
                rescreens=[r["lever"] for r in rescreens])
            links.append(p["margin"])
            if o.reanchor_every and len(links) % o.reanchor_every == 0:
                _reanchor(bench, db, run_id, seed, best, links, tn, say)
        else:
            shelf_row = {"lever": lever.name, "outcome": fields["outcome"], "margin": p["margin"] if p else None,
                         "conditions": conds.model_dump()}
            q.finish_experiment(db, exp_id, measurements=meas, shelf=shelf_row, **fields)
            if entry:
                q.mark_shelf(db, entry["id"], "rescreened", exp_id)
            since_keep += 1
            say("rejected", seq=done, lever=lever, outcome=fields["outcome"], detail=fields["detail"],
                margin=p["margin"] if p else None)

    if not o.screen:
        _final(bench, db, run_id, seed, best, links, tn, say)
    return {"budget": "budget", "plateau": "plateau", "exhausted": "exhausted"}[reason], _reason_text(reason, done, plateau)


def _trial(bench, db, run_id: int, seq: int, budget: int, kind: str, lever, best: Knobs, gate: dict, say: Say,
           predicted: tuple[float, float] | None = None, prior: dict | None = None):
    """One experiment up to its outcome: the prediction is written before anything is measured;
    what a keep or a rejection changes is the caller's to decide. Returns (id, candidate,
    evaluation or None, the experiment's outcome fields)."""
    cand, invalid = catalog.candidate(lever, best)
    lo, hi = predicted or lever.predicted
    hypothesis = lever.hypothesis + (f" Measured on this kernel before: {prior['margin']:.4f} ({prior['outcome']}, run "
                                     f"{prior['run_id']}, experiment {prior['experiment_id']})." if prior else "")
    exp_id = q.start_experiment(
        db, run_id, seq=seq, kind=kind, lever=lever.name, base_key=best.key(), base_knobs=best,
        knob_key=cand.key() if cand else None, knobs=cand, hypothesis=hypothesis, predicted_lo=lo, predicted_hi=hi)
    say("experiment", seq=seq, budget=budget, kind=kind, lever=lever, base=best, cand=cand, predicted=(lo, hi),
        prior=prior)
    if cand is None:
        return exp_id, None, None, {"outcome": Outcome.BLOCKED_BY_ARITHMETIC, "detail": invalid}
    ev = bench.evaluate(best, cand, simpler=lever.simpler, **gate)
    fields = {"outcome": ev.outcome, "detail": ev.detail}
    if ev.paired:
        fields.update({k: ev.paired[k] for k in ("margin", "margin_lo", "margin_hi", "margin_ab", "margin_ba",
                                                 "tflops_base", "tflops_cand")})
    return exp_id, cand, ev, fields


def _reason_text(reason: str, done: int, plateau: int) -> str:
    return {"budget": f"budget of {done} experiments spent",
            "plateau": f"{plateau} consecutive experiments without a keep",
            "exhausted": "no applicable lever left in the catalog"}[reason]


def _measurements(ev) -> list[dict]:
    if ev is None:
        return []
    out = []
    if ev.build is not None:
        out.append({"kind": "build", "ok": ev.build.ok, "payload": {"log": ev.build.log[-4000:], "attributes": ev.attributes,
                                                                    "cached": ev.build.cached}})
    for tag in ("c1", "c2"):
        v = getattr(ev, tag)
        if v is not None:
            out.append({"kind": tag, "ok": v["ok"], "payload": v})
    if ev.paired is not None:
        out.append({"kind": "paired", "ok": True, "value": ev.paired["margin"], "payload": ev.paired})
    if ev.job is not None and ev.job.status != "ok":
        out.append({"kind": "paired" if ev.paired is None else "c2", "ok": False,
                    "payload": {"status": ev.job.status, "stderr": ev.job.stderr, "steps": ev.job.steps}})
    return out


def _reanchor(bench, db, run_id, seed: Knobs, best: Knobs, links: list[float], t_noise: float, say: Say) -> None:
    job = bench.paired({"knobs": seed}, {"knobs": best})
    p, meas = _paired_measure(job, "anchor")
    ra = reanchor(links, p["margin"], p["margin_ab"], p["margin_ba"], t_noise) if p and links else None
    if ra:
        meas.append({"kind": "anchor", "ok": ra.verdict == "consistent", "value": ra.gap, "payload": ra.model_dump()})
    q.record_experiment(db, run_id, kind="reanchor", lever=None, base_key=seed.key(), base_knobs=seed, knob_key=best.key(),
                        knobs=best, margin=p and p["margin"], margin_lo=p and p["margin_lo"], margin_hi=p and p["margin_hi"],
                        margin_ab=p and p["margin_ab"], margin_ba=p and p["margin_ba"],
                        tflops_base=p and p["tflops_base"], tflops_cand=p and p["tflops_cand"],
                        detail=ra.text if ra else "best against the untouched seed (no keeps to multiply)", measurements=meas)
    say("anchor", result=p, reanchor=ra)


def _final(bench, db, run_id, seed: Knobs, best: Knobs, links: list[float], t_noise: float, say: Say) -> None:
    """The final kernel beside the seed (a re-anchor) and beside SDPA, each in the same paired protocol."""
    say("phase", text="final: best against the seed, and SDPA against the best")
    _reanchor(bench, db, run_id, seed, best, links, t_noise, say)
    job = bench.paired({"knobs": best}, {"sdpa": "flash"})
    p, meas = _paired_measure(job, "comparator")
    q.record_experiment(db, run_id, kind="comparator", lever="sdpa_flash", base_key=best.key(), base_knobs=best,
                        margin=p and p["margin"], margin_ab=p and p["margin_ab"], margin_ba=p and p["margin_ba"],
                        tflops_base=p and p["tflops_base"], tflops_cand=p and p["tflops_cand"],
                        detail="torch SDPA (FLASH backend) against the final best; margin > 1 means SDPA is faster",
                        measurements=meas)
    say("comparator", result=p)


def best_of_run(db, run_id: int) -> Knobs:
    """The run's current best: the last kept candidate, else the seed."""
    run = q.get_run(db, run_id)
    kept = [e for e in q.history(db, run_id) if e["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"] if kept else run["seed_knobs"])


def rescreen(bench, db, run_id: int, *, artifacts: Path, say: Say = lambda *a, **k: None) -> int:
    """Re-try shelved levers whose conditions differ from the current best's; returns how many ran."""
    run = q.get_run(db, run_id)
    if run["t_keep"] is None:
        raise SearchError(f"run {run_id} has no A/A null (t_keep); it stopped before calibration")
    best = best_of_run(db, run_id)
    dev = bench.device()
    q.check_same_setup(db, dev.name, run["problem_key"])
    diag, drow, why = _diagnose(bench, best, dev.arch, Path(artifacts) / f"run-{run_id}", "rescreen")
    now = conditions(bench.attributes(best), diag.label if diag else run_label(db, run_id))
    causal = run["problem"]["causal"]
    due = [r for r in due_for_rescreen(q.shelf(db, run_id, status="shelved"), now)
           if catalog.get(r["lever"]).applies_to(best, causal)]
    seq = q.next_seq(db, run_id)
    cal = q.get_calibration(db, run["calibration_id"]) if run.get("calibration_id") else None
    gate = {"t_keep": run["t_keep"], "t_noise": run["t_noise"], "ceiling": ceiling_of(cal, run["problem"]["dtype"])}
    for i, entry in enumerate(due):
        lever = catalog.get(entry["lever"])
        exp_id, cand, ev, fields = _trial(bench, db, run_id, seq + i, seq + len(due) - 1, "rescreen", lever, best,
                                          gate, say)
        p = (ev.paired if ev else None) or {}
        kept = fields["outcome"] is Outcome.KEPT
        shelf_row = None if kept else {"lever": lever.name, "outcome": fields["outcome"], "margin": p.get("margin"),
                                       "conditions": now.model_dump()}
        q.finish_experiment(db, exp_id, measurements=_measurements(ev), shelf=shelf_row, **fields)
        q.mark_shelf(db, entry["id"], "resurrected" if kept else "rescreened", exp_id)
        best = cand if kept else best
        say("kept" if kept else "rejected", seq=seq + i, lever=lever, outcome=fields["outcome"], detail=fields["detail"],
            margin=p.get("margin"), tflops=p.get("tflops_cand"), diagnosis=None, why="", rescreens=[])
    return len(due)


def run_label(db, run_id: int) -> str | None:
    ds = q.diagnoses(db, run_id)
    return ds[-1]["label"] if ds else None
