"""The README's run again on the H200, now with each figures step's build wait recorded
(results/2026-12-02_h200_figures_wait): it replays to its own outcomes with no GPU, and what its README states is read
from its database: the wall time and the median experiment, the build waits, the final against the fast-run record's
final, and the run's own cuDNN row."""
import json
import sqlite3
import statistics
import tarfile

import pytest
from datetime import datetime

from recorded import RESULTS, outcomes, replay

HERE = RESULTS / "2026-12-02_h200_figures_wait"
REC = HERE / "call1"
t = datetime.fromisoformat


def _db(tmp_path, rec=REC):
    with tarfile.open(rec / "d128_db.tar.xz") as tf:
        tf.extractall(tmp_path / "d", filter="data")
    d = tmp_path / "d"
    con = sqlite3.connect(f"file:{d / 'fa5090.db'}?immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    return d, con


@pytest.mark.parametrize("call", ["call1", "call2"])
def test_the_run_replays_to_its_own_outcomes(tmp_path, call):
    d, con = _db(tmp_path, HERE / call)
    try:
        rows = [dict(r) for r in con.execute("select * from experiments order by id")]
    finally:
        con.close()
    _, replayed = replay(d / "fa5090_artifacts" / "run-1" / "recording.jsonl", tmp_path / "r.db")
    assert outcomes(replayed) == outcomes(rows) and len(outcomes(rows)) == 17


@pytest.mark.parametrize("call, wall_s, waits_s, cudnn", [("call1", (255, 262), (90, 98), 1.0053),
                                                        ("call2", (286, 293), (102, 110), 1.0040)])
def test_wall_median_and_the_build_waits(tmp_path, call, wall_s, waits_s, cudnn):
    _, con = _db(tmp_path, HERE / call)
    try:
        run = dict(con.execute("select * from runs").fetchone())
        exps = [dict(r) for r in con.execute("select * from experiments order by id")]
        counted = [e for e in exps if e["seq"] is not None and e["outcome"]]
        waits = [json.loads(r[0]).get("figures_s") for e in counted for r in con.execute(
            "select payload from measurements where experiment_id = ? and kind = 'timing'", (e["id"],))]
    finally:
        con.close()
    wall = (t(run["finished_at"]) - t(run["started_at"])).total_seconds()
    assert run["status"] == "plateau" and wall_s[0] <= wall <= wall_s[1]  # under the 300 s
    med = statistics.median((t(e["finished_at"]) - t(e["started_at"])).total_seconds() for e in counted)
    assert 6.5 <= med <= 7.5  # under its 15 s
    waits = [w for w in waits if w is not None]
    assert len(waits) == 17 and waits_s[0] <= sum(waits) <= waits_s[1] and max(waits) < 21
    assert sum(e["kind"] == "aa_null" for e in exps) == 2
    row = next(e for e in exps if e["kind"] == "comparator" and e["lever"] == "sdpa_cudnn")
    assert round(row["margin"], 4) == cudnn  # cuDNN 0.4-0.5% faster than the run's final in its own row


@pytest.mark.parametrize("call", ["call1", "call2"])
def test_its_final_is_the_fast_run_records_final_and_pairs_within_the_null(call):
    pair = json.loads((HERE / call / "pair.json").read_text())
    assert pair["a"]["knobs"] == pair["b"]["knobs"]
    margins = [p["steps"]["a_vs_b"]["margin"] for p in pair["processes"]]
    assert len(margins) == 2 and all(abs(m - 1) < 0.001 for m in margins)
