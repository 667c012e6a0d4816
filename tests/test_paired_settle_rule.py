"""The sequential rule that ends a paired measurement early (experiments.timing.settle_reason), replayed over every
paired stream the committed H200 databases hold, in the order it was measured. Rule "non_keep": no keep stopped, no
SLOWER read as NULL or the other way round (results/2026-12-02_cpu_settle_replay). Rule "any" (a keep-side reading
stops too) and "replicate" (a keep's second pair, against t_keep alone): no non-keep settled as a keep, no replicate
decided the other way round, no A/A stream settled as a keep (results/2026-12-02_cpu_settle_keeps)."""
import json
import math
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest
from recorded import opened

from experiments.timing import (MIN_ALTERNATIONS, SETTLE_ALPHA, SETTLE_EVERY, median_interval, paired,
                                settle_reason)

ROOT = Path(__file__).resolve().parents[1]


def _k_by_counting(n: int, alpha: float) -> int:
    """The largest k with P(Binomial(n, 1/2) <= k - 1) <= alpha / 2, at least 1."""
    return max([1] + [k for k in range(1, n // 2 + 1) if sum(math.comb(n, j) for j in range(k)) / 2 ** n <= alpha / 2])


@pytest.mark.parametrize("n", [10, 11, 20, 41, 100, 400])
def test_the_interval_is_the_order_statistics_the_binomial_gives(n):
    lo, hi = median_interval([float(x) for x in range(n)])
    k = _k_by_counting(n, SETTLE_ALPHA)
    assert (int(lo), int(hi)) == (k - 1, n - k)


def test_only_a_settled_non_keep_stops():
    assert settle_reason([0.5] * 9, 0.01, 1.01) is None  # fewer than the minimum: never
    assert settle_reason([0.5] * 10, 0.01, 1.01).startswith("settled SLOWER")
    assert settle_reason([0.999] * 12, 0.01, 1.01).startswith("settled NULL")
    assert settle_reason([1.05] * 40, 0.01, 1.01) is None  # a keep takes its whole budget
    assert settle_reason([0.985, 0.995] * 20, 0.01, 1.01) is None  # straddles 1 - t_noise


def _committed_rows(sql: str):
    """(database, row) for `sql` over every committed H200 database, opened immutable (one without the tables
    asked for yields nothing)."""
    dbs = subprocess.run(["git", "ls-files", "results/*.db", "results/**/*.db", "results/*.db.gz", "results/**/*.db.gz"],
                         cwd=ROOT, capture_output=True, text=True).stdout.split()
    for d in dbs:
        con = sqlite3.connect(f"file:{opened(ROOT / d)}?immutable=1", uri=True)
        try:
            rows = con.execute(sql).fetchall()
        except sqlite3.Error:
            rows = []
        finally:
            con.close()
        for row in rows:
            yield d, row


def _recorded_streams():
    for d, (outcome, detail, payload) in _committed_rows(
            "select e.outcome, e.detail, m.payload from experiments e join measurements m on m.experiment_id = e.id "
            "where m.kind = 'paired' and e.kind in ('lever', 'compound', 'rescreen', 'sampled') order by m.id"):
        p = json.loads(payload)
        tn = tk = None
        if m := re.search(r"<= 1 - t_noise \(([0-9.]+)\)", detail or ""):
            tn = 1 - float(m[1])
        if m := re.search(r"within the A/A null \(t_noise ([0-9.]+)%\)", detail or ""):
            tn = float(m[1]) / 100
        if m := re.search(r"t_keep ([0-9.]+)", detail or ""):
            tk = float(m[1])
        if p.get("ratios") and (tn is not None or tk is not None):
            yield d, outcome, tn if tn is not None else tk - 1, tk if tk is not None else 1 + tn, p["ratios"]


def test_replayed_over_every_recorded_pair_the_rule_changes_no_outcome():
    n = saved = total = settled = 0
    for d, outcome, tn, tk, ratios in _recorded_streams():
        n += 1
        total += len(ratios)
        for i in range(MIN_ALTERNATIONS, len(ratios) + 1, SETTLE_EVERY):
            why = settle_reason(ratios[:i], tn, tk)
            if why:
                settled += 1
                saved += len(ratios) - i
                assert outcome != "KEPT", (d, ratios[:i])
                assert why.split()[1] == outcome, (d, outcome, why)
                break
    assert n >= 500 and settled >= 200  # the committed runs hold 598 such streams; 270 settle early
    assert saved / total > 0.3


@pytest.mark.parametrize("pipelined", [True, False])
def test_the_timing_loop_stops_at_the_settled_point(monkeypatch, pipelined):
    """experiments.timing.paired with `settle` stops at the first check that settles (a fake CUDA clock), pipelined
    pairs and synchronised ones."""
    import sys
    import types

    class Ev:
        def __init__(self, **_):
            self.t = 0.0

        def record(self):
            self.t = clock[0]

        def elapsed_time(self, other):
            return other.t - self.t

        def synchronize(self):
            pass

    clock = [0.0]
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(Event=Ev, synchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "torch", fake)

    def run(ms):
        def f():
            clock[0] += ms
        return f
    r = paired(run(1.0), run(2.0), budget_s=5.0, settle=(0.01, 1.01), lead_ms=0, pipelined=pipelined)
    assert r.alternations == MIN_ALTERNATIONS and r.settled.startswith("settled SLOWER")
    r = paired(run(1.0), run(1.0), budget_s=0.05, settle=(0.01, 1.01), lead_ms=0, pipelined=pipelined)
    assert r.settled.startswith("settled NULL")
    r = paired(run(2.0), run(1.0), budget_s=0.05, settle=(0.01, 1.01), lead_ms=0, pipelined=pipelined)
    assert r.settled is None and r.margin == pytest.approx(2.0)
    r = paired(run(2.0), run(1.0), budget_s=5.0, settle=(0.01, 1.01), settle_rule="any", lead_ms=0, pipelined=pipelined)
    assert r.alternations == MIN_ALTERNATIONS and r.settled.startswith("settled KEEP-side")


def test_the_keep_side_and_replicate_rules():
    assert settle_reason([1.05] * 10, 0.01, 1.01, rule="any").startswith("settled KEEP-side")
    assert settle_reason([1.05] * 9, 0.01, 1.01, rule="any") is None
    # the interval above t_keep but the BA half below 1: the keep gate would call the halves disagreeing
    assert settle_reason([1.2, 0.99] * 10 + [1.2] * 10, 0.01, 1.01, rule="any") is None
    assert settle_reason([0.5] * 10, 0.01, 1.01, rule="any").startswith("settled SLOWER")
    assert settle_reason([1.05] * 10, 0.01, 1.01, rule="replicate").startswith("settled REPLICATED")
    assert settle_reason([1.0] * 10, 0.01, 1.01, rule="replicate").startswith("settled NOT-REPLICATED")
    assert settle_reason([1.0, 1.02] * 10, 0.01, 1.01, rule="replicate") is None  # straddles t_keep


def _aa_streams():
    for d, (payload,) in _committed_rows("select payload from measurements where kind = 'aa' order by id"):
        p = json.loads(payload)
        if p.get("ratios"):
            yield d, p["ratios"]


def _first_settled(ratios, *args, rule):
    for i in range(MIN_ALTERNATIONS, len(ratios) + 1, SETTLE_EVERY):
        why = settle_reason(ratios[:i], *args, rule=rule)
        if why:
            return why, i
    return None, len(ratios)


def test_replayed_over_every_recorded_pair_the_keep_side_rule_keeps_only_keeps():
    keeps = settled = n = 0
    for d, outcome, tn, tk, ratios in _recorded_streams():
        n += 1
        why, _ = _first_settled(ratios, tn, tk, rule="any")
        keeps += outcome == "KEPT"
        if why and why.split()[1] == "KEEP-side":
            settled += 1
            assert outcome == "KEPT", (d, outcome, why)
        elif why:
            assert why.split()[1] == outcome, (d, outcome, why)
        # the replicate rule on the same stream decides as its whole median does
        why, _ = _first_settled(ratios, tn, tk, rule="replicate")
        if why:
            import statistics
            assert (why.split()[1] == "REPLICATED") == (statistics.median(ratios) >= tk), (d, why)
    assert n >= 500 and keeps >= 250 and settled >= 0.9 * keeps  # 279 of the 281 recorded keeps settle early


@pytest.mark.parametrize("t_keep", [1.005, 1.01, 1.02])
def test_no_recorded_aa_stream_settles_as_a_keep(t_keep):
    streams = list(_aa_streams())
    assert len(streams) >= 500  # 639 A/A pairs with their ratios
    for d, ratios in streams:
        why, _ = _first_settled(ratios, t_keep - 1, t_keep, rule="any")
        assert not (why and why.split()[1] == "KEEP-side"), (d, why)
