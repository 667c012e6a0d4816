"""Is it the candidates or the machine? A streak of CRASH or TIMEOUT outcomes is taken for the
environment until the current best, which passed its checks before, passes again in a fresh process.

Without it, a machine whose environment breaks under a running search (every new child process failing
to load torch) records each experiment from then on as CRASH, spends the budget on them and ends with a
comparator pair it could not measure. After STREAK consecutive failures
the best is re-checked (the seed's own check: its reduced shapes and the run's shape, in a fresh
worker). If it passes, the failures are the candidates' own and the run goes on. If it fails, every
experiment since the environment was last known good is uncounted (kept as INTERRUPTED with what it
measured) and the run stops `interrupted`, so `run --resume` re-runs them once the machine is fixed and
ends where an uninterrupted run ends."""
from __future__ import annotations

import json

from experiments.outcome import Outcome
from experiments.problem import c1_shapes

from .events import Warn
from .state import Progress, Run, SearchError

STREAK = 2  # consecutive CRASH/TIMEOUT outcomes before the best is re-checked
FAILED = (Outcome.CRASH.value, Outcome.TIMEOUT.value)
# outcomes decided before any worker ran (pre-flight arithmetic, nvcc): they say nothing of the
# environment, so they neither extend nor break a streak
UNMEASURED = (Outcome.BLOCKED_BY_ARITHMETIC.value, Outcome.COMPILE_FAIL.value)


class EnvironmentBroken(SearchError):
    """The current best failed its re-check after a streak of failures: the run stops `interrupted`.
    args: the sentence for the console, the reason stored with the run."""

    @property
    def reason(self) -> str:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


def streak_start(p: Progress) -> int | None:
    """The seq of the first experiment of a streak of at least STREAK failures ending at the last one
    (experiments since the best last re-checked fine only), else None. p.trials[i] is experiment i+1."""
    first, failed = None, 0
    for seq in range(len(p.trials), p.checked_at, -1):
        outcome = p.trials[seq - 1].outcome
        if outcome in FAILED:
            first, failed = seq, failed + 1
        elif outcome not in UNMEASURED:
            break
    return first if failed >= STREAK else None


def recheck_best(run: Run, p: Progress) -> tuple[bool, dict]:
    """The best's check again, in a fresh worker: (passed, the measurement to keep with the experiment)."""
    try:
        job = run.bench.check(p.best, c1_shapes(run.shape, p.best) + [run.shape])
    except Exception as e:  # noqa: BLE001 - a bench that cannot even start a worker is the answer
        return False, {"kind": "best_check", "ok": False, "payload": {"error": f"{type(e).__name__}: {e}"[:1000]}}
    res = job.value("check")
    ok = job.status == "ok" and bool(res) and bool(res["ok"])
    return ok, {"kind": "best_check", "ok": ok,
                "payload": {"knob_key": p.best.key(), "status": job.status, "check": res, "stderr": job.stderr[-1500:]}}


def after_failure(run: Run, p: Progress, t) -> int | None:
    """After experiment p.done (the TrialRecord `t`, not yet closed): where a streak of failures ends in
    a re-check of the best. Returns the seq from which the experiments are to be uncounted when the
    best failed too (`stop` does it once `t` is closed), else None; the re-check is kept with `t`."""
    start = streak_start(p) if t.outcome.value in FAILED else None
    if start is None:
        return None
    ok, m = recheck_best(run, p)
    t.extra.append(m)
    if not ok:
        t.fields["detail"] += f"; the best {p.best.label()} then failed its re-check too ({what_failed(m)})"
        return start
    p.checked_at = p.done
    t.fields["detail"] += (f"; after {p.done - start + 1} failures in a row the best {p.best.label()} re-checked "
                           "fine in a fresh process: the failures are the candidates' own")
    run.say(Warn(text=f"experiments {start}-{p.done} failed one after another; the best re-checked fine in a fresh "
                      "process, so they are the candidates' own and the run goes on"))
    return None


def stop(run: Run, p: Progress, start: int, t) -> None:
    """The environment is broken: experiments start..p.done are uncounted and the run stops interrupted."""
    from store import queries as q

    outcomes = ", ".join(f"{s} {p.trials[s - 1].outcome}" for s in range(start, p.done + 1))
    reason = (f"the environment broke: experiments {start}-{p.done} failed one after another ({outcomes}) and the "
              f"current best {p.best.label()} then failed its re-check in a fresh process "
              f"({what_failed(t.extra[-1])}); those {p.done - start + 1} experiments are not counted")
    q.uncount_experiments(run.db, run.run_id, start, reason)
    raise EnvironmentBroken(f"run {run.run_id} interrupted: {reason}; fix the machine and continue with "
                            f"`fa5090-search run --resume {run.run_id}`", reason)


def what_failed(m: dict) -> str:
    """One clause: how the re-check failed, its last line of stderr or the first failed check."""
    pl = m["payload"]
    if "error" in pl:
        return pl["error"].splitlines()[0] if pl["error"] else "the bench raised"
    lines = [x for x in (pl.get("stderr") or "").strip().splitlines() if x.strip()]
    bad = next((c for c in ((pl.get("check") or {}).get("checks") or []) if not c.get("ok")), None)
    why = lines[-1].strip() if lines else (bad or {}).get("reason") or json.dumps(pl.get("check"))[:200]
    return f"{pl['status']}: {why[:300]}"
