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


def run_group(cmd: list[str], timeout: float, **popen) -> tuple[int | None, str, str]:
    """(returncode, stdout, stderr); returncode None when it ran past `timeout` and was killed."""
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
