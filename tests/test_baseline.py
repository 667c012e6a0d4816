"""`baseline` without an earlier search (on the H200, `baseline --seqlen 8192 --backend flash --backend
cudnn` stopped at "There is no database at fa5090.db"). The bench here is the synthetic
SimBench (tests/fakes.py): nothing in this file is a measurement, only the option handling is tested."""
import json

import pytest
from fakes import SimBench
from typer.testing import CliRunner

from agent.cli import app

runner = CliRunner()


class Bench(SimBench):
    made: list = []

    def __init__(self, shape, cache, budget_s=2.0, profile=True, **kw):
        super().__init__()
        Bench.made.append(shape)


@pytest.fixture
def sim(monkeypatch):
    import agent.bench

    Bench.made = []
    monkeypatch.setattr(agent.bench, "GpuBench", Bench)
    return Bench


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_baseline_without_a_database_measures_the_seed_and_creates_nothing(sim, tmp_path):
    db = tmp_path / "none.db"
    res = invoke("baseline", "--seqlen", 8192, "--backend", "flash", "--backend", "cudnn", "--db", db)
    assert res.exit_code == 0, res.output
    assert not db.exists() and "not stored: no database at" in res.output
    assert [s.key() for s in sim.made] == ["B2-H16-N8192-D128-float16-noncausal"]
    got = json.loads(invoke("baseline", "--json", "--knob", "compute=mma", "--backend", "flash", "--db", db).output)
    assert [(r["shape"], r["comparator"], r["run"]) for r in got] == [("B2-H16-N2048-D128-float16-noncausal", "flash", None)]
    assert got[0]["paired"]["margin"] > 0 and not db.exists()


def test_baseline_refuses_a_bad_knob_and_knob_with_run(sim, tmp_path):
    res = invoke("baseline", "--knob", "compute=nonsense", "--db", tmp_path / "x.db")
    assert res.exit_code != 0 and not sim.made
    res = invoke("baseline", "--knob", "compute=mma", "--run", 1, "--db", tmp_path / "x.db")
    assert res.exit_code == 1 and "give one of them" in res.output
    res = invoke("baseline", "--run", 1, "--db", tmp_path / "x.db")  # a run named in a database that is not there
    assert res.exit_code == 1 and "no database" in res.output.lower()


def test_baseline_with_a_run_stores_its_comparators(sim, tmp_path):
    """With a run, as before: the run's best against each backend, stored as comparator rows of the run."""
    db = tmp_path / "r.db"
    from agent.loop import SearchOptions, run_search
    from experiments.problem import Shape
    from kernel_src.knobs import Knobs
    from store import queries as q
    from store.db import open_db

    conn = open_db(db)
    rid = run_search(SimBench(), conn, shape=Shape(B=2, H=16, N=2048, D=128), seed=Knobs.parse_assignments(["compute=mma"]),
                     artifacts=tmp_path / "art", options=SearchOptions(budget=2))
    conn.close()
    res = invoke("baseline", "--backend", "cudnn", "--seqlen", 4096, "--db", db)
    assert res.exit_code == 0, res.output
    assert f"run {rid}'s best" in res.output and "not stored" not in res.output
    conn = open_db(db)
    rows = [e for e in q.history(conn, rid) if e["kind"] == "comparator" and e["lever"].startswith("cudnn@")]
    assert [e["lever"] for e in rows] == ["cudnn@B2-H16-N4096-D128-float16-noncausal"]
