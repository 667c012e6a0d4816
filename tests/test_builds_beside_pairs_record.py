"""Pipelined pairs beside a compile load on the H200 (results/2026-12-03_h200_builds_beside_pairs): every pair's
margins beside the load lie within its quiet processes' spread, so background builds are not stopped while a job
times a pair (experiments.lab.Lab.quiet_pairs=False)."""
import inspect
import json
import statistics

from experiments.lab import Lab
from recorded import RESULTS

HERE = RESULTS / "2026-12-03_h200_builds_beside_pairs"


def _rows(cond):
    by = {}
    for r in json.loads((HERE / "call1" / f"{cond}.json").read_text())["rows"]:
        by.setdefault((r["shape"], r["base"], r["cand"]), []).append(r)
    return by


def test_each_pair_reads_beside_the_load_as_it_does_quiet():
    quiet, loaded = _rows("quiet"), _rows("loaded")
    assert set(quiet) == set(loaded) and len(quiet) == 4
    for key, q in quiet.items():
        ld = loaded[key]
        assert len(q) == len(ld) == 3
        mq, ml = statistics.mean(r["margin"] for r in q), statistics.mean(r["margin"] for r in ld)
        spread = max(r["margin"] for r in q) - min(r["margin"] for r in q)
        assert abs(ml - mq) <= max(spread, 0.001), key
        assert max(abs(r["margin_ab"] - r["margin_ba"]) for r in ld) <= 0.0025, key
        if key[1] == key[2]:  # A/A
            assert all(abs(r["margin"] - 1) < 0.0015 for r in q + ld)
    assert "64 of 64 built" in (HERE / "call1" / "load.txt").read_text()  # the load compiled throughout
    table = (HERE / "table.txt").read_text()
    assert "(0.9944) | 0.9957 0.9938 0.9954 (0.9950) | +0.0006" in table


def test_the_lab_leaves_background_builds_running_unless_asked():
    assert inspect.signature(Lab).parameters["quiet_pairs"].default is False
