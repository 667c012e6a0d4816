"""The H200 tune campaign of results/2026-12-02_h200_tune_torch: three N buckets of a Llama-style causal GQA
attention, each search started from a chosen kernel (--seed-knob) that nothing beat. Such a search's seed
is the bucket's kernel: it passed the run's seed check and was measured against every lever and against
SDPA. Here: the export serves it (and still leaves out a naive seed nobody chose), the dispatch library of a
wgmma kernel builds for sm_90a (plain sm_90 has no wgmma), and the real client's check runs on CPU (every
call falls back to SDPA: its wiring, not our kernels)."""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.summary import measured_best
from kernel_src.knobs import Knobs
from store import queries as q
from store.db import open_db

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-02_h200_tune_torch"
runner = CliRunner()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tunerec")
    with tarfile.open(REC / "call1" / "tune_db.tar.xz") as t:
        t.extractall(tmp, filter="data")
    return tmp / "llama.db"


def test_a_chosen_seed_that_nothing_beat_is_the_buckets_kernel(campaign):
    db = open_db(campaign, read_only=True)
    runs = q.runs(db)
    assert [r["problem"]["N"] for r in runs] == [2048, 4096, 8192] and all(r["status"] == "plateau" for r in runs)
    for r in runs:
        assert not [e for e in q.history(db, r["id"]) if e["outcome"] == "KEPT"]
        knobs, tflops, where = measured_best(db, r)
        assert knobs == Knobs.parse(r["seed_knobs"]) and knobs.mainloop.value == "ws" and where.startswith("its seed")
        anchor = [e for e in q.history(db, r["id"]) if e["kind"] == "reanchor"][-1]
        assert tflops == anchor["tflops_cand"]


def test_the_export_serves_the_seeds_and_leaves_out_a_naive_seed_nobody_chose(campaign, tmp_path):
    db = tmp_path / "c.db"
    shutil.copy(campaign, db)
    res = runner.invoke(app, ["export", "--torch", str(tmp_path / "pkg"), "--db", str(db), "--no-build"])
    assert res.exit_code == 0, res.output
    table = json.loads((tmp_path / "pkg" / "fa5090_kernels" / "table.json").read_text())
    measured = {r["bucket"]: r for r in table["rows"] if not r["fallback"]}
    assert sorted(measured) == ["N 1025-2048", "N 2049-4096", "N 4097-8192"]
    assert all("its seed, nothing kept" in r["source"] for r in measured.values())
    # the same database with a run that kept nothing from the naive seed: that one is left out, by name
    rw = open_db(db)
    rw.execute("update runs set seed_knobs = ? where id = 3", [json.dumps(Knobs().model_dump(mode="json"))])
    rw.commit()
    res = runner.invoke(app, ["export", "--torch", str(tmp_path / "pkg2"), "--db", str(db), "--no-build"])
    assert res.exit_code == 0, res.output
    assert "run 3 (B1-H32-Hkv8-N8192-D128-bfloat16-causal): no KEPT kernel, left out" in " ".join(res.output.split())


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_the_dispatch_library_of_a_wgmma_kernel_builds_for_sm_90a(campaign, tmp_path):
    db = tmp_path / "c.db"
    shutil.copy(campaign, db)
    res = runner.invoke(app, ["export", "--torch", str(tmp_path / "pkg"), "--db", str(db)])
    assert res.exit_code == 0, res.output
    pkg = tmp_path / "pkg" / "fa5090_kernels"
    log = (pkg / "fa_dispatch.so.log").read_text()
    assert "compute_90a,code=sm_90a" in log.splitlines()[0] and (pkg / "fa_dispatch.so").exists()
    assert json.loads((pkg / "table.json").read_text())["archs"] == ["sm_90"]  # the device arch the package serves
    # the warp-specialised kernels take every operand in any layout (a model's q.transpose(1, 2) read in place);
    # fa_strided touches no device, so it answers on this CPU machine
    lib = ctypes.CDLL(str(pkg / "fa_dispatch.so"))
    lib.fa_strided.argtypes = [ctypes.c_int] * 4
    for n in (2048, 4096, 8192):
        assert lib.fa_strided(1, 128, 1, n) == 0b1111
    assert lib.fa_strided(1, 64, 1, 2048) == -2  # never measured: FA_NOT_BUILT


def test_the_model_check_runs_on_cpu_through_the_fallback(campaign, tmp_path):
    pytest.importorskip("transformers")
    db = tmp_path / "c.db"
    shutil.copy(campaign, db)
    assert runner.invoke(app, ["export", "--torch", str(tmp_path / "pkg"), "--db", str(db), "--no-build"]).exit_code == 0
    cfg = {**json.loads((REC / "llama_gqa_config.json").read_text()), "hidden_size": 64, "intermediate_size": 128,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 96}
    (tmp_path / "tiny.json").write_text(json.dumps(cfg))
    # its own process: the package registers torch.ops.fa5090.attention at import, once a process
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "pkg"), *sys.path])}
    res = subprocess.run([sys.executable, str(REC / "model_check.py"), "--config",
                          str(tmp_path / "tiny.json"), "--seqlen", "64", "--seqlen", "100", "--device", "cpu",
                          "--out", str(tmp_path / "mc"), "--no-compile"], capture_output=True, text=True, env=env,
                         timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    out = json.loads((tmp_path / "mc" / "model_check.json").read_text())
    assert [r["N"] for r in out["rows"]] == [64, 100]
    for r in out["rows"]:
        assert r["passes"] and r["served_by"].startswith("SDPA fallback: ")
        assert r["layout"]["q"] == [1, 4, r["N"], 16] and r["layout"]["k"] == [1, 2, r["N"], 16]  # GQA kept
        assert r["logits_max_abs"]["ours"] <= r["bound"]
