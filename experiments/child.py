"""A child process in its own process group, taken down whole on a timeout and on any interruption
of the parent.

The worker runs in its own session so that a hang is killed with everything it started; the cost
is that a Ctrl-C at the terminal reaches only the parent, and a worker left behind keeps the GPU
busy (and its timings) after the tool has exited. So the group is killed on the parent's way out
too (issue 11)."""
from __future__ import annotations

import os
import signal
import subprocess


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_group(cmd: list[str], timeout: float, **popen) -> tuple[int | None, str, str]:
    """(returncode, stdout, stderr); returncode None when it ran past `timeout` and was killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         **popen)
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
