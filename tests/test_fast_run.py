"""The README's search made cheaper, on the H200 (results/2026-12-02_h200_fast_run): each recorded run replays to its
own outcomes with no GPU, and the record's figures (wall time, time per experiment, the nulls with and without a
background build beside them, the final kernel against cuDNN in each run's own comparator row) are read from the
databases as the README states them."""
import json
import sqlite3
import tarfile
from datetime import datetime

import pytest
from recorded import RESULTS, outcomes, replay

REC = RESULTS / "2026-12-02_h200_fast_run"
README = (REC / "README.md").read_text()


def _unpack(name, tmp_path):
    d = tmp_path / name.replace("/", "_")
    with tarfile.open(REC / f"{name}_db.tar.xz") as tf:
        tf.extractall(d, filter="data")
    return d


def _db(d):
    con = sqlite3.connect(f"file:{d / 'fa5090.db'}?immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    return con


@pytest.mark.parametrize("name", ["call1/d128", "call2/d128", "call2/d64r", "call3/n8k", "call4/d128", "call5/d128_resumed"])
def test_each_recorded_run_replays_to_its_own_outcomes(name, tmp_path):
    d = _unpack(name, tmp_path)
    con = _db(d)
    try:
        rows = [dict(r) for r in con.execute("select * from experiments order by id")]
        settings = json.loads(con.execute("select options from runs").fetchone()[0])["bench"]
    finally:
        con.close()
    assert settings["settle"] == "any" and settings["spare"] is True
    _, replayed = replay(d / "fa5090_artifacts" / "run-1" / "recording.jsonl", tmp_path / "r.db")
    assert outcomes(replayed) == outcomes(rows) and len(outcomes(rows)) >= 13


def _run(name, tmp_path):
    con = _db(_unpack(name, tmp_path))
    try:
        run = dict(con.execute("select * from runs").fetchone())
        exps = [dict(r) for r in con.execute("select * from experiments order by id")]
    finally:
        con.close()
    t = datetime.fromisoformat
    counted = [e for e in exps if e["seq"] is not None and e["outcome"]]
    secs = sorted((t(e["finished_at"]) - t(e["started_at"])).total_seconds() for e in counted)
    wall = (t(run["finished_at"]) - t(run["started_at"])).total_seconds()
    nulls = [float(e["detail"].split("t_noise ")[1].split("%")[0]) for e in exps if e["kind"] == "aa_null"]
    cudnn = next(e for e in exps if e["kind"] == "comparator" and e["lever"] == "sdpa_cudnn")
    return run, counted, secs, wall, nulls, cudnn


def test_the_readmes_search_in_five_minutes_and_a_half_from_a_cold_cache(tmp_path):
    run, counted, secs, wall, nulls, cudnn = _run("call2/d128", tmp_path)
    assert run["status"] == "plateau" and len(counted) == 17
    assert round(wall) == 315 and "315 s" in README
    assert secs[len(secs) // 2] == 10.0 and "median 10 s" in README
    kept = [e["lever"] for e in counted if e["outcome"] == "KEPT"]
    assert {"ws_mainloop", "ws_o_by_tma"} <= set(kept)  # it reached the warp-specialised mainloop by itself
    assert f"{1 / cudnn['margin']:.3f}" == "1.013" and "1.013" in README


def test_the_nulls_with_and_without_the_background_build_beside_them(tmp_path):
    *_, before, _ = _run("call1/d128", tmp_path)
    *_, after, _ = _run("call2/d128", tmp_path)
    assert len(before) == len(after) == 5 and all(a < b for a, b in zip(after, before))
    assert (before[-1], after[-1]) == (0.999, 0.474)


@pytest.mark.parametrize("name,vs", [("call2/d128", "1.013"), ("call2/d64r", "1.007"), ("call3/n8k", "0.979")])
def test_each_runs_final_against_cudnn_in_its_own_row(name, vs, tmp_path):
    *_, cudnn = _run(name, tmp_path)
    assert f"{1 / cudnn['margin']:.3f}" == vs and vs in README
