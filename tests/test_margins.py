"""The margin tables of the ladder's levers and the search that used them, replayed from their H200
recordings (results/2026-11-30_h200_margins, results/2026-11-30_h200_search_n8192): the same
decisions from the recorded timing streams, no GPU."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recorded import N8192_MARGINS as N8192
from recorded import SCREEN_SEED as BEST
from recorded import unpack_recording as _recording

from agent.cli import app

ROOT = Path(__file__).resolve().parents[1] / "results"
runner = CliRunner()


def _table(db: Path) -> dict[str, tuple[str, float]]:
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(db)]).output)
    return {r["lever"]: (r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] == "lever"}


# the causal table as the H200 printed it (n32768.txt): lever -> (outcome, paired margin); N8192's is in recorded.py
N32768_CAUSAL = {
    "swizzle": ("SLOWER", 0.9387), "heaviest_first": ("SLOWER", 0.87), "kv_double_buffer": ("SLOWER", 0.9561),
    "mask_split": ("SLOWER", 0.93), "mask_predicate": ("NULL", 0.9982), "persistent_grid": ("SLOWER", 0.8755),
    "kv_triple_buffer": ("SLOWER", 0.6254), "rescale_skip": ("KEPT", 1.0076), "store_streaming": ("SLOWER", 0.9198),
    "store_write_through": ("SLOWER", 0.9186), "narrow_kv_tile": ("KEPT", 1.0858), "min_ctas_3": ("KEPT", 1.1243),
    "wide_kv_tile": ("KEPT", 1.1767), "tall_q_tile": ("SLOWER", 0.8939), "q_from_smem": ("KEPT", 1.1583),
    "tall_q_tile_4_warps": ("SLOWER", 0.9231), "split_kv_2": ("SLOWER", 0.9596), "split_kv_4": ("SLOWER", 0.9502),
    "v_without_ldmatrix_trans": ("SLOWER", 0.6573), "split_kv_8": ("SLOWER", 0.9256),
}


@pytest.mark.parametrize("name, extra, expected", [
    ("n8192", ["--seqlen", "8192", "--time-budget", "2.0"], N8192),
    ("n32768", ["--seqlen", "32768", "--dtype", "bfloat16", "--causal", "--time-budget", "3.0"], N32768_CAUSAL),
])
def test_margin_table_replays(name, extra, expected, tmp_path_factory, tmp_path):
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_margins" / f"{name}_artifacts.tgz",
                     f"{name}_artifacts/run-1/recording.jsonl")
    db = tmp_path / "m.db"
    res = runner.invoke(app, ["run", *BEST, *extra, "--screen", "--budget", "30", "--no-profile", "--replay", str(rec),
                              "--db", str(db)])
    assert res.exit_code == 0, res.output
    table = _table(db)
    assert table == expected
    # every lever of the ladder that applies to the shape has its row, negatives included
    for lever in ("persistent_grid", "split_kv_2", "split_kv_4", "split_kv_8", "v_without_ldmatrix_trans",
                  "tall_q_tile_4_warps", "kv_double_buffer", "kv_triple_buffer", "rescale_skip", "store_streaming"):
        assert lever in table


def test_the_search_with_the_new_levers_replays(tmp_path_factory, tmp_path):
    """The search from the final kernel at N=8192 that read the shape's calibration: three keeps
    (the persistent grid among them, on top of double buffering), a re-screen of the shelf when the
    narrow tile changed occupancy, consistent re-anchors and a plateau stop."""
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_search_n8192" / "artifacts.tar.xz",
                     "fa5090_artifacts/run-2/recording.jsonl")
    db = tmp_path / "s.db"
    res = runner.invoke(app, ["run", *BEST, "--seqlen", "8192", "--budget", "12", "--time-budget", "1.5",
                              "--replay", str(rec), "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(db)]).output)
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["kv_double_buffer", "persistent_grid",
                                                                   "narrow_kv_tile"]
    assert [r["lever"] for r in rows if r["kind"] == "rescreen"] == ["kv_triple_buffer", "rescale_skip"]
    anchors = [r for r in rows if r["kind"] == "reanchor"]
    assert len(anchors) == 2 and all(": consistent" in r["detail"] for r in anchors)
    assert "plateau" in res.output


def test_the_search_replicated_with_a_longer_plateau(tmp_path_factory, tmp_path):
    """The same search again in a fresh session with --plateau 6: the same three keeps in the same
    order (margins 1.034, 1.032, 1.085 against 1.026, 1.024, 1.083), then six levers without a keep."""
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_search_n8192_plateau6" / "artifacts.tar.xz",
                     "fa5090_artifacts/run-2/recording.jsonl")
    db = tmp_path / "p.db"
    res = runner.invoke(app, ["run", *BEST, "--seqlen", "8192", "--budget", "16", "--plateau", "6",
                              "--time-budget", "1.5", "--replay", str(rec), "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(db)]).output)
    kept = [(r["lever"], round(r["margin"], 3)) for r in rows if r["outcome"] == "KEPT"]
    assert kept == [("kv_double_buffer", 1.034), ("persistent_grid", 1.032), ("narrow_kv_tile", 1.085)]
    trials = [(r["kind"], r["lever"], r["outcome"]) for r in rows if r["kind"] in ("lever", "rescreen")]
    assert trials == [
        ("lever", "kv_double_buffer", "KEPT"), ("lever", "persistent_grid", "KEPT"),
        ("lever", "kv_triple_buffer", "SLOWER"), ("lever", "rescale_skip", "NULL"), ("lever", "narrow_kv_tile", "KEPT"),
        ("rescreen", "kv_triple_buffer", "NULL"), ("rescreen", "rescale_skip", "NULL"), ("lever", "wide_kv_tile", "SLOWER"),
        ("lever", "v_without_ldmatrix_trans", "SLOWER"), ("lever", "swizzle", "SLOWER"),
        ("lever", "store_streaming", "NULL")]
    assert "plateau (6 consecutive experiments without a keep)" in res.output


def test_the_profiles_that_explain_the_screen():
    """results/2026-11-30_h200_profile_n32768_causal: the tool's parser and diagnosis on the real
    ncu CSVs. Heaviest-first loses L2 locality; .cs stores keep occupancy and L2 but lose tensor pipe."""
    from profiler.diagnosis import diagnose, metrics_from_row
    from profiler.ncu import parse_raw_csv

    d = ROOT / "2026-11-30_h200_profile_n32768_causal"
    m = {p.stem[4:].rsplit("_", 1)[0]: metrics_from_row(parse_raw_csv(p.read_text())[0], "sm_90")
         for p in d.glob("ncu_*.csv")}  # ncu_<lever>_<knob key>.csv
    final, hf, cs = m["final"], m["heaviest_first"], m["store_streaming"]
    assert final.l2_hit_pct > 99 and hf.l2_hit_pct < 90 and hf.dram_throughput_pct > 10 * final.dram_throughput_pct
    assert cs.registers_per_thread < final.registers_per_thread and cs.tensor_pipe_pct < final.tensor_pipe_pct
    assert abs(cs.l2_hit_pct - final.l2_hit_pct) < 0.5 and diagnose(final).label == "occupancy_limited"


def test_a_search_looks_back_at_the_screen_in_its_database(tmp_path_factory, tmp_path):
    """With the N=8192 screen in the database, the search standing on the screened kernel ranks the
    measured gains first (q_from_smem 1.190) and predicts them; --no-evidence gives the catalog
    order, which is what the recorded search (run before this existed) did."""
    from agent.levers import get
    from agent.replay.ladder import predicted_band, propose
    from kernel_src.knobs import Knobs
    from store import queries as q
    from store.db import open_db

    screen = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_margins" / "n8192_artifacts.tgz",
                        "n8192_artifacts/run-1/recording.jsonl")
    search = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_search_n8192_plateau6" / "artifacts.tar.xz",
                        "fa5090_artifacts/run-2/recording.jsonl")
    db = tmp_path / "e.db"
    res = runner.invoke(app, ["run", *BEST, "--seqlen", "8192", "--time-budget", "2.0", "--screen", "--budget", "30",
                              "--no-profile", "--replay", str(screen), "--db", str(db)])
    assert res.exit_code == 0, res.output
    best = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])
    ev = {k: v["margin"] for k, v in q.lever_evidence(open_db(db), best.key(), before_run=2).items()}
    assert ev == {k: pytest.approx(m, abs=5e-5) for k, (_, m) in N8192.items()}
    assert propose(best, "occupancy_limited", set(), evidence=ev).name == "q_from_smem"
    assert propose(best, "occupancy_limited", set()).name == "kv_overlap"  # the catalog's order
    assert predicted_band(get("q_from_smem"), ev["q_from_smem"], 0.0082) == pytest.approx((1.1707, 2 * 1.1902 - 1.1707), abs=1e-4)

    args = ["run", *BEST, "--seqlen", "8192", "--budget", "16", "--plateau", "6", "--time-budget", "1.5",
            "--replay", str(search), "--db", str(db)]
    res = runner.invoke(app, args)  # the recording has no answer for the lever evidence puts first
    assert res.exit_code == 1 and "has no answer" in res.output and "q_in=smem" in res.output
    res = runner.invoke(app, [*args, "--no-evidence"])
    assert res.exit_code == 0, res.output
    rows = [r for r in json.loads(runner.invoke(app, ["history", "--json", "--db", str(db), "--all"]).output)
            if r["run_id"] == 3]
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["kv_double_buffer", "persistent_grid", "narrow_kv_tile"]
