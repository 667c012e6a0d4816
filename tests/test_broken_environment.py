"""A crash streak is the environment until shown otherwise. When the machine breaks under a run (every
new worker fails to load torch), two CRASH/TIMEOUT outcomes in a row send the current best back through
its check in a fresh process; it fails too, so the run stops `interrupted`, naming what failed, with the
streak uncounted, and `run --resume` on the mended machine ends where an uninterrupted run ends. Where
only candidates crash, the best re-checks fine and the run goes on. A final pair that cannot be measured
is said, never written as a row without values."""
import json

import pytest
from typer.testing import CliRunner

from agent.bench import Recorder
from agent.health import EnvironmentBroken
from agent.loop import SearchOptions, run_search
from agent.resume import resume_search
from experiments.lab import JobResult
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store import open_db
from store import queries as q

from fakes import BreakingSimBench, CrashingSimBench, SimBench

SHAPE = Shape(B=2, H=16, N=8192, D=128)
BUDGET = 20
HEALTHY = 5  # the machine breaks after the run's fifth experiment (after its third keep, on the synthetic bench)


def _trace(db, rid):
    return [(e["seq"], e["kind"], e["lever"], e["knob_key"], e["outcome"], e["margin"])
            for e in q.history(db, rid) if e["outcome"] != "INTERRUPTED"]


def _search(bench, path, tmp_path):
    db = open_db(path)
    return db, run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art",
                          options=SearchOptions(budget=BUDGET))


@pytest.fixture
def whole(tmp_path):
    return _search(SimBench(), tmp_path / "whole.db", tmp_path)


def test_a_machine_that_breaks_under_a_run_stops_it_interrupted_without_spending_its_budget(tmp_path):
    bench = BreakingSimBench(HEALTHY)
    db = open_db(tmp_path / "cut.db")
    with pytest.raises(EnvironmentBroken) as got:
        run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art", options=SearchOptions(budget=BUDGET))
    run = q.latest_run(db)
    said = str(got.value)
    # one sentence, on the console and in the database: what failed, what it did with the streak, what to do
    assert said.startswith(f"run {run['id']} interrupted: the environment broke: experiments 6-7 failed one after "
                           "another (6 CRASH, 7 CRASH)") and "\n" not in said
    assert "failed its re-check in a fresh process (crash: ModuleNotFoundError: No module named 'torch')" in said
    assert said.endswith(f"`fa5090-search run --resume {run['id']}`")
    assert run["status"] == "interrupted" and got.value.reason in run["stop_reason"]
    # the best itself went back through its check, in a fresh process, after the second failure, and failed
    assert [c for c in bench.calls if c.startswith("check")][-1].endswith("(broken)")
    assert bench.evaluations == HEALTHY + 2  # it stopped there: no budget spent on a broken machine
    rows = q.history(db, run["id"])
    assert [e["seq"] for e in rows if e["seq"]] == list(range(1, HEALTHY + 1))  # the streak is not counted
    streak = [e for e in rows if e["outcome"] == "INTERRUPTED"]
    assert [e["detail"].split(" (")[0] for e in streak] == ["CRASH as experiment 6", "CRASH as experiment 7"]
    assert all("No module named 'torch'" in e["detail"] for e in streak)  # what it measured is kept
    assert not [s for s in q.shelf(db, run["id"]) if s["experiment_id"] in {e["id"] for e in streak}]
    assert not [e for e in rows if e["kind"] == "comparator"]  # and no comparator row without values
    checked = q.experiment(db, streak[-1]["id"])["measurements"]
    assert [(m["kind"], m["ok"]) for m in checked if m["kind"] == "best_check"] == [("best_check", False)]


def test_resumed_on_the_mended_machine_it_ends_where_the_uninterrupted_run_ends(whole, tmp_path):
    w_db, w = whole
    bench = BreakingSimBench(HEALTHY)
    db = open_db(tmp_path / "cut.db")
    with pytest.raises(EnvironmentBroken):
        run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art", options=SearchOptions(budget=BUDGET))
    rid = q.latest_run(db)["id"]
    # resumed while the machine is still broken: interrupted again at once, still nothing counted
    with pytest.raises(EnvironmentBroken):
        resume_search(bench, db, artifacts=tmp_path / "art")
    assert [e["seq"] for e in q.history(db, rid) if e["seq"]] == list(range(1, HEALTHY + 1))
    bench.fixed = True  # the machine mended
    assert resume_search(bench, db, artifacts=tmp_path / "art") == rid
    assert _trace(db, rid) == _trace(w_db, w)  # same keeps, margins and final kernel; nothing doubled or lost
    a, b = q.get_run(w_db, w), q.get_run(db, rid)
    assert (b["status"], b["stop_reason"], b["noise"]) == (a["status"], a["stop_reason"], a["noise"]) == (
        a["status"], "budget of 20 experiments spent", a["noise"])
    assert [(s["lever"], s["status"]) for s in q.shelf(db, rid)] == [(s["lever"], s["status"]) for s in q.shelf(w_db, w)]
    assert [r["was"] for r in b["resumes"]] == ["interrupted", "interrupted"]
    assert sum(e["outcome"] == "INTERRUPTED" for e in q.history(db, rid)) == 4  # two streaks, kept, uncounted


def test_where_only_candidates_crash_the_best_re_checks_fine_and_the_run_goes_on(whole, tmp_path):
    w_db, w = whole
    counted = {e["seq"]: e for e in q.history(w_db, w) if e["seq"]}
    # two experiments in a row that the uninterrupted run measured as rejections now fault in their worker
    assert {counted[7]["outcome"], counted[8]["outcome"]} <= {"SLOWER", "NULL"}
    bench = CrashingSimBench({counted[7]["knob_key"], counted[8]["knob_key"]})
    db, rid = _search(bench, tmp_path / "crash.db", tmp_path)
    run = q.get_run(db, rid)
    assert run["status"] == "budget" and run["stop_reason"] == "budget of 20 experiments spent"
    rows = {e["seq"]: e for e in q.history(db, rid) if e["seq"]}
    assert len(rows) == BUDGET and (rows[7]["outcome"], rows[8]["outcome"]) == ("CRASH", "CRASH")
    assert "re-checked fine in a fresh process: the failures are the candidates' own" in rows[8]["detail"]
    checks = [m for m in q.experiment(db, rows[8]["id"])["measurements"] if m["kind"] == "best_check"]
    assert [m["ok"] for m in checks] == [True] and checks[0]["payload"]["knob_key"] == rows[8]["base_key"]
    assert sum(c.startswith("check") for c in bench.calls) == 2  # the seed's check, and the best's once
    assert {s["lever"] for s in q.shelf(db, rid)} >= {rows[7]["lever"], rows[8]["lever"]}  # shelved as crashes
    assert [e for e in q.history(db, rid) if e["kind"] == "comparator"][0]["margin"] is not None


class NoSdpa(SimBench):
    """The final pair against SDPA cannot be measured (its worker dies)."""

    def paired(self, base, cand):
        if "sdpa" in cand:
            return JobResult(status="crash", steps=[], stderr="RuntimeError: No available kernel. Aborting execution.")
        return super().paired(base, cand)


def test_a_final_comparison_that_cannot_be_measured_is_said_and_writes_no_row(tmp_path):
    db, rid = _search(NoSdpa(), tmp_path / "n.db", tmp_path)
    assert not [e for e in q.history(db, rid) if e["kind"] == "comparator"]
    reason = q.get_run(db, rid)["stop_reason"]
    said = "could not be measured (crash: RuntimeError: No available kernel. Aborting execution.); no row was written for it"
    assert reason == (f"budget of 20 experiments spent; the final comparison against SDPA flash {said}; "
                      f"the final comparison against SDPA cudnn {said}")
    assert all(e["margin"] is not None for e in q.history(db, rid) if e["kind"] == "reanchor")


def test_the_cli_says_it_in_one_sentence_and_a_replay_asks_the_same_re_check(tmp_path):
    """A run recorded on the breaking bench, replayed through `run --replay`: the replay asks the best's
    re-check as the recorded run did, stops interrupted and prints one sentence, exit 1."""
    from agent.cli import app

    rec = tmp_path / "rec" / "recording.jsonl"
    db = open_db(tmp_path / "rec.db")
    with pytest.raises(EnvironmentBroken):
        run_search(Recorder(BreakingSimBench(HEALTHY), rec), db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art",
                   options=SearchOptions(budget=BUDGET))
    out = tmp_path / "replayed.db"
    res = CliRunner().invoke(app, ["run", "--replay", str(rec), "--budget", str(BUDGET), "--seqlen", "8192",
                                   "--db", str(out)])
    assert res.exit_code == 1, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("error: run 1 interrupted: the environment broke: experiments 6-7")
    assert isinstance(res.exception, SystemExit)  # said, not raised (the worker's own traceback is in its rows)
    assert "`fa5090-search run --resume 1`" in last
    hist = json.loads(CliRunner().invoke(app, ["history", "--json", "--db", str(out)]).output)
    assert [e["seq"] for e in hist if e["seq"]] == list(range(1, HEALTHY + 1))
    assert CliRunner().invoke(app, ["history", "--db", str(out)]).output.count("INTERRUPTED") == 2
