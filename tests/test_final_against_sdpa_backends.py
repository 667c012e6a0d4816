"""The run's closing comparison: the final kernel paired against SDPA flash and against SDPA cuDNN, the
fastest backend a PyTorch user gets on an H200, each in its own process; a backend that does not run
here is named with why, a run recorded before the cuDNN pair shows it as not measured. On the synthetic
bench (tests/fakes.py) and on copies of the committed H200 databases."""
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from recorded import opened

RESULTS = Path(__file__).resolve().parents[1] / "results"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _copy(tmp_path, rel: str) -> Path:
    dst = tmp_path / Path(rel).name.removesuffix(".gz")
    shutil.copy(opened(RESULTS / rel), dst)
    return dst


def test_a_later_baseline_row_never_stands_in_for_the_runs_own_flash_pair(tmp_path):
    """stacked_n8192.db: the run's closing pair has SDPA flash at 335.7 TFLOP/s; a `baseline` process
    afterwards stored cuDNN at 617.5 as the last comparator row, which `compare` used to show as flash."""
    db = _copy(tmp_path, "2026-11-30_h200_mma_reaches_flash/stacked_n8192.db")
    s = json.loads(invoke("compare", db, "--json").output)[0]
    assert s["sdpa_flash_tflops"] == pytest.approx(335.68, abs=0.01)
    assert s["vs_sdpa_flash"] == pytest.approx(1 / 0.9942298890258903)


# ---- the worker: a backend that does not run here is a skipped step with why ---------------------
# torch's warnings before "No available kernel" when only cuDNN is enabled and the build has it off (the
# wording of torch 2.3's sdp_utils.cpp, as a public log printed it: one headline per backend, then its reasons)
REFUSED = ["Memory efficient kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:607.)",
           "Memory Efficient attention has been runtime disabled. (Triggered internally at ../aten/src/ATen/native/transformers/sdp_utils_cpp.h:495.)",
           "Flash attention kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:609.)",
           "Flash attention has been runtime disabled. (Triggered internally at ../aten/src/ATen/native/transformers/sdp_utils_cpp.h:551.)",
           "CuDNN attention kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:611.)",
           "The CuDNN backend needs to be enabled by setting the enviornment variable`TORCH_CUDNN_SDPA_ENABLED=1` "
           "(Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:409.)"]


def test_the_reason_is_the_backends_own_warnings_in_one_phrase():
    from experiments.sdpa import why_not

    assert why_not("cudnn", REFUSED, "No available kernel. Aborting execution.") == (
        "The CuDNN backend needs to be enabled by setting the enviornment variable`TORCH_CUDNN_SDPA_ENABLED=1`")
    assert why_not("flash", REFUSED, "No available kernel.") == "Flash attention has been runtime disabled"
    assert why_not("cudnn", [], "No available kernel. Aborting execution.\nmore") == "No available kernel. Aborting execution"


def test_torch_here_refuses_cudnn_as_unavailable_and_runs_flash():
    """This machine's torch (a CPU build) has no cuDNN attention for CPU tensors: `call` says so
    instead of raising torch's error; its CPU flash kernel runs. Any other error is the pair's own."""
    torch = pytest.importorskip("torch")
    from experiments.sdpa import Unavailable, call, probe

    x = torch.randn(1, 2, 16, 64, dtype=torch.float16)
    with pytest.raises(Unavailable, match="No viable backend"):
        call("cudnn", x, x, x, causal=False, gqa=False)
    call("flash", x, x, x, causal=True, gqa=False)()

    def fault():
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    with pytest.raises(RuntimeError, match="illegal memory access"):
        probe("cudnn", fault)


def test_the_worker_records_an_unavailable_arm_as_skipped_and_goes_on(tmp_path, monkeypatch):
    """The job is not a crash (exit 0, no FATAL_EXIT): the pair against cuDNN is skipped with why, the
    next step still runs in the same process."""
    pytest.importorskip("torch")
    import torch

    from experiments import worker
    from experiments.job import Arm, Job, JobResult, PairedStep
    from experiments.problem import Shape
    from experiments.sdpa import Unavailable

    def paired(step):
        if step.cand.sdpa == "cudnn":
            raise Unavailable("torch 2.1.0 has no SDPBackend.CUDNN_ATTENTION")
        return {"margin": 1.25}

    monkeypatch.setitem(worker.RUN, PairedStep, paired)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    shape = Shape(B=1, H=2, N=64, D=64)
    steps = [PairedStep(tag=b, base=Arm(lib="/nowhere.so"), cand=Arm(sdpa=b), shape=shape, budget_s=0.1) for b in ("cudnn", "flash")]
    (tmp_path / "job.json").write_text(Job(steps=steps).model_dump_json())
    assert worker.main(str(tmp_path / "job.json"), str(tmp_path / "result.json")) == 0
    job = JobResult(status="ok", **json.loads((tmp_path / "result.json").read_text()))
    assert job.step("cudnn").skipped == "unavailable: torch 2.1.0 has no SDPBackend.CUDNN_ATTENTION"
    assert job.value("cudnn") is None and job.value("flash") == {"margin": 1.25}


# ---- the run: both closing pairs, each in its own process -----------------------------------------
def _sim(tmp_path, name, bench, **opts):
    from agent.loop import SearchOptions, run_search
    from experiments.problem import Shape
    from kernel_src.knobs import SEED
    from store.db import open_db

    path = tmp_path / f"{name}.db"
    db = open_db(path)
    said = []
    rid = run_search(bench, db, shape=Shape(B=2, H=16, N=8192, D=128), seed=SEED, artifacts=tmp_path / "art",
                     options=SearchOptions(budget=8, **opts), say=said.append)
    return path, db, rid, said


def _closing(db, rid):
    from store import queries as q

    return [e for e in q.history(db, rid) if e["kind"] == "comparator"]


def test_a_run_ends_paired_against_sdpa_flash_and_cudnn_each_in_its_own_process(tmp_path):
    from agent.summary import run_summary
    from fakes import SimBench

    bench = SimBench()
    path, db, rid, said = _sim(tmp_path, "both", bench)
    rows = _closing(db, rid)
    assert [e["lever"] for e in rows] == ["sdpa_flash", "sdpa_cudnn"]
    assert len({e["base_key"] for e in rows}) == 1  # the same final kernel in both pairs
    flash, cudnn = rows
    assert cudnn["margin"] > flash["margin"] > 0  # the synthetic cuDNN is the faster library, as on the H200
    best = rows[0]["base_knobs"]
    assert bench.calls[-2:] == [f"paired {_label(best)} flash", f"paired {_label(best)} cudnn"]  # two jobs, two processes
    s = run_summary(db, rid)
    assert [a["status"] for a in s["against_sdpa"]] == ["measured", "measured"]
    assert s["vs_sdpa_cudnn"] == pytest.approx(1 / cudnn["margin"]) and s["sdpa_cudnn_tflops"] == cudnn["tflops_cand"]
    assert s["against_sdpa_text"] == f"final {1 / flash['margin']:.3f}x SDPA flash, {1 / cudnn['margin']:.3f}x SDPA cuDNN"
    compared = [e for e in said if e.kind == "comparator"]
    assert [(e.backend, e.result["margin"]) for e in compared] == [("flash", flash["margin"]), ("cudnn", cudnn["margin"])]
    out = invoke("history", "--db", path).output
    assert s["against_sdpa_text"] in out
    got = json.loads(invoke("compare", path, "--json").output)[0]
    assert got["vs_sdpa_cudnn"] == pytest.approx(s["vs_sdpa_cudnn"])


def _label(knobs: dict) -> str:
    from kernel_src.knobs import Knobs

    return Knobs.parse(knobs).label()


def test_the_closing_line_names_both_backends(tmp_path):
    from rich.console import Console

    from agent.progress import Reporter
    from fakes import SimBench

    path, db, rid, said = _sim(tmp_path, "line", SimBench())
    console = Console(record=True, width=400)
    with Reporter(console, 8) as say:
        for e in said:
            say(e)
    text = console.export_text()
    flash, cudnn = _closing(db, rid)
    assert f"final {1 / flash['margin']:.3f}x SDPA flash, {1 / cudnn['margin']:.3f}x SDPA cuDNN; final kernel" in text
    assert "SDPA cuDNN 600.0 TFLOP/s vs final" in text


def test_an_unavailable_cudnn_is_named_with_why_not_left_blank(tmp_path):
    """A device whose torch has no cuDNN attention: the cuDNN row says why in one phrase, and every
    view shows that phrase rather than an empty cell."""
    from agent.summary import run_summary
    from fakes import SimBench

    why = "torch 2.1.0 has no SDPBackend.CUDNN_ATTENTION"
    path, db, rid, said = _sim(tmp_path, "gone", SimBench(unavailable={"cudnn": why}))
    flash, cudnn = _closing(db, rid)
    assert flash["margin"] and cudnn["margin"] is None and cudnn["detail"] == f"unavailable: {why}"
    s = run_summary(db, rid)
    assert s["against_sdpa"][1]["status"] == "unavailable" and s["against_sdpa"][1]["why"] == why
    assert s["against_sdpa_text"] == f"final {1 / flash['margin']:.3f}x SDPA flash, SDPA cuDNN unavailable ({why})"
    assert s["vs_sdpa_cudnn"] is None and s["vs_sdpa_flash"] == pytest.approx(1 / flash["margin"])
    assert [e.why for e in said if e.kind == "comparator"] == [None, f"unavailable: {why}"]
    assert f"SDPA cuDNN unavailable ({why})" in invoke("history", "--db", path).output
    assert f"unavailable: {why}" in invoke("compare", path).output


def test_a_recorded_run_with_an_unavailable_cudnn_replays_the_same_rows(tmp_path):
    from agent.bench import Recorder, Replay
    from fakes import SimBench

    rec = tmp_path / "recording.jsonl"
    _, db, rid, _ = _sim(tmp_path, "recorded", Recorder(SimBench(unavailable={"cudnn": "no cuDNN here"}), rec))
    _, db2, rid2, _ = _sim(tmp_path, "replayed", Replay(rec))
    keep = ("lever", "base_key", "margin", "tflops_base", "tflops_cand", "detail")
    assert [{k: e[k] for k in keep} for e in _closing(db2, rid2)] == [{k: e[k] for k in keep} for e in _closing(db, rid)]


# ---- what was recorded before: flash only, cuDNN not measured --------------------------------------
def test_a_replay_of_a_recording_before_the_cudnn_pair_asks_for_flash_only(run2, tmp_path):
    """The recording has no cuDNN pair to answer: the replay runs with the setting it ran with (flash
    only) and ends with the rows it recorded; its summary says cuDNN was not measured."""
    db = tmp_path / "r.db"
    res = invoke("run", "--budget", 12, "--reanchor-every", 0, "--replay", run2 / "recording.jsonl", "--db", db)
    assert res.exit_code == 0, res.output
    assert "final 0.663x SDPA flash, SDPA cuDNN not measured" in res.output
    rows = json.loads(invoke("history", "--json", "--db", db).output)
    assert [r["lever"] for r in rows if r["kind"] == "comparator"] == ["sdpa_flash"]


@pytest.mark.parametrize("rel", ["2026-11-30_h200_agent_vs_random/n8192_agent.db", "2026-11-30_h200_run2/fa5090.db",
                                 "2026-11-30_h200_fa2_levers/screen_n8192.db.gz"])
def test_recorded_databases_show_cudnn_as_not_measured(tmp_path, rel):
    """Runs recorded with the flash pair only (and a screen with none): every view reads them, cuDNN
    shows as not measured, nothing is made up."""
    db = _copy(tmp_path, rel)
    got = json.loads(invoke("compare", db, "--json").output)[0]
    assert got["vs_sdpa_cudnn"] is None and got["sdpa_cudnn_tflops"] is None
    assert got["against_sdpa"][1] == {"backend": "cudnn", "label": "SDPA cuDNN", "status": "not measured", "why": None,
                                      "vs": None, "ours_tflops": None, "theirs_tflops": None}
    res = invoke("history", "--db", db)
    assert res.exit_code == 0 and "SDPA cuDNN not measured" in res.output.splitlines()[-1]
    assert "not measured" in invoke("compare", db).output
    assert invoke("history", "--all", "--db", db).exit_code == 0


def test_the_report_of_a_run_before_the_cudnn_pair_draws_flash_only(tmp_path):
    pytest.importorskip("matplotlib")
    from agent.report import write
    from store.db import open_db

    db = open_db(_copy(tmp_path, "2026-11-30_h200_agent_vs_random/n8192_agent.db"), read_only=True)
    data = write(db, 1, tmp_path / "r")
    assert data["ladder"]["sdpa_flash_tflops"] == pytest.approx(336.08, abs=0.01) and data["ladder"]["sdpa_cudnn_tflops"] is None
    md = (tmp_path / "r" / "report.md").read_text()
    assert "final 0.866x SDPA flash, SDPA cuDNN not measured" in md
