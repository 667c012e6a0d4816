"""The README's run with the lazy null on the H200 (results/2026-12-02_h200_lazy_null): it replays to its own outcomes
with no GPU, and what its README states is read from its database: two nulls where the eager runs measured five,
every experiment the band judged decided outside the band, the null measured before the first that needed it, the
wall time, and its final paired against the fast-run record's final."""
import json
import sqlite3
import tarfile
from datetime import datetime

from recorded import RESULTS, outcomes, replay

REC = RESULTS / "2026-12-02_h200_lazy_null" / "call1"


def _unpack(tmp_path):
    with tarfile.open(REC / "d128_db.tar.xz") as tf:
        tf.extractall(tmp_path / "d", filter="data")
    return tmp_path / "d"


def _rows(d):
    con = sqlite3.connect(f"file:{d / 'fa5090.db'}?immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    try:
        run = dict(con.execute("select * from runs").fetchone())
        return run, [dict(r) for r in con.execute("select * from experiments order by id")]
    finally:
        con.close()


def test_the_lazy_run_replays_to_its_own_outcomes(tmp_path):
    d = _unpack(tmp_path)
    run, rows = _rows(d)
    assert json.loads(run["options"])["search"]["lazy_null"] is True
    _, replayed = replay(d / "fa5090_artifacts" / "run-1" / "recording.jsonl", tmp_path / "r.db")
    assert outcomes(replayed) == outcomes(rows) and len(outcomes(rows)) == 20


def test_two_nulls_and_what_the_band_judged_lay_outside_it(tmp_path):
    run, rows = _rows(_unpack(tmp_path))
    nulls = [e for e in rows if e["kind"] == "aa_null"]
    assert len(nulls) == 2 and "the seed, before any result" in nulls[0]["detail"]
    assert "experiment 7 is predicted within the band" in nulls[1]["detail"]
    nxt = rows[rows.index(nulls[1]) + 1]
    assert (nxt["seq"], nxt["lever"], nxt["outcome"]) == (7, "unrolled_copies", "KEPT")  # a simplification: null first
    banded = [e for e in rows if "judged with the band" in (e["detail"] or "")]
    assert [e["seq"] for e in banded] == [2, 3, 4, 5, 6]
    assert all(e["margin"] >= 1.02 or e["margin"] <= 0.98 for e in banded)
    t = datetime.fromisoformat
    wall = (t(run["finished_at"]) - t(run["started_at"])).total_seconds()
    assert run["status"] == "budget" and 340 <= wall <= 350


def test_its_final_paired_against_the_fast_run_records_final():
    lines = [json.loads(ln) for ln in (REC / "pair.txt").read_text().splitlines() if ln.startswith("{")]
    margins = [round(x["steps"]["a_vs_b"]["margin"], 4) for x in lines]
    assert margins == [0.9926, 0.9918]  # B (this run's final) is 0.8% slower than A (the fast run's)
    assert all(abs(x["steps"][k]["margin"] - 1) < 0.002 for x in lines for k in ("aa_a", "aa_b"))
