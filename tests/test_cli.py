"""The CLI through typer's CliRunner; `run` replays the H200 run's recording (no GPU)."""

import json

import pytest
from typer.testing import CliRunner

from agent.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def replayed(run2, tmp_path):
    db = tmp_path / "replay.db"
    # recorded before periodic re-anchors existed: it re-anchored only at the end
    res = invoke("run", "--budget", 12, "--reanchor-every", 0, "--replay", run2 / "recording.jsonl", "--db", db)
    assert res.exit_code == 0, res.output
    return db, res.output


def test_replay_reaches_the_recorded_decisions(replayed):
    db, out = replayed
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    counted = [(r["kind"], r["lever"], r["outcome"]) for r in rows if r["seq"]]
    assert counted == [
        ("lever", "tensor_cores", "KEPT"), ("lever", "swizzle", "KEPT"), ("lever", "cp_async", "KEPT"),
        ("lever", "exp2", "KEPT"), ("lever", "narrow_kv_tile", "SLOWER"), ("lever", "tall_q_tile", "SLOWER"),
        ("lever", "padding", "KEPT"), ("rescreen", "narrow_kv_tile", "SLOWER"), ("rescreen", "tall_q_tile", "SLOWER"),
        ("lever", "swizzle", "SLOWER"),
    ]
    kinds = [r["kind"] for r in rows]
    assert kinds[:2] == ["seed", "aa_null"] and kinds[-2:] == ["reanchor", "comparator"]
    # each experiment's prediction was written, and each keep cleared t_keep
    for r in rows:
        if r["seq"]:
            assert r["predicted_lo"] < r["predicted_hi"]
        if r["outcome"] == "KEPT":
            assert r["margin"] > 1.0005
    assert "stopped: plateau" in out


def test_the_final_kernel_beside_seed_and_sdpa(replayed):
    db, out = replayed
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    anchor = next(r for r in rows if r["kind"] == "reanchor")
    sdpa = next(r for r in rows if r["kind"] == "comparator")
    assert anchor["tflops_cand"] > 20 * anchor["tflops_base"]
    assert sdpa["tflops_cand"] > sdpa["tflops_base"]  # SDPA flash is still faster: an honest negative
    assert "SDPA flash" in out and "final" in out


def test_shelf_and_rescreen_statuses(replayed):
    db, _ = replayed
    shelf = json.loads(invoke("shelf", "--json", "--db", db).output)
    status = [(s["lever"], s["status"]) for s in shelf]
    assert status == [("narrow_kv_tile", "rescreened"), ("tall_q_tile", "rescreened"), ("narrow_kv_tile", "shelved"),
                      ("tall_q_tile", "shelved"), ("swizzle", "shelved")]
    first = shelf[0]["conditions"]
    assert first == {"registers": 186, "smem_per_cta": 49152, "ctas_per_sm": 2, "warps_per_sm": 8, "diagnosis": "occupancy_limited"}
    assert shelf[2]["conditions"]["smem_per_cta"] == 52224  # the padding keep changed it: the trigger
    text = invoke("shelf", "--db", db, "--status", "shelved").output
    assert "swizzle" in text and "rescreened" not in text


def test_show_one_experiment(replayed):
    db, _ = replayed
    e = json.loads(invoke("show", 3, "--json", "--db", db).output)
    assert e["lever"] == "tensor_cores" and e["outcome"] == "KEPT"
    assert {m["kind"] for m in e["measurements"]} >= {"build", "c1", "c2", "paired"}
    assert e["diagnosis"]["label"] == "smem_bank_conflicts"
    text = invoke("show", 3, "--db", db).output
    assert "compute" in text and "scalar -> mma" in text and "smem_bank_conflicts" in text


def test_a_foreign_problem_is_refused(replayed, run2):
    db, _ = replayed
    res = invoke("run", "--budget", 3, "--seqlen", 4096, "--replay", run2 / "recording.jsonl", "--db", db)
    assert res.exit_code == 1
    assert "recorded on NVIDIA H200 for problem B2-H16-N2048" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("args, words, code", [
    (("run", "--budget", 0), "Invalid value for '--budget'", 2),
    (("run", "--seed-knob", "tiles=3"), "unknown knob 'tiles'", 1),
    (("run", "--seed-knob", "compute=tensor"), "knob 'compute' cannot be 'tensor'", 1),
    (("run", "--head-dim", 96), "Invalid value for '--head-dim'", 2),  # a choice: the same usage error everywhere
    (("history", "--db", "/nonexistent/x.db"), "There is no database", 1),
    (("show", 99), "There is no database", 1),
    (("run", "--replay", "/nonexistent/rec.jsonl"), "no recording", 1),
    (("run", "--exclude-lever", "fast_math"), "unknown lever 'fast_math'", 2),  # bad input: a usage error
])
def test_bad_input_is_one_sentence_and_a_nonzero_exit(args, words, code):
    res = invoke(*args)
    assert res.exit_code == code, res.output
    assert words in res.output
    assert "Traceback" not in res.output


def test_unknown_experiment(replayed):
    db, _ = replayed
    res = invoke("show", 999, "--db", db)
    assert res.exit_code == 1 and "999" in res.output


def test_levers_listing_and_help():
    out = json.loads(invoke("levers", "--json").output)
    assert {lv["name"] for lv in out} >= {"tensor_cores", "swizzle", "cp_async", "exp2", "padding"}
    by = {lv["name"]: lv for lv in out}
    assert by["ws_mainloop_short_items"]["max_seqlen"] == 2048 and by["ws_mainloop"]["max_seqlen"] is None
    # the table says on which problems a lever is proposed, where not on every one
    from agent import levers
    assert levers.get("ws_mainloop_short_items").problems() == "N <= 2048"
    assert levers.get("ws_snake_rounds").problems() == "causal only"
    assert levers.get("ws_pv_wide").problems() == "D 128" and levers.get("swizzle").problems() == ""
    assert levers.get("ws_idle_tail_tile_major").problems() == \
        "non-causal only, N that leaves the last query tile a warpgroup short"
    table = runner.invoke(app, ["levers"], env={"COLUMNS": "2000"}).output
    assert "[N <= 2048]" in table and "[causal only]" in table
    for cmd in ("run", "doctor", "history", "show", "shelf", "rescreen"):
        res = invoke(cmd, "--help")
        assert res.exit_code == 0 and "Usage" in res.output


def test_a_replay_that_diverges_says_so(run2, tmp_path):
    res = invoke("run", "--budget", 3, "--seed-knob", "exp=ex2", "--replay", run2 / "recording.jsonl", "--db", tmp_path / "d.db")
    assert res.exit_code == 1 and "has no answer" in res.output




def test_replay_of_the_calibrated_run_with_the_full_keep_protocol(tmp_path):
    """results/2026-11-30_h200_instrument: the run read calibration 1 (t_keep 1.0029), every keep
    was replicated in a fresh process, and it re-anchored after 3 keeps and at the end."""
    from pathlib import Path

    rec = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_instrument" / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    db = tmp_path / "inst.db"
    res = invoke("run", "--budget", 10, "--replay", rec, "--db", db)
    assert res.exit_code == 0, res.output
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    kept = [r for r in rows if r["outcome"] == "KEPT"]
    assert [r["lever"] for r in kept] == ["tensor_cores", "swizzle", "cp_async", "exp2", "padding"]
    assert all("replicate" in r["detail"] and "AB/BA agree" in r["detail"] for r in kept)
    anchors = [r for r in rows if r["kind"] == "reanchor"]
    assert len(anchors) == 2 and all(": consistent" in r["detail"] for r in anchors)
    from store import queries as q
    from store.db import open_db

    d = open_db(db)
    run = q.get_run(d, 1)
    assert run["calibration_id"] is not None and run["t_keep"] == pytest.approx(1.0029, abs=1e-4)
    assert q.get_calibration(d, run["calibration_id"])["false_keeps"] == 0


def test_screen_mode_measures_levers_against_a_fixed_seed(tmp_path):
    """--screen on the calibrated H200 run's recording: the first lever is measured against the
    seed and the seed stays the base (no re-anchor, no comparator; a table, not a climb)."""
    from pathlib import Path

    rec = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_instrument" / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    db = tmp_path / "s.db"
    res = invoke("run", "--screen", "--budget", 1, "--replay", rec, "--db", db)
    assert res.exit_code == 0, res.output
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    assert [(r["kind"], r["lever"], r["outcome"]) for r in rows] == [("seed", None, None), ("lever", "tensor_cores", "KEPT")]
    assert rows[1]["base_knobs"] == rows[0]["knobs"]
