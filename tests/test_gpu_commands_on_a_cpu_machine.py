"""Every command that needs a GPU, run on a machine without one against a copy of a committed database
at each schema the results hold (m001 to m005, and one whose run was killed and never marked): the
refusal is one sentence on stderr with exit 1, and the file is byte for byte what it was, with nothing
beside it (a read-write open would have switched it to WAL, migrated it and marked the killed run).
With a GPU (the H200 recorded in a run's recording), a problem its memory cannot hold is refused with
the arithmetic before any database is opened for writing."""
import hashlib
import json
import shutil

import pytest
from typer.testing import CliRunner

from agent.bench import Replay
from agent.cli import app

from recorded import RESULTS, opened

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="a machine with a GPU runs these commands")

COMMITTED = {
    "m001": "2026-11-30_h200_run2/fa5090.db",
    "m002": "2026-11-30_h200_instrument/fa5090.db",
    "m003": "2026-11-30_h200_ladder/fa5090.db",
    "m004": "2026-11-30_h200_agent_vs_random/c16384_agent.db",
    "m005": "2026-11-30_h200_fa2_levers/screen_n8192.db.gz",
    "killed": "2026-11-30_h200_agent_vs_random/n8192_agent_first_attempt_killed_at_9.db",
}
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 128, "torch_dtype": "bfloat16", "num_hidden_layers": 32}
COMMANDS = [["run", "--budget", "1"], ["run", "--screen", "--budget", "1"], ["run", "--resume"], ["run", "--resume", "1"],
            ["rescreen"], ["calibrate"], ["calibrate", "--keep-trials", "2"], ["baseline"],
            ["baseline", "--knob", "compute=mma"], ["derive-tolerance", "-o", "{tmp}/tol.json"],
            ["tune", "--config", "{tmp}/config.json", "--seqlen", "1024"]]
runner = CliRunner()


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_sentence(res, code: int, *words: str) -> str:
    assert res.exit_code == code, (res.stdout, res.stderr)
    assert isinstance(res.exception, SystemExit), res.exception
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture
def where(tmp_path, monkeypatch):
    """A folder holding only what a command is given; the command runs in it (a stray file would show)."""
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("schema", COMMITTED)
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a).replace("{tmp}/", ""))
def test_a_gpu_command_on_a_cpu_machine_refuses_and_leaves_a_committed_database_as_it_was(where, schema, args):
    db = where / "committed.db"
    shutil.copy(opened(RESULTS / COMMITTED[schema]), db)
    before, there = digest(db), sorted(p.name for p in where.iterdir())
    res = runner.invoke(app, [a.format(tmp=where) for a in args] + ["--db", str(db)])
    one_sentence(res, 1, "no usable GPU")
    assert digest(db) == before
    assert sorted(p.name for p in where.iterdir()) == there  # no -wal, -shm, _artifacts or report


def test_sweep_on_a_cpu_machine_refuses_and_writes_nothing(where):
    there = sorted(p.name for p in where.iterdir())
    one_sentence(runner.invoke(app, ["sweep", "--n", "2"]), 1, "no usable GPU")
    assert sorted(p.name for p in where.iterdir()) == there


def test_a_gpu_command_given_no_database_creates_none(where):
    for args in (["run", "--budget", "1"], ["calibrate"], ["tune", "--config", "config.json", "--seqlen", "1024"]):
        one_sentence(runner.invoke(app, [*args, "--db", "new.db"]), 1, "no usable GPU")
        assert not (where / "new.db").exists() and not (where / "new_artifacts").exists()


# ---- a problem the probed GPU cannot hold ------------------------------------------------------
H200 = RESULTS / "2026-12-01_h200_cudnn_anatomy" / "agent9_arm_b2_n2048_d128" / "agent9_artifacts" / "run-1"


@pytest.fixture
def h200(monkeypatch):
    """The H200 as its run recorded it (150,109,880,320 B of memory) answers the probe."""
    dev = Replay(H200 / "recording.jsonl").device()
    assert dev.limits.global_mem == 150_109_880_320
    monkeypatch.setattr("agent.bench.probe", lambda index=0: dev)
    return dev


# N = 2^23 at B2-H16-D128 fp16: 2.749e11 B of q, k, v and o, under the 1 TiB bound, over the H200's 150 GB
N_OVER_H200 = str(1 << 23)


@pytest.mark.parametrize("args", [["run", "--budget", "1", "--seqlen", N_OVER_H200],
                                  ["calibrate", "--seqlen", N_OVER_H200],
                                  ["baseline", "--knob", "compute=mma", "--seqlen", N_OVER_H200],
                                  ["baseline", "--seqlen", N_OVER_H200],
                                  ["tune", "--config", "config.json", "--seqlen", N_OVER_H200]],
                         ids=lambda a: " ".join(a[:3]))
def test_a_problem_the_gpu_cannot_hold_is_refused_with_the_arithmetic_before_anything_is_built(where, h200, args):
    db = where / "committed.db"
    shutil.copy(RESULTS / COMMITTED["m001"], db)
    before, there = digest(db), sorted(p.name for p in where.iterdir())
    res = runner.invoke(app, [*args, "--db", str(db)])
    last = one_sentence(res, 2, "does not fit", f"x N{1 << 23} x D128 = ", "and the fp32 lse 4 B x ",
                        "more than the 150 GB of NVIDIA H200")
    assert "choose a smaller --seqlen" in last
    assert digest(db) == before and sorted(p.name for p in where.iterdir()) == there
    assert not (where / "cache").exists()  # nothing built


def test_the_arithmetic_counts_q_k_v_o_and_the_lse():
    from experiments.problem import Shape, memory_refusal, tensor_bytes

    s = Shape(B=2, H=16, N=1 << 23, D=128, Hkv=4)
    assert tensor_bytes(s) == 2 * 2 * (2 * 16 + 2 * 4) * (1 << 23) * 128 + 4 * 2 * 16 * (1 << 23)
    why = memory_refusal(s, 150_109_880_320, "NVIDIA H200")
    assert "q, k, v and o take 2 B x B2 x (2 x H16 + 2 x Hkv4) x N8388608 x D128 = 1.718e+11 B" in why
    assert "the fp32 lse 4 B x B2 x H16 x N8388608 = 1.074e+09 B, 1.729e+11 B (0.2 TiB) in all" in why
    assert memory_refusal(s.model_copy(update={"N": 1 << 22}), 150_109_880_320, "NVIDIA H200") is None


def test_derive_tolerance_refuses_an_output_it_cannot_write_before_any_gpu_work(where):
    (where / "afile").write_text("")
    one_sentence(runner.invoke(app, ["derive-tolerance", "-o", "afile/tol.json"]), 1,
                 "cannot write afile/tol.json (afile is not a folder)")


def test_derive_tolerance_tries_its_output_where_permissions_do_not_bind(where, monkeypatch):
    """For root a read-only folder's bits are no refusal; the file system's is (here a refused open)."""
    from pathlib import Path

    real = Path.open

    def refuse(self, *a, **k):
        if self.name == "tol.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "open", refuse)
    one_sentence(runner.invoke(app, ["derive-tolerance", "-o", "tol.json"]), 1,
                 "cannot write tol.json (Permission denied)")
    assert not (where / "tol.json").exists()
