"""The race at B2 H16 N2048 D128 and N8192 D64 fp16 and causal B8 H32/8 N1024 D128 bf16
(results/2026-12-04_h200_race): random search and TPE from the naive seed, budget 20, the agent's timer and keep gate,
three RNG seeds each on the H200, sweeps, and the agent of policies 18, 19 and 20 (policy 20 also at B16 H16 N512
D64). Each complete run replayed from its own recording draws the same candidates (or, for the agent, proposes the
same levers), reaches the outcomes and margins the device printed, and ends at the same comparator rows; the race
table reads each run's closing line."""
import json
import os
import re
from pathlib import Path

import pytest
from recorded import RESULTS, load_script, outcomes, printed_history, replay, unpack_recording

HERE = RESULTS / "2026-12-04_h200_race"
RUNS = ["call1/d128_random_1", "call1/d128_random_2", "call1/d128_random_3", "call3/d128_tpe_1", "call6/d128_tpe_2",
        "call4/d128_tpe_3", "call5/d64_random_1", "call5/d64_random_2", "call5/d64_random_3",
        "call8/gqa_random_1", "call9/gqa_random_2", "call9/gqa_random_3",
        "call10/gqa_tpe_1", "call10/gqa_tpe_2", "call10/gqa_tpe_3",  # from here TPE drew constructively
        "call13/d64_tpe_1", "call13/d64_tpe_2", "call14/d64_tpe_3"]
# interrupted by its call's limit after its 20th experiment and finished by `run --resume` in the next call, whose
# output (<name>_resume.txt) prints the whole history and the closing line
RESUMED = {"call10/gqa_tpe_1": "call9/gqa_tpe_1", "call12/d128_agent_2": "call11/d128_agent_2"}
UNIFORM = {"call3/d128_tpe_1", "call6/d128_tpe_2", "call4/d128_tpe_3"}  # tens of thousands of asks a replay
# The three uniform TPE runs take one code path (rejection of invalid draws, 65-95 s of optuna's asks each on a CI core);
# one of them replays by default, all three with FA5090_FULL_REPLAY=1.
FULL_REPLAY = os.environ.get("FA5090_FULL_REPLAY") == "1"
REPLAYED_ALWAYS = "call3/d128_tpe_1"


def _text(run: str) -> Path:
    return HERE / (f"{run}_resume.txt" if run in RESUMED else f"{run}.txt")


def _printed(path: Path) -> tuple[list[tuple], dict]:
    """(outcome, margin) of every sampled experiment in the history table the device printed, and the comparator
    rows' margins by backend."""
    rows, comparators = [], {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) > 6 and cells[0].isdigit():
            if cells[2] == "sample":
                rows.append((cells[4], float(cells[5])))
            elif cells[2] == "comparator":
                comparators[cells[3]] = float(cells[5])
    return rows, comparators


def _param(run: str):
    if run not in UNIFORM:
        return run
    if run == REPLAYED_ALWAYS or FULL_REPLAY:
        return pytest.param(run, marks=pytest.mark.first)
    return pytest.param(run, marks=pytest.mark.skip(reason=f"uniform TPE as {REPLAYED_ALWAYS}; FA5090_FULL_REPLAY=1"))


@pytest.mark.parametrize("run", [_param(r) for r in RUNS])
def test_each_run_replays_to_what_the_device_printed(run, tmp_path_factory):
    rows_printed, comparators = _printed(_text(run))
    assert len(rows_printed) == 20
    rec = unpack_recording(tmp_path_factory, HERE / f"{run}_db.tar.xz", "fa5090_artifacts/run-1/recording.jsonl")
    out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
    assert [(r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] == "sample"] == rows_printed
    replayed = {r["lever"]: round(r["margin"], 4) for r in rows if r["kind"] == "comparator"}
    assert replayed == comparators and set(comparators) == {"sdpa_flash", "sdpa_cudnn"}
    closing = re.search(r"^summary: .*$", _text(run).read_text(), re.M).group(0)
    assert closing.split("; final kernel")[0] in out


def test_the_agent_at_causal_gqa_replays_to_what_the_device_printed(tmp_path_factory):
    """Policy 18 from the naive seed: 17 experiments, then the plateau; the warp-specialised mainloop measured
    alone from the barrier kernel at 0.8992 (#14) and shelved, the run's final on the barrier kernel."""
    run = "call8/gqa_agent_1"
    rec = unpack_recording(tmp_path_factory, HERE / f"{run}_db.tar.xz", "fa5090_artifacts/run-1/recording.jsonl")
    out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
    printed = printed_history(HERE / f"{run}.txt")
    assert outcomes(rows) == printed and len(printed) == 17
    assert ("ws_mainloop", "SLOWER", 0.8992) in printed
    assert sum(o == "KEPT" for _, o, _ in printed) == 10
    comparators = {r["lever"]: round(r["margin"], 4) for r in rows if r["kind"] == "comparator"}
    assert comparators == _printed(HERE / f"{run}.txt")[1]
    assert "stopped: plateau" in out


def test_policy_19_at_causal_gqa_replays_to_what_the_device_printed(tmp_path_factory):
    """Policy 19 from the naive seed: the budget's 20 experiments, 13 kept. The asks follow policy 18's run until the
    14th, which a narrow-tile compound took (0.6613), then the two-warpgroup mainloop with Q and O by TMA (#15, kept at
    1.1045), the wide PV (1.0426) and P packed mid-wait (1.0142): 1.002x cuDNN in the run's own row, against policy
    18's 0.860."""
    run = "call11/gqa_agent_2"
    rec = unpack_recording(tmp_path_factory, HERE / f"{run}_db.tar.xz", "fa5090_artifacts/run-1/recording.jsonl")
    out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
    printed = printed_history(HERE / f"{run}.txt")
    assert outcomes(rows) == printed and len(printed) == 20
    assert printed[13] == ("qk_pipeline+narrow_kv_tile", "SLOWER", 0.6613)
    assert printed[14:16] == [("ws_mainloop_short_items", "KEPT", 1.1045), ("ws_pv_wide", "KEPT", 1.0426)]
    assert sum(o == "KEPT" for _, o, _ in printed) == 13
    comparators = {r["lever"]: round(r["margin"], 4) for r in rows if r["kind"] == "comparator"}
    assert comparators == _printed(HERE / f"{run}.txt")[1]
    assert "stopped: budget" in out and "1.002x SDPA cuDNN" in out


def test_policy_19_at_the_readmes_problem_replays_across_its_resume(tmp_path_factory):
    """Policy 19 at B2 H16 N2048 D128 fp16, interrupted by its call's limit during its 11th experiment and finished
    by `run --resume` in the next call: the whole run replays from the resumed database to the outcomes both calls
    printed (the second prints the whole history), the mainloop with Q and O by TMA kept at #10 as the recorded
    runs' asks predicted (tests/test_short_items_mainloop.py), the plateau after 16, 1.022x cuDNN."""
    run = "call12/d128_agent_2"
    first = (HERE / "call11/d128_agent_2.txt").read_text()
    assert "exit 124" in first and "summary:" not in first and "#11 lever ws_pv_wide" in first
    rec = unpack_recording(tmp_path_factory, HERE / f"{run}_db.tar.xz", "fa5090_artifacts/run-1/recording.jsonl")
    out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
    printed = printed_history(_text(run))
    assert outcomes(rows) == printed and len(printed) == 16
    assert printed[9] == ("ws_mainloop_short_items", "KEPT", 1.1594)
    comparators = {r["lever"]: round(r["margin"], 4) for r in rows if r["kind"] == "comparator"}
    assert comparators == _printed(_text(run))[1]
    assert "stopped: plateau" in out and "1.022x SDPA cuDNN" in out


# policy 20 (the default) from the naive seed, source a932646: run -> (experiments, stop, the closing figures, where
# its warp-specialised mainloop move came and how it read)
POLICY_20 = {
    "call17/d128_agent_3": (16, "plateau", "1.965x SDPA flash, 1.022x SDPA cuDNN",
                            (10, ("ws_mainloop_short_items", "KEPT", 1.1591))),
    "call17/d64_agent_3": (20, "budget", "1.748x SDPA flash, 1.091x SDPA cuDNN",
                           (10, ("ws_mainloop_three_warpgroups", "KEPT", 1.2311))),
    "call16/gqa_agent_3": (16, "exhausted", "1.807x SDPA flash, 1.002x SDPA cuDNN",
                           (9, ("ws_mainloop_short_items", "KEPT", 1.1566))),
    "call15/n512_agent_1": (20, "budget", "1.299x SDPA flash, 0.892x SDPA cuDNN",
                            (10, ("ws_mainloop_three_warpgroups", "SLOWER", 0.8621))),
    "call18/n512_agent_2": (20, "budget", "1.295x SDPA flash, 0.894x SDPA cuDNN",
                            (10, ("ws_mainloop_three_warpgroups", "SLOWER", 0.8623))),
}


@pytest.mark.parametrize("run", POLICY_20)
def test_policy_20_replays_to_what_the_device_printed(run, tmp_path_factory):
    """Each run replays from its recording to the outcomes, margins and comparator rows the device printed. The
    mainloop move comes where tests/test_async_rows.py read policy 20's first choices off the recorded runs: at #9 at
    causal GQA (policy 19: #15, after a 0.6613 compound), at #10 at N8192 D64 (policy 16: #13) and at N512 D64, where
    the three-warpgroup mainloop from the plain 64-row kernel loses (0.862) in both runs, as it did from a later best
    under policy 17 (0.8441). The finals at the three race problems are the earlier policies' (same knobs)."""
    n, stop, figures, (at, move) = POLICY_20[run]
    rec = unpack_recording(tmp_path_factory, HERE / f"{run}_db.tar.xz", "fa5090_artifacts/run-1/recording.jsonl")
    out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
    printed = printed_history(HERE / f"{run}.txt")
    assert outcomes(rows) == printed and len(printed) == n
    assert printed[at - 1] == move
    comparators = {r["lever"]: round(r["margin"], 4) for r in rows if r["kind"] == "comparator"}
    assert comparators == _printed(HERE / f"{run}.txt")[1] and set(comparators) == {"sdpa_flash", "sdpa_cudnn"}
    assert f"stopped: {stop}" in out and figures in out


def test_policy_20_ends_on_the_earlier_policies_finals():
    def final(path: str) -> str:
        text = (RESULTS / path).read_text()
        return re.search(r"^summary: .*; final kernel (\S+)$", text, re.M).group(1)

    race = "2026-12-04_h200_race"
    assert final(f"{race}/call17/d128_agent_3.txt") == final(f"{race}/call12/d128_agent_2_resume.txt")
    assert final(f"{race}/call16/gqa_agent_3.txt") == final(f"{race}/call11/gqa_agent_2.txt")
    assert final(f"{race}/call17/d64_agent_3.txt") == final("2026-12-03_h200_agent_suite/call11/d64_beside.txt")


def test_the_run_resumed_after_its_last_experiment_is_one_run():
    first, resumed = (HERE / "call9/gqa_tpe_1.txt").read_text(), (HERE / "call10/gqa_tpe_1_resume.txt").read_text()
    assert "exit 124" in first and "summary:" not in first and "#20 sample" in first
    assert "run --resume" in resumed.splitlines()[1] and "summary:" in resumed
    assert _race_table().read("2026-12-04_h200_race/call10/gqa_tpe_1")["wall_s"] == 237 + 19


def test_the_interrupted_run_is_named_and_left_out_of_the_table():
    text = (HERE / "call3" / "d128_tpe_2.txt").read_text()
    assert "exit 124" in text and "summary:" not in text


def _race_table():
    return load_script(RESULTS / "2026-12-03_h200_agent_suite" / "race_table.py")


def test_the_race_table_at_its_three_problems():
    mod = _race_table()
    cudnn = {r: mod.read(f"2026-12-04_h200_race/{r}")["cudnn"] for r in RUNS}
    assert cudnn == {"call1/d128_random_1": 0.469, "call1/d128_random_2": 0.438, "call1/d128_random_3": 0.379,
                     "call3/d128_tpe_1": 0.539, "call6/d128_tpe_2": 0.303, "call4/d128_tpe_3": 0.35,
                     "call5/d64_random_1": 0.793, "call5/d64_random_2": 0.664, "call5/d64_random_3": 0.548,
                     "call8/gqa_random_1": 0.308, "call9/gqa_random_2": 0.584, "call9/gqa_random_3": 0.487,
                     "call10/gqa_tpe_1": 0.365, "call10/gqa_tpe_2": 0.4, "call10/gqa_tpe_3": 0.528,
                     "call13/d64_tpe_1": 0.531, "call13/d64_tpe_2": 0.441, "call14/d64_tpe_3": 0.509}
    gqa = mod.read("2026-12-04_h200_race/call11/gqa_agent_2")
    assert gqa == {"flash": 1.806, "cudnn": 1.002, "wall_s": 354, "hits": "14/20"}
    assert mod.read("2026-12-04_h200_race/call8/gqa_agent_1") == {"flash": 1.543, "cudnn": 0.86, "wall_s": 314,
                                                                  "hits": "10/17"}
    assert gqa["cudnn"] > max(v for r, v in cudnn.items() if "gqa" in r)
    assert {mod.tpe_draw(f"2026-12-04_h200_race/{r}") for r in RUNS if "tpe" in r and r not in UNIFORM} == \
        {"constructive"}
    d128 = mod.read("2026-12-04_h200_race/call12/d128_agent_2")
    assert d128 == {"flash": 1.968, "cudnn": 1.022, "wall_s": 217 + 63, "hits": "10/16"}
    d64 = mod.read("2026-12-03_h200_agent_suite/call11/d64_beside")
    # the agent's final ahead of every random and TPE run at its problem
    assert d128["cudnn"] > max(v for r, v in cudnn.items() if "d128" in r)
    assert d64["cudnn"] > max(v for r, v in cudnn.items() if "d64" in r)
    # the sweep's best (30 uniform draws at N2048 D128, each against SDPA flash) below the agent's final
    best = mod.sweep_best("2026-12-04_h200_race/call7/d128_sweep_30")
    assert round(best, 3) == 1.071 and d128["flash"] / best > 1.8
    best = mod.sweep_best("2026-12-04_h200_race/call12/gqa_sweep_30")  # 30 uniform draws at causal GQA
    assert round(best, 3) == 0.965 and gqa["flash"] / best > 1.8
    # policy 20, the race's agent at all three problems: the same finals, the sweep at N8192 D64 (25 uniform draws)
    p20 = {r: mod.read(f"2026-12-04_h200_race/{r}") for r in ("call17/d128_agent_3", "call17/d64_agent_3",
                                                              "call16/gqa_agent_3")}
    assert p20 == {"call17/d128_agent_3": {"flash": 1.965, "cudnn": 1.022, "wall_s": 256, "hits": "10/16"},
                   "call17/d64_agent_3": {"flash": 1.748, "cudnn": 1.091, "wall_s": 235, "hits": "13/20"},
                   "call16/gqa_agent_3": {"flash": 1.807, "cudnn": 1.002, "wall_s": 288, "hits": "12/16"}}
    best = mod.sweep_best("2026-12-04_h200_race/call15/d64_sweep_25")
    assert round(best, 3) == 1.339 and p20["call17/d64_agent_3"]["flash"] / best > 1.3
    sweep = json.loads((HERE / "call15/d64_sweep_25.json").read_text())
    assert len(sweep) == 25 and all(r.get("vs_sdpa") for r in sweep)


def test_the_printed_table(capsys):
    _race_table().main()
    first, _, earlier = capsys.readouterr().out.partition("\n\n")
    rows = {ln.split(" | ")[0].lstrip("| "): ln for ln in first.splitlines()[2:]}
    assert "| 1.022 | 0.438 (0.379-0.469, 3 seeds) | 0.350 (0.303-0.539, 3 seeds) uniform | 1.965 | 1.071 | 1.834 | " \
        "256 s, 10/16 |" in rows["B2 H16 N2048 D128 fp16"]
    assert ("| 1.091 | 0.664 (0.548-0.793, 3 seeds) | 0.509 (0.441-0.531, 3 seeds) constructive | 1.748 | 1.339 | "
            "1.305 | 235 s, 13/20 |") in rows["B2 H16 N8192 D64 fp16"]
    assert ("| 1.002 | 0.487 (0.308-0.584, 3 seeds) | 0.400 (0.365-0.528, 3 seeds) constructive | 1.807 | 0.965 | "
            "1.873 | 288 s, 12/16 |") in rows["B8 H32/8 N1024 D128 bf16 causal"]
    assert "| B8 H32/8 N1024 D128 bf16 causal | 18 | 0.860 | 1.543 | 314 s, 10/17 |" in earlier
    assert "| B8 H32/8 N1024 D128 bf16 causal | 19 | 1.002 | 1.806 | 354 s, 14/20 |" in earlier
    assert "| B2 H16 N2048 D128 fp16 | 19 | 1.022 | 1.968 | 280 s, 10/16 |" in earlier


def test_the_table_tells_tpe_runs_by_how_they_drew(tmp_path, monkeypatch):
    """A run's database says how its TPE drew (SearchOptions.tpe_draw); one recorded before the setting drew
    uniformly. Runs of both kinds at one problem get a median each."""
    import json
    import sqlite3
    import tarfile

    mod = _race_table()
    for name, search in (("old", {"strategy": "tpe"}), ("new", {"strategy": "tpe", "tpe_draw": "constructive"})):
        con = sqlite3.connect(tmp_path / "fa5090.db")
        con.execute("CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, options TEXT)")
        con.execute("DELETE FROM runs")
        con.execute("INSERT INTO runs (options) VALUES (?)", (json.dumps({"search": search, "bench": {}}),))
        con.commit()
        con.close()
        with tarfile.open(tmp_path / f"{name}_db.tgz", "w:gz") as t:
            t.add(tmp_path / "fa5090.db", arcname="fa5090.db")
    monkeypatch.setattr(mod, "RESULTS", tmp_path)
    assert (mod.tpe_draw("old"), mod.tpe_draw("new")) == ("uniform", "constructive")
    monkeypatch.setattr(mod, "cell", lambda runs, key: f"{len(runs)} run")
    assert mod.tpe_cell(["old", "new", "old"]) == "1 run constructive; 2 run uniform"
