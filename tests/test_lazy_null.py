"""The lazy null (SearchOptions.lazy_null): once a keep moves the best's time per call, its A/A null is owed, not
measured, until a decision needs it. Meanwhile an experiment is judged with the band +-lazy_band as its null; one
whose predicted band reaches into it (or that has none, or is a simplification) has the null measured first, and one
whose margin lands inside it has the null measured and is measured again under it before it is decided. On the
synthetic bench the lazy run makes the eager run's decisions with fewer nulls."""
import pytest

from agent import levers as catalog

from agent.loop import run_search
from agent.resume import resume_search
from agent.state import SearchOptions
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store import open_db
from store import queries as q

from fakes import SimBench

SHAPE = Shape(B=2, H=16, N=8192, D=128)


def _run(bench, path, tmp_path, **options):
    db = open_db(path)
    rid = run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art",
                     options=SearchOptions(budget=20, **options))
    return db, rid


def _decisions(db, rid):
    return [(e["seq"], e["lever"], e["knob_key"], e["outcome"]) for e in q.history(db, rid) if e["seq"]]


def _final(db, rid):
    return [e for e in q.history(db, rid) if e["kind"] == "reanchor"][-1]["knob_key"]


def test_the_lazy_run_makes_the_eager_runs_decisions_with_fewer_nulls(tmp_path):
    e_db, e = _run(SimBench(), tmp_path / "eager.db", tmp_path, lazy_null=False)
    l_db, lz = _run(SimBench(), tmp_path / "lazy.db", tmp_path)
    assert _decisions(l_db, lz) == _decisions(e_db, e) and _final(l_db, lz) == _final(e_db, e)
    nulls = lambda db, rid: sum(r["kind"] == "aa_null" for r in q.history(db, rid))
    assert nulls(e_db, e) >= 3 and nulls(l_db, lz) < nulls(e_db, e), (nulls(e_db, e), nulls(l_db, lz))


def test_what_the_band_judged_lies_outside_it_and_what_reached_it_was_judged_by_a_null(tmp_path):
    db, rid = _run(SimBench(), tmp_path / "lazy.db", tmp_path)
    band = SearchOptions().lazy_band
    rows = q.history(db, rid)
    banded = [e for e in rows if e["seq"] and "judged with the band" in (e["detail"] or "")]
    assert banded, "no experiment was judged while a null was owed"
    assert all(e["margin"] >= 1 + band or e["margin"] <= 1 - band for e in banded)
    point = lambda e: (e["predicted_lo"] * e["predicted_hi"]) ** 0.5
    assert all(abs(point(e) - 1) > band for e in banded)
    # every null after the first was measured on the best of its time, just before an experiment that needed it:
    # one predicted within the band (or a simplification), or one whose margin landed in it (measured twice)
    aa = [i for i, e in enumerate(rows) if e["kind"] == "aa_null"][1:]
    assert aa
    for i in aa:
        prev = next((e for e in reversed(rows[:i]) if e["seq"]), None)
        nxt = next(e for e in rows[i + 1:] if e["seq"])
        judged_in = prev is not None and any(m["kind"] == "owed_null" for m in q.experiment(db, prev["id"])["measurements"])
        if judged_in:
            assert rows[i]["knob_key"] == prev["base_key"]
        else:
            simpler = nxt["kind"] == "lever" and catalog.get(nxt["lever"]).simpler
            assert rows[i]["knob_key"] == nxt["base_key"]
            assert nxt["predicted_lo"] is None or abs(point(nxt) - 1) <= band or simpler, nxt


class InBandBench(SimBench):
    """A candidate judged by the band reads a margin of 1.01 (inside +-2%); measured again under the null it
    reads its own margin: the second measurement decides."""

    def evaluate(self, base, cand, *, t_keep, t_noise, ceiling=None, simpler=False, replicate=True):
        ev = super().evaluate(base, cand, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, simpler=simpler,
                              replicate=replicate)
        if t_noise == SearchOptions().lazy_band and ev.paired:
            from experiments.lab import Evaluation
            from experiments.outcome import Outcome
            p = {**ev.paired, "margin": 1.01}
            return Evaluation(outcome=Outcome.NULL, detail="margin 1.0100 within the A/A null", paired=p)
        return ev


def test_a_margin_inside_the_band_has_the_null_measured_and_is_measured_again_under_it(tmp_path):
    e_db, e = _run(SimBench(), tmp_path / "eager.db", tmp_path, lazy_null=False)
    db, rid = _run(InBandBench(), tmp_path / "lazy.db", tmp_path)
    rows = q.history(db, rid)
    rejudged = [e for e in rows if e["seq"] and any(m["kind"] == "owed_null" for m in q.experiment(db, e["id"])["measurements"])]
    assert rejudged
    for r in rejudged:
        owed = next(m for m in q.experiment(db, r["id"])["measurements"] if m["kind"] == "owed_null")
        assert owed["value"] == 1.01 and r["margin"] != 1.01  # decided by the second measurement
        # the null was measured while it ran: after its row, before the next experiment's
        after = rows[rows.index(r) + 1:]
        assert next(x for x in after if x["kind"] in ("aa_null", "lever", "compound", "rescreen"))["kind"] == "aa_null"
    assert _decisions(db, rid) == _decisions(e_db, e)


def test_resumed_while_a_null_is_owed_it_ends_where_the_uninterrupted_run_ends(tmp_path):
    w_db, w = _run(SimBench(), tmp_path / "whole.db", tmp_path)

    class Boom(Exception):
        pass

    class Dies(SimBench):
        def __init__(self):
            super().__init__()
            self.armed, self.n = True, 0

        def evaluate(self, base, cand, **gate):
            # the first experiment judged by the band: the null is owed when the run stops
            if self.armed and gate["t_noise"] == SearchOptions().lazy_band:
                self.n += 1
                if self.n == 2:
                    raise Boom("stopped with a null owed")
            return super().evaluate(base, cand, **gate)

    bench = Dies()
    db = open_db(tmp_path / "cut.db")
    with pytest.raises(Boom):
        run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art", options=SearchOptions(budget=20))
    rid = q.latest_run(db)["id"]
    bench.armed = False
    assert resume_search(bench, db, rid, artifacts=tmp_path / "art") == rid
    assert _decisions(db, rid) == _decisions(w_db, w) and _final(db, rid) == _final(w_db, w)
    nulls = lambda d, r: [x["knob_key"] for x in q.history(d, r) if x["kind"] == "aa_null"]
    assert nulls(db, rid) == nulls(w_db, w)


def test_recorded_runs_replay_with_the_eager_null_they_ran_with():
    from agent.replay.settings import LATER_SETTINGS, LEGACY

    assert LATER_SETTINGS["lazy_null"] is False and LEGACY["lazy_null"] is False
    assert SearchOptions().lazy_null is True


def test_whatever_the_band_decides_any_null_up_to_its_width_decides_alike():
    """The claim the lazy null rests on, over the keep gate itself (experiments.lab.decide): where the band gate
    (t_keep 1 + w, t_noise w) gives an outcome other than NULL, the gate of every null t_noise <= w gives the same
    one; where it gives NULL, the loop measures the null and decides again (settle_banded)."""
    import random

    from experiments.build import BuildResult
    from experiments.lab import JobResult, decide

    w = SearchOptions().lazy_band
    built = BuildResult(key="k", ok=True, library="/x.so", log="", seconds=0.0, cached=False)
    rng = random.Random(7)
    ok = {"ok": True, "checks": []}
    decided = 0
    for _ in range(4000):
        m = rng.choice([rng.uniform(0.9, 1.1), rng.uniform(0.5, 3.0)])
        ab, ba = m * rng.uniform(0.99, 1.01), m * rng.uniform(0.99, 1.01)
        paired = {"margin": m, "margin_ab": ab, "margin_ba": ba, "tflops_cand": 100.0, "tflops_base": 100.0 / m}
        job = JobResult(status="ok", steps=[{"tag": "attributes", "result": {}}, {"tag": "c1", "result": ok},
                                            {"tag": "paired", "result": paired}, {"tag": "c2", "result": ok}])
        confirm = JobResult(status="ok", steps=[{"tag": "paired", "result": {**paired, "margin": m * rng.uniform(0.97, 1.03)}}])
        band = decide(job, built, t_keep=1 + w, t_noise=w, confirm_job=confirm).outcome
        if band.value == "NULL":
            continue
        decided += 1
        for tn in (0.0002, 0.001, 0.005, 0.01, w):
            assert decide(job, built, t_keep=1 + tn, t_noise=tn, confirm_job=confirm).outcome == band, (m, tn, band)
    assert decided > 1000


def test_each_experiment_keeps_the_seconds_its_figures_step_waited(tmp_path):
    """Where a run's time between experiments goes: the wait for the figures' builds is kept with the experiment
    it preceded, as a timing measurement (figures_s), so a record can tell it from the nulls and re-anchors."""
    import time as _time

    class SlowStatic(SimBench):
        def static(self, knobs):
            _time.sleep(0.01)
            return super().static(knobs)

    db, rid = _run(SlowStatic(), tmp_path / "t.db", tmp_path)
    counted = [e for e in q.history(db, rid) if e["seq"]]
    waits = [[m["payload"]["figures_s"] for m in q.experiment(db, e["id"])["measurements"]
              if m["kind"] == "timing" and "figures_s" in (m["payload"] or {})] for e in counted]
    assert all(len(w) == 1 and w[0] >= 0 for w in waits)
    assert sum(w[0] for w in waits) >= 0.01
