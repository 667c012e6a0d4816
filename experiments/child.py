"""A child process in its own process group, taken down whole on a timeout and on any interruption
of the parent.

The worker runs in its own session so that a hang is killed with everything it started; the cost
is that a Ctrl-C at the terminal reaches only the parent, and a worker left behind keeps the GPU
busy (and its timings) after the tool has exited. So the group is killed on the parent's way out
too."""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

PARENT_ENV = "FA5090_PARENT_PID"


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def die_with_parent(check_parent: bool = True) -> None:
    """Called first thing in a worker (and in the process ncu profiles): the kernel sends it SIGKILL
    when its parent dies, however the parent died. A SIGKILL of the tool reaches neither its Python
    handlers nor a worker in its own session, which then kept the GPU busy under the resumed run
    (found by the GPU fault battery's dry run, scripts/device_faults.py). If the parent named in the environment
    is already gone, the worker exits at once. Linux only; elsewhere nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    want = os.environ.pop(PARENT_ENV, None)  # for this process only, never inherited further down
    if check_parent and want and os.getppid() != int(want):  # the parent died before prctl took effect
        os._exit(137)


def start_spare(cmd: list[str]) -> subprocess.Popen:
    """A worker started ahead of its job, in its own session like any other: it imports what a job needs (torch
    first) and waits for one line on its standard input naming the job, so the next measurement does not wait for
    the imports. It touches no GPU before that line: a fresh process and a fresh CUDA context, as before. An empty
    line or a closed input ends it."""
    env = dict(os.environ)
    env[PARENT_ENV] = str(os.getpid())
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)


def stop_spare(p: subprocess.Popen | None) -> None:
    """A spare that will get no job: its whole group killed and reaped."""
    if p is not None and p.poll() is None:
        _kill(p)
        p.communicate()


def run_group(cmd: list[str], timeout: float, spare: subprocess.Popen | None = None, job_line: str = "",
              **popen) -> tuple[int | None, str, str]:
    """(returncode, stdout, stderr); returncode None when it ran past `timeout` and was killed. `spare` (a live
    start_spare process): it is handed `job_line` instead of starting `cmd`; a spare already gone is stopped and
    `cmd` started as before."""
    p = None
    if spare is not None and spare.poll() is None:
        try:
            spare.stdin.write(job_line.rstrip("\n") + "\n")
            spare.stdin.flush()
            p = spare
        except (BrokenPipeError, OSError):  # it died between the poll and the write
            stop_spare(spare)
    elif spare is not None:
        stop_spare(spare)
    if p is None:
        env = dict(popen.pop("env", None) or os.environ)
        env[PARENT_ENV] = str(os.getpid())
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env=env, **popen)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        _kill(p)
        out, err = p.communicate()
        return None, out, err
    except BaseException:  # Ctrl-C (KeyboardInterrupt), SystemExit: nothing of ours outlives the parent
        _kill(p)
        p.wait()
        raise
