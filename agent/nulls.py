"""The A/A null: the keep threshold a run judges by, measured on the kernel being compared (the seed
first, the best again once its time per call has moved), each recorded with the run's list of nulls.

The second and later nulls are lazy (SearchOptions.lazy_null): owed from the keep that moved the time per call
until a decision needs one. Meanwhile an experiment is judged with the band +-lazy_band as its null, which decides
a margin outside the band as any null up to that width would; the owed null is measured first for an experiment
predicted inside the band (or a simplification, or a draw without a prediction), and before deciding one whose
margin lands inside it, which is then measured again under the null (gate_for, settle_banded)."""
from __future__ import annotations

import statistics

from experiments.outcome import Outcome
from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs
from store import queries as q

from . import levers as catalog
from .events import NullMeasured, Phase, Warn
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


def gate_for(run: Run, p: Progress, prop) -> tuple[dict, bool]:
    """The gate this experiment is judged with, and whether it is the band's (the best's null still owed)."""
    if not p.null_owed:
        return run.gate(p.noise), False
    if _needs_null(run, prop):
        # (a null that cannot be measured stays owed: the band judges, and a broken machine shows as the streak)
        if pay_null(run, p, f"owed since the best moved; experiment {p.done} is predicted within the band "
                            f"+-{run.o.lazy_band:.0%}, or is a simplification or has no prediction"):
            return run.gate(p.noise), False
    return run.band_gate(), True


def settle_banded(run: Run, p: Progress, t, best: Knobs):
    """An experiment the band judged (agent.trial.TrialRecord): outside the band, decided, and said so; inside
    it (NULL), the null is measured first and the experiment measured again under it."""
    if t.ev is None:
        return t
    if t.outcome is not Outcome.NULL:
        t.fields["detail"] += f"; judged with the band +-{run.o.lazy_band:.0%} while the best's own null is owed"
        return t
    from .trial import rejudge

    first = t.paired
    why = (f"owed since the best moved; experiment {p.done}'s margin {first['margin']:.4f} is within the band "
           f"+-{run.o.lazy_band:.0%}" if first else f"owed since the best moved; experiment {p.done} needs it")
    if pay_null(run, p, why):
        t = rejudge(run.bench, t, best, run.gate(p.noise), simpler=False)
    else:  # undecidable without the null: a failure of the machine's, for the streak to weigh
        t.fields.update(outcome=Outcome.CRASH, detail=f"margin {first['margin']:.4f} is within the band "
                        f"+-{run.o.lazy_band:.0%} and the best's own null could not be measured: {p.null_error}")
    t.extra.append({"kind": "owed_null", "ok": not p.null_owed, "value": first and first["margin"],
                    "payload": {"band": run.o.lazy_band, "first": first}})
    return t


def _needs_null(run: Run, prop) -> bool:
    """Whether the owed null is measured before this experiment rather than only when its margin lands within
    +-lazy_band: it has no predicted band, it is a simplification (kept at any margin >= 1, a decision only the
    null makes near 1), or its predicted margin (the band's middle) lies within +-lazy_band, where the band gate
    would most likely not decide it. (A margin there costs the null and a second measurement; one outside it
    costs nothing more. Which of the two happens never changes the decision, only the time it takes.)"""
    band, point = run.o.lazy_band, prop.point()
    if point is None or (len(prop.move.levers) == 1 and catalog.get(prop.move.levers[0]).simpler):
        return True
    return 1 - band <= point <= 1 + band


def pay_null(run: Run, p: Progress, why: str) -> bool:
    """Measure the owed null; False (and it stays owed, p.null_error saying why) when its workers fail."""
    noise = p.noise
    try:
        measure_null(run, p, p.best, f"time per call moved {noise.ms:.3f} ms since the last null; {why}"
                     if noise.ms else why)
    except RuntimeError as e:  # the bench's "A/A null failed (...)": its workers could not run
        p.null_error = str(e).strip().splitlines()[-1][:300] if str(e).strip() else type(e).__name__
        run.say(Warn(text=f"the best's owed A/A null could not be measured ({p.null_error}); it stays owed"))
        return False
    p.null_owed, p.null_error = False, None
    return True
