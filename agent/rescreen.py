"""`fa5090-search rescreen`: shelved levers tried again on a finished run's best once the conditions
they lost under have changed (seed: a rejection is conditional on occupancy)."""
from __future__ import annotations

from pathlib import Path

from experiments.outcome import Outcome
from store import queries as q

from . import levers as catalog
from .anchors import ceiling_of
from .events import Say, quiet
from .replay.settings import LATER_SETTINGS
from .shelf import conditions, due_for_rescreen
from .state import SearchError
from .strategies.base import Move, Proposal
from .summary import best_of_run, run_label
from .trial import close_trial, diagnose_profile, outcome_event, run_trial


def rescreen(bench, db, run_id: int, *, artifacts: Path, say: Say = quiet) -> int:
    """Re-try shelved levers whose conditions differ from the current best's; returns how many ran."""
    run = q.get_run(db, run_id)
    if run["t_keep"] is None:
        raise SearchError(f"run {run_id} has no A/A null (t_keep); it stopped before calibration")
    best = best_of_run(db, run_id)
    dev = bench.device()
    q.check_same_setup(db, dev.name, run["problem_key"], one_problem=False)  # the run's own problem; a `tune` database holds others
    search = (run.get("options") or {}).get("search") or {}
    version = search.get("agent_version", LATER_SETTINGS["agent_version"])
    diag, drow, why = diagnose_profile(bench, best, dev.arch, Path(artifacts) / f"run-{run_id}", "rescreen", version)
    now = conditions(bench.attributes(best), diag.label if diag else run_label(db, run_id))
    causal = run["problem"]["causal"]
    due = [r for r in due_for_rescreen(q.shelf(db, run_id, status="shelved"), now)
           if catalog.get(r["lever"], version).applies_to(best, causal, run["problem"].get("D"), run["problem"].get("N"),
                                                   run["problem"].get("dtype"))]
    seq = q.next_seq(db, run_id)
    cal = q.get_calibration(db, run["calibration_id"]) if run.get("calibration_id") else None
    gate = {"t_keep": run["t_keep"], "t_noise": run["t_noise"], "ceiling": ceiling_of(cal, run["problem"]["dtype"])}
    for i, entry in enumerate(due):
        lever = catalog.get(entry["lever"], version)
        cand, _ = catalog.candidate(lever, best)
        prop = Proposal(move=Move(levers=(lever.name,), knobs=cand or best, kind="rescreen"), predicted=lever.predicted,
                        rationale=f"{lever.name}: re-screen, conditions changed since it was shelved")
        t = run_trial(bench, db, run_id, seq + i, seq + len(due) - 1, prop, best, gate, say, version=version)
        kept = t.outcome is Outcome.KEPT
        close_trial(db, t, shelf_conditions=None if kept else now.model_dump(), rescreen_of=entry["id"])
        best = t.cand if kept else best
        say(outcome_event(seq + i, lever.name, t))
    return len(due)
