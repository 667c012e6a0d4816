"""Which process owns a run, and whether it is still there.

A pid alone is not an identity: pids are reused, so the owner is (host, pid, start time), the start
time read from /proc as "<boot id>:<start ticks>". A run whose owner is on this host and is gone (no
such pid, a zombie, or a pid now held by a process that started at another time) is stale. A run
owned by another host, or recorded before m005 (no owner), is never judged: we cannot see it."""
from __future__ import annotations

import os
import socket
from pathlib import Path


def host() -> str:
    return socket.gethostname()


def start_of(pid: int) -> str | None:
    """The process's start identity, or None where /proc cannot tell (not Linux, no such pid)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state is field 3, starttime 22
    return f"{boot}:{fields[19]}"


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] in ("Z", "X")


def me() -> dict:
    """The owner columns of a run this process starts or resumes."""
    pid = os.getpid()
    return {"owner_pid": pid, "owner_host": host(), "owner_start": start_of(pid)}


def gone(pid: int | None, owner_host: str | None, started: str | None) -> bool:
    """True only when the owner is known to be gone: same host, and the pid is dead, a zombie, or
    alive with another start time."""
    if pid is None or owner_host != host():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, another user's
    if _zombie(pid):
        return True
    now = start_of(pid)
    return started is not None and now is not None and now != started
