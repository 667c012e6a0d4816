#!/usr/bin/env python3
"""Kill, on purpose, a Dask worker process under a running `--gpus N` command, as an OOM kill or a lost node would:
SIGKILL to one worker process (a `multiprocessing` child the command's process spawned for a Nanny), not to the
command. Its nanny starts a new worker; the command re-queues what the dead one was measuring (agent.distributed).
A worker's GPU cannot be read from outside (the Nanny sets CUDA_VISIBLE_DEVICES inside the child after it starts, so
/proc/PID/environ does not show it): the script kills a worker that is measuring (one with a child process, a GPU
job), the most recently started one when several are. Prints what it killed, and when.

    python3 kill_worker.py --pattern "agent tune" --after 150 [--timeout 600]

--pattern picks the command by its command line (the process that has spawned workers); --after waits that many
seconds from the start of this script, then kills a worker (waiting up to --timeout for one that is measuring). Exit
0 when it killed one, 1 when no such command or worker appeared in time. Linux only (/proc)."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def processes() -> list[tuple[int, int, str, dict]]:
    """(pid, ppid, command line, environment) of every process this user can read."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read(f"/proc/{name}/stat").decode(errors="replace")
        if not stat:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        cmd = _read(f"/proc/{name}/cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
        env = dict(kv.split("=", 1) for kv in _read(f"/proc/{name}/environ").decode(errors="replace").split("\0")
                   if "=" in kv)
        out.append((int(name), ppid, cmd, env))
    return out


def find_worker(pattern: str) -> tuple[int | None, int | None]:
    """(the command's pid, the pid of one of its workers that is measuring): a worker is a `spawn_main` child of the
    command's process; measuring, it has a child of its own (the GPU job)."""
    procs = processes()
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for pid, ppid, _, _ in procs:
        children.setdefault(ppid, []).append(pid)
    spawned = {pid: ppid for pid, ppid, cmd, _ in procs if "spawn_main" in cmd}
    roots = sorted({ppid for ppid in spawned.values()
                    if any(p == ppid and pattern in c and p != me for p, _, c, _ in procs)})
    if not roots:
        return None, None
    root = roots[0]
    busy = [pid for pid, ppid in spawned.items() if ppid == root and children.get(pid)]
    return root, max(busy) if busy else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--after", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    time.sleep(a.after)
    while time.monotonic() - t0 < a.after + a.timeout:
        root, worker = find_worker(a.pattern)
        if worker is not None:
            os.kill(worker, signal.SIGKILL)
            print(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} killed worker pid {worker}, measuring, "
                  f"of pid {root} ({a.pattern!r}) {time.monotonic() - t0:.0f} s after the start", flush=True)
            return 0
        time.sleep(0.5)
    print(f"no measuring worker under a command matching {a.pattern!r} within {a.after + a.timeout:.0f} s")
    return 1


if __name__ == "__main__":
    sys.exit(main())
