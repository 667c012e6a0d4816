"""The faults record (results/2026-12-02_h200_faults_numerics): the numerics defect rejected through the keep path on
three kernels, the whole battery beside it, and the run whose machine broke under it, read back from the call's output."""
import json
import sqlite3
from pathlib import Path

from experiments.defects import DEFECTS, NUMERICS
from experiments.problem import HOSTILE
from recorded import opened

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-02_h200_faults_numerics" / "call1"


def test_the_numerics_defect_is_rejected_on_three_kernels_by_a_hostile_pattern_and_no_control_is():
    d = json.loads((REC / "numerics_battery.json").read_text())
    assert d["device"]["name"] == "NVIDIA H200" and d["shape"]["dtype"] == "float16"
    rows = [(part, r) for part, p in d["parts"].items() for r in p["rows"]]
    assert all(r["rejected"] == (r["defect"] != "control") for _, r in rows)
    lazy = [r for _, r in rows if r["defect"] == "lazy_overflow"]
    assert len(lazy) == 4 and all(r["outcome"] == "WRONG" for r in lazy)
    # caught only where N(0,1) never looks: a hostile pattern, as NaN/inf in the output
    assert all(r["caught_by"]["pattern"] in HOSTILE and "NaN/inf" in r["caught_by"]["reason"] for r in lazy)
    assert {"wgmma" in r["knobs"] for r in lazy} == {True, False}
    every = {r["defect"] for r in d["parts"]["every planted defect"]["rows"]}
    assert every == {"control", *DEFECTS, *NUMERICS}


def test_the_broken_machine_stopped_the_run_interrupted_with_the_streak_uncounted():
    c = sqlite3.connect(f"file:{opened(REC / 'broken_env' / 'streak.db.gz')}?mode=ro&immutable=1", uri=True)
    status, why = c.execute("select status, stop_reason from runs where id = 1").fetchone()
    assert status == "interrupted" and "experiments 4-5 failed one after another" in why and "not counted" in why
    rows = c.execute("select seq, lever, outcome, detail from experiments where kind in ('lever', 'compound') "
                     "order by id").fetchall()
    assert [r[0] for r in rows if r[2] != "INTERRUPTED"] == [1, 2, 3]
    streak = [r for r in rows if r[2] == "INTERRUPTED"]
    assert [(s, lever) for s, lever, *_ in streak] == [(None, "cp_async"), (None, "smem_epilogue")]
    assert all("ImportError: torch cannot be loaded" in r[3] for r in streak)
    c.close()
    said = (REC / "broken_env" / "run_broken.txt").read_text()
    assert "continue with `fa5090-search run --resume 1`" in said and said.rstrip().endswith("exit 1")


def test_resumed_on_the_mended_machine_it_spent_its_budget():
    said = (REC / "broken_env" / "run_resumed.txt").read_text()
    assert "stopped: budget (budget of 8 experiments spent)" in said and said.rstrip().endswith("exit 0")
    assert "#4 lever cp_async" in said and "#8 lever" in said
    assert "budget of 8 experiments spent" in (REC / "broken_env" / "history_resumed.txt").read_text()
