"""scripts/device_faults.py's judging parts on CPU: the database checks after a kill, the comparison of
a killed-and-resumed run with the uninterrupted one, and the summary's format (so a recorded summary
can be parsed and asserted). Every input here is SYNTHETIC, made up in this file to exercise the
functions; none of it is, or stands in for, a measurement from a GPU. The script itself has not run on
one yet."""
import os
import socket
from pathlib import Path

import pytest

from recorded import load_script
from store import open_db
from store import queries as q

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "device_faults.py"


@pytest.fixture(scope="module")
def df():
    return load_script(SCRIPT)  # importing runs nothing: phases run only from main()


def _row(seq, lever, outcome, margin, kind="lever", key=None):  # a synthetic `history --json` row
    return {"seq": seq, "kind": kind, "lever": lever, "knob_key": key or f"k-{lever}", "outcome": outcome,
            "margin": margin, "finished_at": "synthetic"}


SYNTH_REF = [_row(None, None, None, None, "seed"), _row(None, None, None, 0.999, "aa_null"),
             _row(1, "swizzle", "KEPT", 1.20), _row(2, "exp2", "NULL", 1.001), _row(3, "kv_double_buffer", "KEPT", 1.05),
             _row(None, "sdpa_flash", None, 1.1, "comparator")]


def test_the_same_keeps_with_interrupted_rows_and_a_second_null_between_them(df):
    cut = (SYNTH_REF[:3] + [_row(None, "exp2", "INTERRUPTED", None), _row(None, None, None, 1.0, "aa_null")]
           + SYNTH_REF[3:])
    c = df.compare_runs(SYNTH_REF, cut)
    assert c["same_keeps"] and c["ref_kept"] == c["cut_kept"] == ["swizzle", "kv_double_buffer"]
    assert (c["n_ref"], c["n_cut"], c["outcomes_equal"], c["first_difference"]) == (3, 3, 3, None)
    assert df.verdict_line(c).startswith("same keeps: yes (uninterrupted: swizzle, kv_double_buffer;")
    assert "same keeps: yes" in df.compare_text(c)


def test_a_borderline_decision_that_flips_is_reported_not_assumed(df):
    cut = SYNTH_REF[:3] + [_row(2, "exp2", "KEPT", 1.004), _row(3, "kv_double_buffer", "KEPT", 1.05, key="other")]
    c = df.compare_runs(SYNTH_REF, cut)
    assert not c["same_keeps"] and c["cut_kept"] == ["swizzle", "exp2", "kv_double_buffer"]
    assert c["first_difference"] == 2 and c["moves_equal"] == 2 and c["outcomes_equal"] == 1
    assert df.verdict_line(c).startswith("same keeps: no")
    side = c["side_by_side"][1]
    assert side["ref"] == ["lever", "exp2", "NULL", 1.001] and side["cut"] == ["lever", "exp2", "KEPT", 1.004]


def test_row_checks_find_a_doubled_number_a_lost_row_and_a_changed_outcome(df):
    # rows: id, run_id, seq, kind, lever, knob_key, outcome, margin, finished  (synthetic)
    before = {"rows": [[1, 1, None, "seed", None, "s", None, None, True], [2, 1, 1, "lever", "a", "ka", "NULL", 1.0, True],
                       [3, 1, 2, "lever", "b", "kb", None, None, False]]}
    after = {"rows": before["rows"][:2] + [[3, 1, None, "lever", "b", "kb", "INTERRUPTED", None, True],
                                          [4, 1, 2, "lever", "b", "kb", None, None, False]]}
    r = df.row_checks(after, before)  # the in-flight row marked INTERRUPTED and redone: nothing wrong
    assert (r["doubled"], r["lost"], r["gaps"], r["counted"], len(r["in_flight"])) == ([], [], [], 1, 1)
    doubled = {"rows": after["rows"] + [[5, 1, 1, "lever", "a", "ka", "NULL", 1.0, True]]}
    assert df.row_checks(doubled, before)["doubled"] == [(1, 1)]
    changed = {"rows": [before["rows"][0], [2, 1, 1, "lever", "a", "ka", "KEPT", 1.0, True]]}
    assert [x[0] for x in df.row_checks(changed, before)["lost"]] == [2]
    assert [x[0] for x in df.row_checks({"rows": before["rows"][:1]}, before)["lost"]] == [2]


def test_db_state_reads_a_database_with_a_run_in_flight_and_writes_nothing(df, tmp_path):
    """A synthetic run written by the tool's own store, one experiment in flight, as a kill leaves it."""
    path = tmp_path / "s.db"
    db = open_db(path)
    rid = q.create_run(db, gpu_name="synthetic GPU", problem_key="synthetic", owner_pid=os.getpid(),
                       owner_host=socket.gethostname())
    e = q.start_experiment(db, rid, seq=1, kind="lever", lever="a")
    q.finish_experiment(db, e, outcome="SLOWER", margin=0.9)
    q.start_experiment(db, rid, seq=2, kind="lever", lever="b")
    size = path.stat().st_size
    st = df.db_state(path)
    assert st["integrity"] == ["ok"] and st["runs"][0]["status"] == "running"
    r = df.row_checks(st, None)
    assert (r["counted"], [x[4] for x in r["in_flight"]], r["doubled"]) == (1, ["b"], [])
    assert df.where_killed(st, r["in_flight"]) == "in lever b"
    assert df.done_rows(path) == 1 and path.stat().st_size == size
    assert df.db_state(tmp_path / "none.db") == {"exists": False}


def test_the_summary_round_trips_and_a_cell_cannot_break_its_table(df):
    rows = [{"fault": "hang", "expected": "TIMEOUT", "observed": "TIMEOUT after 1.0 s: a | b", "result": "PASS"},
            {"fault": "same keeps", "expected": "x", "observed": "same keeps: no (synthetic)", "result": "FAIL"}]
    text = df.format_summary(rows, ["synthetic header"])
    assert text.startswith("# synthetic header\n| fault | expected | observed | result |")
    back = df.parse_summary(text)
    assert [r["result"] for r in back] == ["PASS", "FAIL"] and back[0]["observed"] == "TIMEOUT after 1.0 s: a / b"
    with pytest.raises(ValueError):
        df.parse_summary("| hang | TIMEOUT | TIMEOUT | MAYBE |")


def test_missing_phases_are_not_run_rows_and_no_kill_proves_nothing(df):
    rows = df.fault_rows("hang", None) + df.kill_rows(None, None, None, 20)
    assert {r["result"] for r in rows} == {"NOT RUN"}
    # a synthetic kills record with no kill at all: the per-kill checks say NOT RUN, not PASS
    kills = {"cycles": [], "final": {"status": "budget", "ended_in_cycle": 1}, "final_rows": {}, "final_integrity": ["ok"]}
    got = {r["fault"]: r["result"] for r in df.kill_rows({"status": "budget", "wall_s": 1, "counted": 3}, kills, None, 20)}
    assert got["SIGKILL x20 at random moments"] == "FAIL"
    assert got["integrity after each kill"] == got["no process of ours left after a kill"] == "NOT RUN"
    assert got["same keeps"] == "NOT RUN"


def test_fault_rows_judge_the_outcome_the_gpu_freed_and_the_next_candidate(df):
    rec = {"outcome": "TIMEOUT", "seconds": 60.2, "detail": "child process exceeded its deadline during c1",
           "timeout_s": 60.0, "tool_timeout_s": 151.5, "shortened": True,
           "left_behind": {"procs": [], "gpu_new": []},
           "control": {"outcome": "NULL", "margin": 1.0002, "seconds": 9.0}}  # synthetic
    rows = df.fault_rows("hang", rec)
    assert [r["result"] for r in rows] == ["PASS", "PASS", "PASS"]
    assert "shorter than the tool's own 151.5 s" in rows[0]["expected"]
    rec = {**rec, "outcome": "CRASH", "left_behind": {"procs": ["123 (python3 -m experiments.worker)"], "gpu_new": []},
           "control": {"outcome": "TIMEOUT", "margin": None, "seconds": 151.0}}
    assert [r["result"] for r in df.fault_rows("hang", rec)] == ["FAIL", "FAIL", "FAIL"]
    side = df.fault_rows("side_stream", {**rec, "outcome": "SUSPICIOUS", "shortened": False})
    assert side[0]["result"] == "PASS" and side[0]["expected"] == "WRONG or SUSPICIOUS"


def test_the_hang_gets_the_tools_deadline_when_it_fits_else_what_fits_else_none(df):
    assert df.hang_deadline(151.5, "tool", 400) == (151.5, False)
    assert df.hang_deadline(151.5, "tool", 150) == (110, True)  # 40 s kept for the next candidate and the record
    assert df.hang_deadline(151.5, "tool", 60) == (None, True)
    assert df.hang_deadline(151.5, "60", 400) == (60.0, True)


def _stamp(s: int) -> str:  # a synthetic ISO timestamp s seconds into a day
    return f"2026-11-30T16:{s // 60:02d}:{s % 60:02d}+00:00"


def test_ref_timing_counts_the_gaps_before_experiments_as_builds(df):
    """The loop builds the candidates' figures between a row's end and the next experiment's start; a
    null, re-anchor or comparator row is written when it ends (started = finished). Synthetic rows."""
    rows = [{"id": 1, "kind": "seed", "started_at": _stamp(10), "finished_at": _stamp(10)},
            {"id": 2, "kind": "aa_null", "started_at": _stamp(40), "finished_at": _stamp(40)},
            {"id": 3, "kind": "compound", "started_at": _stamp(86), "finished_at": _stamp(96)},  # 46 s of builds
            {"id": 4, "kind": "aa_null", "started_at": _stamp(120), "finished_at": _stamp(120)},
            {"id": 5, "kind": "lever", "started_at": _stamp(133), "finished_at": _stamp(145)},  # 13 s
            {"id": 6, "kind": "lever", "started_at": _stamp(145), "finished_at": _stamp(150)},  # none
            {"id": 7, "kind": "comparator", "started_at": _stamp(156), "finished_at": _stamp(156)},
            {"id": 8, "kind": "lever", "started_at": _stamp(160), "finished_at": None}]  # in flight: not counted
    t = df.ref_timing(rows, 160.0)
    assert t == {"rows": 7, "build_s": 59.0, "warm_s": 101.0}
    assert df.ref_timing([], 100.0) == {"rows": 0, "build_s": 0.0, "warm_s": 100.0}


def test_the_final_resume_is_reserved_the_warm_run_for_the_part_left(df):
    warm = 157.0
    full, half = df.reserve_s(warm, 0.0), df.reserve_s(warm, 0.5)
    assert full == pytest.approx(df.STARTUP_S + df.RESERVE_FACTOR * (warm - df.STARTUP_S) + df.FINAL_SLACK_S)
    assert half < full and df.reserve_s(warm, 1.0) == df.reserve_s(warm, 0.9) > df.STARTUP_S + df.FINAL_SLACK_S
    # the first battery's run (results/2026-11-30_h200_tma_pipeline_tier; synthetic restatement of its recorded times): a 241 s reference, 84 s of it builds; the
    # final resume from scratch took 148 s, and the old reservation was 1.3 x 241 + 20 = 333 s
    assert 148 < df.reserve_s(241 - 84, 0.0) < 333


def test_plan_kills_says_how_many_fit_and_why(df):
    # that run's numbers: 218 s left after a 241 s reference (84 s of builds, 12 rows)
    p = df.plan_kills(218, 241, 84, 20, 12)
    assert 0 < p["fit"] < 20 and "of 20 kills fit" in p["why"] and "84 s of it building" in p["why"]
    # more time: more kills, never more than wanted; each kill costs at least its delay and the checks
    more = df.plan_kills(2000, 241, 84, 20, 12)
    assert more["fit"] == 20 and more["need_all_s"] <= 2000
    assert more["plain_cycle_s"] == pytest.approx((0.5 + 8) / 2 + df.BOOK_S)
    assert more["row_cycle_s"] == pytest.approx(more["plain_cycle_s"] + df.STARTUP_S + more["row_s"])
    assert df.plan_kills(10, 241, 84, 20, 12)["fit"] == 0
    # the plan is monotone in the time left
    fits = [df.plan_kills(left, 241, 84, 20, 12)["fit"] for left in range(0, 700, 25)]
    assert fits == sorted(fits)


def test_the_default_run_plausibly_fits_twenty_kills_in_a_560_s_call(df):
    """`PHASES="build ref kills" TOTAL=560`: 540 s before packing, ~15 s for the wheel install and the
    build phase. The old run (the first battery's reference: 241 s, 84 s of builds, 12 rows) leaves room for
    a handful of kills; the default run now (estimated: ~140 s, ~60 s of builds, ~7 rows) for 20."""
    assert "--budget 2 " in df.RUN_ARGS and "--aa-repeats 3" in df.RUN_ARGS or os.environ.get("FAULTS_RUN_ARGS")
    assert df.plan_kills(540 - 15 - 241, 241, 84, 20, 12)["fit"] < 10
    assert df.plan_kills(540 - 15 - 140, 140, 60, 20, 7)["fit"] == 20
