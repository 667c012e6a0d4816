"""The A/A null: the keep threshold a run judges by, measured on the kernel being compared (the seed
first, the best again once its time per call has moved), each recorded with the run's list of nulls."""
from __future__ import annotations

import statistics

from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs
from store import queries as q

from .events import NullMeasured, Phase
from .state import Noise, Progress, Run


def measure_null(run: Run, p: Progress, knobs: Knobs, why: str) -> Noise:
    """Measure a null and record it: its row and the run's list of nulls in one transaction (a
    resumed run reads which null was in force from that list)."""
    repeats = run.o.aa_repeats
    run.say(Phase(text=f"A/A null: {knobs.label()} against itself, {repeats} fresh processes ({why})"))
    aa = run.bench.aa_null(knobs, repeats)
    margins = [a["margin"] for a in aa]
    tn = noise_of(margins)
    ms = statistics.median(a["ms_base"] for a in aa) if all("ms_base" in a for a in aa) else None
    noise = Noise(t_noise=tn, t_keep=1.0 + tn, margins=margins, knob_key=knobs.key(), ms=ms,
                  source=f"A/A null of {knobs.label()} ({ms:.3f} ms/call), {len(margins)} fresh processes: {why}"
                  if ms else f"A/A null of {knobs.label()}, {len(margins)} fresh processes: {why}")
    with q.atomic(run.db):
        q.record_experiment(run.db, run.run_id, kind="aa_null", knob_key=knobs.key(), knobs=knobs,
                            margin=max(margins, key=lambda m: abs(m - 1)),
                            detail=f"t_noise {tn:.4%}, t_keep {1 + tn:.5f}; {noise.source}",
                            tflops_base=aa[0]["tflops_base"], tflops_cand=aa[0]["tflops_cand"],
                            measurements=[{"kind": "aa", "ok": True, "value": a["margin"], "payload": a} for a in aa])
        p.noises.append(noise)
        record_noise(run, p)
    return noise


def record_noise(run: Run, p: Progress) -> None:
    """The null now in force (p.noise) as the run's threshold, and the list of every null so far."""
    n = p.noise
    q.update_run(run.db, run.run_id, t_noise=n.t_noise, t_keep=n.t_keep, aa_margins=n.margins,
                 noise=[h.model_dump() for h in p.noises])
    run.say(NullMeasured(margins=n.margins, t_noise=n.t_noise, t_keep=n.t_keep, source=n.source, ceiling=run.ceiling))


def first_null(run: Run, p: Progress) -> Noise:
    """The keep threshold is set before any result exists, on the kernel being compared: the
    calibration's when it was measured on the seed (or the null is never re-measured), else the seed's."""
    cal, o = p.cal, run.o
    if not cal:
        return measure_null(run, p, run.seed, "the seed, before any result")
    runs_ = cal.get("aa_runs") or []
    ms = statistics.median(r["ms_base"] for r in runs_) if runs_ and all(r.get("ms_base") for r in runs_) else None
    noise = Noise(t_noise=cal["t_noise"], t_keep=cal["t_keep"], margins=cal["aa_margins"],
                  knob_key=cal.get("knob_key"), ms=ms if o.renoise else None,
                  source=f"calibration {cal['id']} of {cal['created_at']}" + (" (provisional)" if cal["provisional"] else ""))
    if o.renoise and cal.get("knob_key") != run.seed.key():
        return measure_null(run, p, run.seed, "the calibration was measured on another kernel")
    p.noises.append(noise)
    record_noise(run, p)
    return noise
