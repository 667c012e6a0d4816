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

RESULTS = Path(__file__).resolve().parents[1] / "results"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _copy(tmp_path, rel: str) -> Path:
    dst = tmp_path / Path(rel).name
    shutil.copy(RESULTS / rel, dst)
    return dst


def test_a_later_baseline_row_never_stands_in_for_the_runs_own_flash_pair(tmp_path):
    """stacked_n8192.db: the run's closing pair has SDPA flash at 335.7 TFLOP/s; a `baseline` process
    afterwards stored cuDNN at 617.5 as the last comparator row, which `compare` used to show as flash."""
    db = _copy(tmp_path, "2026-11-30_h200_session8/stacked_n8192.db")
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
