"""The run's absolute references: the calibration it judges by, the ceiling above which a rate is not
physical, the re-anchor (the best against the untouched seed, against the product of the keeps'
paired margins) and the final comparators (the best against SDPA flash and cuDNN), each in the paired protocol."""
from __future__ import annotations

from kernel_src.knobs import Knobs
from store import queries as q

from .events import Anchored, Compared, Phase, Warn
from .reanchor import reanchor
from .state import Progress, Run


def calibration_of(bench, db, dev, shape, use: bool) -> dict | None:
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


def paired_measure(job, kind: str) -> tuple[dict | None, list[dict]]:
    p = job.value("paired")
    return p, [{"kind": kind, "ok": job.status == "ok", "value": p["margin"] if p else None,
                "payload": p or {"status": job.status, "stderr": job.stderr}}]


def unmeasured(job, what: str) -> str:
    """The sentence for a pair that could not be measured: its status and the last line of its stderr."""
    lines = [x for x in (job.stderr or "").strip().splitlines() if x.strip()]
    return (f"{what} could not be measured ({job.status}" + (f": {lines[-1].strip()[:300]}" if lines else "")
            + "); no row was written for it")


def reanchor_best(run: Run, p: Progress) -> str | None:
    """The best against the untouched seed, judged against the product of the keeps since. A pair that
    could not be measured writes no row (one with no values read as a re-anchor): the sentence saying so."""
    seed, best = run.seed, p.best
    job = run.bench.paired({"knobs": seed}, {"knobs": best})
    pr, meas = paired_measure(job, "anchor")
    if pr is None:
        why = unmeasured(job, "the re-anchor of the best against the seed")
        run.say(Warn(text=why))
        return why
    ra = reanchor(p.links, pr["margin"], pr["margin_ab"], pr["margin_ba"], p.noise.t_noise, p.link_noise) if p.links else None
    if ra:
        meas.append({"kind": "anchor", "ok": ra.verdict == "consistent", "value": ra.gap, "payload": ra.model_dump()})
    q.record_experiment(run.db, run.run_id, kind="reanchor", lever=None, base_key=seed.key(), base_knobs=seed,
                        knob_key=best.key(), knobs=best, margin=pr["margin"], margin_lo=pr["margin_lo"],
                        margin_hi=pr["margin_hi"], margin_ab=pr["margin_ab"], margin_ba=pr["margin_ba"],
                        tflops_base=pr["tflops_base"], tflops_cand=pr["tflops_cand"],
                        detail=ra.text if ra else "best against the untouched seed (no keeps to multiply)", measurements=meas)
    run.say(Anchored(result=pr, reanchor=ra))
    return None


def compare_to_sdpa(run: Run, best: Knobs, backend: str = "flash") -> str | None:
    """SDPA `backend` against the final best, in the same paired protocol (margin > 1: SDPA is faster),
    one fresh process per backend. A backend that does not run these inputs on this machine is a row
    with no margin whose detail is "unavailable: <why>" (experiments.sdpa). A pair that could not be
    measured for another reason writes no row (a row without values would later be read as a
    comparison): it returns the sentence saying so."""
    job = run.bench.paired({"knobs": best}, {"sdpa": backend})
    pr, meas = paired_measure(job, "comparator")
    skipped = next((s.skipped for s in job.steps if s.skipped), None)
    if pr is None and not skipped:
        why = unmeasured(job, f"the final comparison against SDPA {backend}")
        run.say(Warn(text=why))
        return why
    if pr:
        detail = f"torch SDPA ({backend.upper()} backend) against the final best; margin > 1 means SDPA is faster"
    else:
        detail = skipped
        meas[0]["payload"]["skipped"] = skipped
    q.record_experiment(run.db, run.run_id, kind="comparator", lever=f"sdpa_{backend}", base_key=best.key(),
                        base_knobs=best, margin=pr and pr["margin"], margin_ab=pr and pr["margin_ab"],
                        margin_ba=pr and pr["margin_ba"], tflops_base=pr and pr["tflops_base"],
                        tflops_cand=pr and pr["tflops_cand"], detail=detail, measurements=meas)
    run.say(Compared(backend=backend, result=pr, why=None if pr else detail))
    return None


def final(run: Run, p: Progress, owed: set[str]) -> list[str]:
    """The final kernel beside the seed (a re-anchor) and beside each SDPA backend of the run's
    `comparators`, each in the same paired protocol; `owed`: those of "final_reanchor", "comparator"
    still to do, and `p.final_done` the comparator pairs a resumed run had already recorded.
    Returns what could not be measured, a sentence each."""
    run.say(Phase(text=f"final: best against the seed, and SDPA ({', '.join(run.o.comparators)}) against the best"))
    missing = [reanchor_best(run, p) if "final_reanchor" in owed else None]
    if "comparator" in owed:
        missing += [compare_to_sdpa(run, p.best, backend) for backend in run.o.comparators
                    if f"sdpa_{backend}" not in p.final_done]
    return [m for m in missing if m]
