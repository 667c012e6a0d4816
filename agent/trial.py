"""The one place an experiment is written: its prediction before anything is measured, then its
outcome, measurements, diagnosis and shelf entry in one transaction (store.queries); and the
profile of a kernel diagnosed into the row the store keeps."""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from experiments.outcome import Outcome
from experiments.problem import c1_shapes
from kernel_src.knobs import KnobError, Knobs
from profiler.diagnosis import Diagnosis, diagnose, metrics_from_row
from profiler.ncu import parse_raw_csv
from store import queries as q

from . import levers as catalog
from .bench_protocol import FanOut
from .events import Diagnosed, ExperimentStarted, Kept, Phase, Rejected, Warn
from .policy import policy
from .state import Run, SearchError
from .strategies.base import Proposal


class TrialRecord(BaseModel):
    """An experiment up to its outcome; what a keep or a rejection changes is the loop's to decide."""
    model_config = ConfigDict(arbitrary_types_allowed=True)

    exp_id: int
    cand: Knobs | None
    ev: object | None  # experiments.lab.Evaluation, or None when refused before measuring
    fields: dict  # the experiment's outcome columns
    extra: list[dict] = []  # measurements beside the evaluation's (the best's re-check, agent.health)

    @property
    def outcome(self) -> Outcome:
        return self.fields["outcome"]

    @property
    def paired(self) -> dict | None:
        return getattr(self.ev, "paired", None) if self.ev is not None else None


def _candidate(p: Proposal, best: Knobs, version: int | None = None) -> tuple[Knobs | None, str | None]:
    """The move's kernel from `best`, each lever as the run's policy (`version`) read it."""
    if len(p.move.levers) == 1:
        return catalog.candidate(catalog.get(p.move.levers[0], version), best)
    if p.move.levers:
        sets: dict = {}
        for name in p.move.levers:
            sets.update(catalog.get(name, version).sets)
        try:
            return best.replace(**sets), None
        except KnobError as e:
            return None, str(e)
    return p.move.knobs, None


def _hypothesis(p: Proposal, prior: dict | None) -> str:
    if not p.move.levers:
        text = f"A configuration drawn by the {p.move.kind} strategy; no prediction. {p.rationale}"
    elif len(p.move.levers) == 1:
        lever = catalog.get(p.move.levers[0])
        text = lever.hypothesis
        if lever.on_wgmma and p.move.knobs.compute.value == "wgmma":  # the text is mma.sync's: the arm's own line
            text += " " + lever.on_wgmma
    else:
        text = (f"Compound move {p.move.name}: the first lever's cost is a resource the others give back "
                f"({p.rationale}).")
    if prior:
        text += (f" Measured on this kernel before: {prior['margin']:.4f} ({prior['outcome']}, run {prior['run_id']}, "
                 f"experiment {prior['experiment_id']}).")
    return text


def seed_step(run: Run) -> tuple[dict, Diagnosis | None]:
    """The seed must be correct before anything is timed against it; returns its attributes and diagnosis."""
    bench, seed = run.bench, run.seed
    run.say(Phase(text=f"building and checking the seed {seed.label()}"))
    built = bench.build([seed])[seed.key()]
    if not built.ok:
        raise SearchError(f"the seed {seed.label()} does not compile:\n{built.log[-1500:]}")
    job = bench.check(seed, c1_shapes(run.shape, seed) + [run.shape])
    res = job.value("check")
    if job.status != "ok" or not res or not res["ok"]:
        raise SearchError(f"the seed {seed.label()} fails its correctness tier ({job.status}): "
                          f"{json.dumps(res)[:600] if res else job.stderr[-600:]}")
    attrs = bench.attributes(seed)
    diag, drow, why = diagnose_profile(bench, seed, run.dev.arch, run.artifacts, "seed", run.o.agent_version)
    if diag is None:
        run.say(Warn(text=f"no diagnosis: {why}; levers are ranked by the compiler's figures and predicted gain"))
    q.record_experiment(run.db, run.run_id, kind="seed", lever=None, knob_key=seed.key(), knobs=seed, outcome=None,
                        detail="seed built, C1 and C2 passed",
                        measurements=[{"kind": "c2", "ok": True, "payload": res},
                                      {"kind": "build", "ok": True, "payload": {"attributes": attrs, "log": built.log[-4000:]}}],
                        diagnosis=drow)
    run.say(Diagnosed(knobs=seed, diagnosis=diag, why=why))
    return attrs, diag


def diagnose_profile(bench, knobs: Knobs, arch: str, artifacts: Path, tag: str,
                     agent_version: int | None = None, spent: list | None = None) -> tuple[Diagnosis | None, dict | None, str]:
    """Profile with ncu and diagnose with the rules of policy `agent_version` (None: the current one), so a
    replay labels each profile as its recorded run did; (None, None, why) when there is no profile. `spent`:
    the profile's wall seconds are appended to it."""
    rec = bench.profile(knobs)
    if spent is not None:
        spent.append(getattr(rec, "seconds", 0.0))
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


def evaluate_ahead(fan: FanOut, proposals: list[Proposal], best: Knobs, gate: dict, version: int | None = None) -> None:
    """Independent evaluations handed to a cluster bench (agent.distributed) at once: it starts them
    on its workers and `run_trial` later takes each answer in the loop's own order."""
    if not proposals:
        return
    cands = []
    for p in proposals:
        cand, _ = _candidate(p, best, version)
        if cand is not None:
            cands.append((cand, len(p.move.levers) == 1 and catalog.get(p.move.levers[0]).simpler))
    fan.submit(best, cands, **gate)


def run_trial(bench, db, run_id: int, seq: int, budget: int, p: Proposal, best: Knobs, gate: dict, say,
              prior: dict | None = None, static: dict | None = None, version: int | None = None) -> TrialRecord:
    """Write the prediction, then measure (bench.evaluate) unless the candidate is refused; the move's levers as
    policy `version` read them (None: today's catalog)."""
    cand, invalid = _candidate(p, best, version)
    lo, hi = p.predicted if p.predicted else (None, None)
    lever_name = p.move.name
    exp_id = q.start_experiment(
        db, run_id, seq=seq, kind=p.move.kind,
        lever=lever_name, base_key=best.key(), base_knobs=best, knob_key=cand.key() if cand else None, knobs=cand,
        hypothesis=_hypothesis(p, prior), predicted_lo=lo, predicted_hi=hi, move=list(p.move.levers),
        rationale=p.rationale, static=static)
    say(ExperimentStarted(seq=seq, budget=budget, move_kind=p.move.kind, lever=lever_name, base=best, cand=cand,
                          predicted=p.predicted, prior=prior, rationale=p.rationale))
    if cand is None:
        return TrialRecord(exp_id=exp_id, cand=None, ev=None,
                           fields={"outcome": Outcome.BLOCKED_BY_ARITHMETIC, "detail": invalid})
    simpler = len(p.move.levers) == 1 and catalog.get(p.move.levers[0]).simpler
    ev = bench.evaluate(best, cand, simpler=simpler, **gate)
    return TrialRecord(exp_id=exp_id, cand=cand, ev=ev, fields=_outcome_fields(ev))


def _outcome_fields(ev) -> dict:
    """The experiment's outcome columns from an evaluation."""
    fields = {"outcome": ev.outcome, "detail": ev.detail}
    if ev.paired:
        fields.update({k: ev.paired[k] for k in ("margin", "margin_lo", "margin_hi", "margin_ab", "margin_ba",
                                                 "tflops_base", "tflops_cand")})
    return fields


def rejudge(bench, t: TrialRecord, best: Knobs, gate: dict, *, simpler: bool) -> TrialRecord:
    """The same experiment measured again under `gate` (its row and prediction stay): a margin the band gate
    could not decide, now that the null is measured (agent.loop, lazy_null)."""
    ev = bench.evaluate(best, t.cand, simpler=simpler, **gate)
    return TrialRecord(exp_id=t.exp_id, cand=t.cand, ev=ev, fields=_outcome_fields(ev), extra=list(t.extra))


def outcome_event(seq: int, lever: str, t: TrialRecord) -> Kept | Rejected:
    """What a person is told of an experiment's outcome where the keep changes nothing else (a screen,
    a re-screen, a rejection)."""
    p = t.paired or {}
    if t.outcome is Outcome.KEPT:
        return Kept(seq=seq, lever=lever, margin=p.get("margin"), tflops=p.get("tflops_cand"), outcome=t.outcome,
                    detail=t.fields["detail"])
    return Rejected(seq=seq, lever=lever, outcome=t.outcome, detail=t.fields["detail"], margin=p.get("margin"))


def close_trial(db, t: TrialRecord, *, diagnosis: dict | None = None, shelf_conditions: dict | None = None,
                rescreen_of: int | None = None) -> None:
    """The outcome in one transaction; a rejection with conditions goes to the shelf, and the shelf
    entry a re-screen re-tried is marked resurrected or rescreened."""
    p = t.paired or {}
    shelf_row = None
    if shelf_conditions is not None and t.outcome is not Outcome.KEPT:
        shelf_row = {"lever": None, "outcome": t.outcome, "margin": p.get("margin"), "conditions": shelf_conditions}
    if shelf_row is not None:
        shelf_row["lever"] = db["experiments"].get(t.exp_id)["lever"]  # the move's name
    q.finish_experiment(db, t.exp_id, measurements=measurements(t.ev) + t.extra, diagnosis=diagnosis, shelf=shelf_row,
                        **t.fields)
    if rescreen_of is not None:
        q.mark_shelf(db, rescreen_of, "resurrected" if t.outcome is Outcome.KEPT else "rescreened", t.exp_id)


def _clock(job) -> dict | None:
    if job is None or (job.clock is None and not any(st.seconds for st in job.steps)):
        return None
    return {**(job.clock or {}), **{f"{st.tag}_s": st.seconds for st in job.steps if st.seconds is not None}}


def measurements(ev) -> list[dict]:
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
    if getattr(ev, "confirm", None):  # the keep's replicate in a fresh process (the re-anchor reads its spread)
        out.append({"kind": "replicate", "ok": True, "value": ev.confirm["margin"], "payload": ev.confirm})
    # where the experiment's wall time went: the build (0 when cached), the child of C1, the pair and C2, the replicate
    b = ev.build
    spent = {"build_s": b.seconds if b is not None and not b.cached and not b.ahead else 0.0,
             "built_ahead": bool(b is not None and b.ahead),
             "job_s": ev.job.seconds if ev.job is not None else None,
             "replicate_s": ev.confirm_job.seconds if ev.confirm_job is not None else None,
             "settled": (ev.paired or {}).get("settled"),
             # inside each child: its start (imports, CUDA context) and each step's seconds (None: recorded before)
             "job_clock": _clock(ev.job), "replicate_clock": _clock(ev.confirm_job),
             "replicate_settled": (ev.confirm or {}).get("settled")}
    if spent["job_s"] is not None:
        out.append({"kind": "timing", "ok": True, "value": sum(v for k, v in spent.items() if k.endswith("_s") and v),
                    "payload": spent})
    if ev.job is not None and ev.job.status != "ok":
        out.append({"kind": "paired" if ev.paired is None else "c2", "ok": False,
                    "payload": {"status": ev.job.status, "stderr": ev.job.stderr,
                                "steps": [s.model_dump() for s in ev.job.steps]}})
    return out
