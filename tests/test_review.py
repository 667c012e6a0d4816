"""Reviewing history: read-only commands leave the database
byte-identical, `history --all` with a run column and filters, `compare`, `export best`, tables that
do not fold in a pipe. On the committed H200 databases."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[1] / "results"
AVR = ROOT / "2026-11-30_h200_agent_vs_random"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def dbs(tmp_path):
    """Copies: one written before m002 (run2), one screen (margins, m003), one agent run (m004)."""
    out = {}
    for name, src in {"old": ROOT / "2026-11-30_h200_run2" / "fa5090.db", "screen": ROOT / "2026-11-30_h200_margins" / "n8192.db",
                      "agent": AVR / "n8192_agent.db", "random": AVR / "n8192_random.db"}.items():
        out[name] = tmp_path / f"{name}.db"
        shutil.copy(src, out[name])
    return out


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_every_read_only_command_leaves_the_database_byte_identical(dbs, tmp_path):
    for db in dbs.values():
        before = _digest(db)
        for args in (["history"], ["history", "--all", "--json"], ["show", 3], ["shelf"], ["shelf", "--json"],
                     ["export", "best", "-o", tmp_path / "k.cu"], ["compare", db], ["history", "--command", "--json"],
                     ["show", 3, "--json"], ["compare", db, "--json"]):
            res = invoke(*args, "--db", db)
            assert res.exit_code == 0, (db.name, args, res.output)
            assert _digest(db) == before, (db.name, args)
        assert sorted(p.name for p in tmp_path.glob(db.name + "*")) == [db.name]  # no -wal/-shm left behind


def test_history_all_has_a_run_column_labels_screens_and_filters(dbs):
    res = invoke("history", "--all", "--db", dbs["screen"])
    assert res.exit_code == 0 and "│ run " in res.output.replace("┃", "│") and " screen " in res.output
    rows = json.loads(invoke("history", "--outcome", "KEPT", "--json", "--db", dbs["agent"]).output)
    assert [r["lever"] for r in rows][:3] == ["tensor_cores", "swizzle", "tall_q_tile_4_warps+narrow_kv_tile+q_from_smem"]
    rows = json.loads(invoke("history", "--lever", "q_from_smem", "--json", "--db", dbs["agent"]).output)
    assert [r["lever"] for r in rows] == ["tall_q_tile_4_warps+narrow_kv_tile+q_from_smem"]
    assert invoke("history", "--kind", "nonsense", "--db", dbs["agent"]).exit_code == 2


def test_history_in_a_pipe_does_not_fold(dbs):
    out = invoke("history", "--db", dbs["agent"]).output
    line = next(ln for ln in out.splitlines() if "tall_q_tile_4_warps+narrow_kv_tile+q_from_smem" in ln)
    assert "margin 1.5671 and replicate 1.5548 >= t_keep 1.0021; AB/BA agree; C2 passed twice, bitwise equal" in line


def test_compare_reads_each_runs_own_pairs(dbs):
    rows = json.loads(invoke("compare", dbs["agent"], dbs["random"], "--json").output)
    agent, rnd = rows
    assert (agent["strategy"], rnd["strategy"]) == ("agent", "random")
    assert round(agent["vs_sdpa_flash"], 3) == round(1 / 1.155062367543393, 3) == 0.866
    assert round(rnd["vs_sdpa_flash"], 3) == 0.629 and (agent["experiments"], rnd["experiments"]) == (12, 20)
    assert agent["final_knobs"] == "mma/pad/cp_async/ex2/t128x32w4/kv_stages=2/q_in=smem/rescale_skip=on/persistent=on"
    assert (agent["inside_band"], agent["banded"]) == (7, 12) and rnd["banded"] == 0


def test_export_best_and_by_run_and_seq_take_the_runs_problem(tmp_path):
    db = tmp_path / "c.db"
    shutil.copy(AVR / "c16384_agent.db", db)
    res = invoke("export", "best", "-o", tmp_path / "best.cu", "--db", db)
    assert res.exit_code == 0 and "bfloat16" in res.output and "./attn 2 16 16384 1" in res.output
    assert "min_ctas=3" in res.output
    res = invoke("export", "1:5", "-o", tmp_path / "five.cu", "--db", db)
    assert res.exit_code == 0 and "q_in=smem/min_ctas=3" in res.output
    comparator = json.loads(invoke("history", "--kind", "comparator", "--json", "--db", db).output)[0]["id"]
    res = invoke("export", comparator, "-o", tmp_path / "c.cu", "--db", db)
    assert res.exit_code == 1 and "comparator row with no kernel of ours" in res.output
    assert invoke("export", "best", "-o", tmp_path, "--db", db).exit_code == 2
    res = invoke("export", "best", "-o", tmp_path / "no" / "such" / "k.cu", "--db", db)
    assert res.exit_code == 2 and "does not exist" in res.output


def test_version():
    res = invoke("--version")
    assert res.exit_code == 0 and res.output.startswith("fa5090-search ")


def test_a_run_that_cannot_start_leaves_nothing_behind(tmp_path):
    db = tmp_path / "never.db"
    for args, code, words in ((["--replay", ROOT.parent / "README.md"], 1, "is not a run's recording"),
                              (["--replay", ROOT / "2026-11-30_h200_smoke" / "smoke.jsonl"], 1, "is not a run's recording"),
                              (["--exclude-lever", "nosuchlever"], 2, "unknown lever 'nosuchlever'; known: tensor_cores"),
                              ([], 1, "no usable GPU")):  # CI has no GPU: the probe refuses before the database
        res = invoke("run", *args, "--db", db)
        assert res.exit_code == code and words in res.output and "Traceback" not in res.output, res.output
        assert list(tmp_path.iterdir()) == [], args


def test_report_plots_the_databases_own_values_and_writes_nothing_into_it(tmp_path):
    pytest.importorskip("matplotlib")
    from agent.report import write
    from store import queries as q
    from store.db import open_db

    src = tmp_path / "a.db"
    shutil.copy(AVR / "n8192_agent.db", src)
    before = _digest(src)
    res = invoke("report", "--db", src, "--out", tmp_path / "r")
    assert res.exit_code == 0, res.output
    assert _digest(src) == before
    page = (tmp_path / "r" / "report.html").read_text()
    md = (tmp_path / "r" / "report.md").read_text()
    assert page.count("<svg") == 3 and "http" not in page.split("<svg")[0]  # self-contained
    assert "![ladder](ladder.png)" in md and (tmp_path / "r" / "ladder.png").exists()
    db = open_db(src, read_only=True)
    data = write(db, 1, tmp_path / "r2")
    kept = [e for e in q.history(db, 1) if e["outcome"] == "KEPT"]
    assert data["ladder"]["tflops"] == [e["tflops_cand"] for e in kept] and len(kept) == 9
    assert data["ladder"]["sdpa_flash_tflops"] == pytest.approx(336.08, abs=0.01)
    banded = [b for b in data["bands"] if b["margin"] is not None]
    assert [b["margin"] for b in banded] == [e["margin"] for e in q.history(db, 1) if e["seq"] and e["margin"] is not None]
    assert len(data["stalls"]) == len(q.diagnoses(db, 1)) == 10
    assert "tall_q_tile_4_warps+narrow_kv_tile+q_from_smem" in md and "1.5671" in md


@pytest.mark.parametrize("name, content", [("r.json", b"{}"), ("r.json", b"not json"), ("r.json", b"[1, 2]"),
                                           ("r.json.gz", b"not gzip")])
def test_a_malformed_tolerance_report_is_one_sentence(tmp_path, name, content):
    f = tmp_path / name
    f.write_bytes(content)
    res = invoke("derive-tolerance", "--replay", f)
    assert res.exit_code == 1 and "is not a tolerance report" in res.output and "Traceback" not in res.output


def test_knobs_lists_every_knob_with_its_values_and_levers():
    rows = json.loads(invoke("knobs", "--json").output)
    by = {r["knob"]: r for r in rows}
    from kernel_src.knobs import Knobs

    assert list(by) == list(Knobs.model_fields)
    assert by["layout"]["values"] == ["row_major", "swizzle", "pad", "sw128"]
    assert by["layout"]["levers"] == ["swizzle", "padding", "wgmma", "hopper_tile"] and "wgmma" in by["compute"]["values"]
    assert by["bc"]["values"] == [32, 64, 128, 176] and by["compute"]["default"] == "scalar"
    assert by["kv_release"]["values"] == ["barrier", "last_warp", "producer"]
    assert by["kv_release"]["levers"] == ["last_warp_refill", "producer_warpgroup", "ws_mainloop",
                                          "ws_mainloop_three_warpgroups", "ws_mainloop_three_warpgroups_short_items",
                                          "ws_mainloop_short_items"]
    assert by["mainloop"]["values"] == ["general", "ws"]
    assert by["mainloop"]["levers"] == ["ws_mainloop", "ws_mainloop_three_warpgroups",
                                        "ws_mainloop_three_warpgroups_short_items", "ws_mainloop_short_items"]
    assert by["q_load"]["values"] == ["cp_async", "tma"]
    assert by["q_load"]["levers"] == ["ws_mainloop_three_warpgroups_short_items", "ws_mainloop_short_items",
                                      "ws_q_by_tma", "ws_q_by_tma_three_stages", "ws_q_by_tma_lazy_p_mid_wait",
                                      "ws_q_by_tma_heaviest_first", "ws_persistent_warp_uniform"]
    # what the search reaches: the seed's value and those a lever sets, not every value the knob has
    assert by["compute"]["reached"] == by["compute"]["values"]
    assert by["schedule"]["values"] == ["static", "dynamic"] and by["schedule"]["reached"] == ["static", "dynamic"]
    assert by["mbar_wait"]["reached"] == ["poll", "suspend"] and by["desc_math"]["levers"] == ["ws_hoisted_descriptors"]
    assert by["mbar_wait"]["levers"] == ["ws_suspended_waits"] and "ws_launch_order_row_sums" in by["row_sum"]["levers"]
    assert by["round_order"]["reached"] == ["in_place", "snake"] and by["tail_rows"]["reached"] == ["compute", "skip"]
    assert by["kv_l2_hint"]["levers"] == ["kv_evict_last"] and by["kv_l2_hint"]["reached"] == ["none", "evict_last"]
    # tile by tile a recorded negative; the short tiles late a lever
    assert by["item_order"]["levers"] == ["ws_short_tiles_late"] and by["item_order"]["reached"] == ["cta_order", "short_tiles_late"]
    assert by["slot_item"]["levers"] == ["ws_decoded_slot"] and by["slot_item"]["reached"] == ["index", "decoded"]


def test_history_command_prints_what_started_the_run(dbs):
    res = invoke("history", "--command", "--db", dbs["screen"])
    assert res.exit_code == 0 and "--screen --budget 30" in res.output and res.output.startswith("run 1 (")



def test_a_gzipped_record_is_reviewed_as_it_is():
    """A record's database kept gzipped (`name.db.gz`) reads in every listing as the database it holds, and stays
    byte-identical (a command that writes is told to unpack it: tests/test_store.py)."""
    import gzip
    import tempfile

    gz = ROOT / "2026-12-01_h200_cudnn_anatomy" / "agent9_arm_b2_n2048_d128" / "agent9.db.gz"
    before = hashlib.sha256(gz.read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory() as d:
        plain = Path(d) / "agent9.db"
        plain.write_bytes(gzip.decompress(gz.read_bytes()))
        for cmd in (["history", "--db"], ["shelf", "--db"], ["compare"]):
            got, want = invoke(*cmd, gz, "--json"), invoke(*cmd, plain, "--json")
            assert got.exit_code == want.exit_code == 0, got.output
            strip = lambda rows: [{k: v for k, v in r.items() if k != "ref"} for r in rows]  # compare names its file
            assert strip(json.loads(got.output)) == strip(json.loads(want.output)) != []
    assert hashlib.sha256(gz.read_bytes()).hexdigest() == before
