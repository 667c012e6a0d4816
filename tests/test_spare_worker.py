"""Each GPU job's child process started ahead of it (experiments.child.start_spare): the same answers as a child
started for the job, the next spare waiting once a job is handed off, a spare that died replaced by a fresh child,
and nothing left running once the Lab is closed. On this CPU machine, with a job that fails in the child before any
GPU work (a library that does not exist)."""
import os
import signal
import time

from experiments.child import start_spare, stop_spare
from experiments.job import CheckStep
from experiments.lab import Lab
from experiments.problem import Shape
from kernel_src.arch import TABLE

SHAPE = Shape(B=1, H=2, N=64, D=64)


def _job(tmp_path):
    return [CheckStep(tag="check", lib=str(tmp_path / "no_such_library.so"), shapes=[SHAPE])]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie not yet reaped counts as gone
        return f.read().split(") ")[1].startswith("Z")


def test_a_spare_answers_as_a_fresh_child_the_next_one_waits_and_a_dead_one_is_replaced(tmp_path):
    lab = Lab(SHAPE, TABLE["sm_90"], tmp_path / "b", spare=True)
    try:
        first = lab.run_job(_job(tmp_path), 120)
        assert len(lab._spares) == lab.spare_depth == 2  # started while the first job ran
        waiting, after = lab._spares
        assert waiting.poll() is None and after.poll() is None
        second = lab.run_job(_job(tmp_path), 120)
        assert waiting.poll() is not None and waiting.returncode == 3  # the oldest ran the second job
        assert lab._spares[0] is after and len(lab._spares) == 2  # the next in line, and one more behind it
        os.killpg(after.pid, signal.SIGKILL)  # the machine took the next one: its job must not be lost
        time.sleep(0.2)
        third = lab.run_job(_job(tmp_path), 120)
        assert after.poll() is not None and len(lab._spares) == 2
        for got in (first, second, third):  # the worker's own refusal of a library that is not there
            assert (got.status, got.steps[0].tag) == ("error", "check")
            assert got.steps[0].error.startswith("OSError") and "no_such_library" in got.steps[0].error
    finally:
        last = list(lab._spares)
        lab.close()
    assert len(last) == 2 and all(_gone(p.pid) for p in last)


def test_a_spare_given_no_job_ends_without_touching_anything():
    import sys

    p = start_spare([sys.executable, "-m", "experiments.worker", "--spare"])
    out, err = p.communicate(input="\n", timeout=120)
    assert p.returncode == 0 and out == "", err
    q = start_spare([sys.executable, "-m", "experiments.worker", "--spare"])
    stop_spare(q)  # killed at once, mid-import
    assert q.poll() is not None
