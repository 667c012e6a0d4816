"""Issue 11: nothing lost, nothing wrong. A run whose process is gone is marked interrupted (with
what was in flight) by any read-write open and shown so, unmarked, by a read-only one; `run
--resume` continues it to the decisions an uninterrupted run makes; Ctrl-C leaves it resumable;
a second `run` on a database with a live run refuses."""
import hashlib
import os
import socket
import subprocess
import sys

import pytest

from store import open_db
from store import owner
from store import queries as q

GPU, PROBLEM = "NVIDIA H200 (simulated)", "B2-H16-N8192-D128-float16-noncausal"


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid  # reaped: no such process (a reuse within this test is not plausible)


def _run_with_one_in_flight(path, **owner_fields):
    db = open_db(path)
    rid = q.create_run(db, gpu_name=GPU, problem_key=PROBLEM, **owner_fields)
    for seq in (1, 2):
        e = q.start_experiment(db, rid, seq=seq, kind="lever", lever=f"lever{seq}")
        q.finish_experiment(db, e, outcome="SLOWER")
    flying = q.start_experiment(db, rid, seq=3, kind="lever", lever="exp2")
    db.close()
    return rid, flying


def test_a_run_whose_process_is_gone_is_marked_interrupted_with_what_was_in_flight(tmp_path):
    path = tmp_path / "s.db"
    rid, flying = _run_with_one_in_flight(path, owner_pid=_dead_pid(), owner_host=socket.gethostname(),
                                          owner_start="x:1")
    db = open_db(path)
    run = q.get_run(db, rid)
    assert run["status"] == "interrupted" and "stale" not in run  # marked, not only computed
    assert "experiment 3 (exp2) was in flight" in run["stop_reason"] and "was gone" in run["stop_reason"]
    e = q.experiment(db, flying)
    assert e["outcome"] == "INTERRUPTED" and e["seq"] is None and "in flight as experiment 3" in e["detail"]
    # the finished ones are untouched and still counted
    assert [r["seq"] for r in q.history(db, rid) if r["seq"]] == [1, 2]


def test_a_read_only_open_shows_the_run_interrupted_and_writes_nothing(tmp_path):
    path = tmp_path / "s.db"
    rid, flying = _run_with_one_in_flight(path, owner_pid=_dead_pid(), owner_host=socket.gethostname(),
                                          owner_start="x:1")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    ro = open_db(path, read_only=True)
    run = q.get_run(ro, rid)
    assert run["status"] == "interrupted" and run["stale"] and "not yet marked" in run["stop_reason"]
    assert q.experiment(ro, flying)["outcome"] is None  # shown as it is
    ro.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    raw = open_db(path)  # ... and the next read-write open marks it
    assert q.get_run(raw, rid)["status"] == "interrupted" and q.experiment(raw, flying)["outcome"] == "INTERRUPTED"


def test_a_reused_pid_with_another_start_time_is_gone_but_a_live_owner_is_not(tmp_path):
    me = os.getpid()
    assert not owner.gone(me, socket.gethostname(), owner.start_of(me))  # this very process
    assert owner.gone(me, socket.gethostname(), "another-boot:1")  # same pid, another process
    assert owner.gone(_dead_pid(), socket.gethostname(), None)
    assert not owner.gone(_dead_pid(), "another-host", None)  # another machine: cannot be judged
    assert not owner.gone(None, None, None)  # recorded before m005: cannot be judged
    path = tmp_path / "s.db"
    rid, _ = _run_with_one_in_flight(path)  # owned by this live process
    assert q.get_run(open_db(path), rid)["status"] == "running"


def test_a_sigkilled_owner_is_found_gone(tmp_path):
    """A real process records a run and an experiment in flight, then is killed with SIGKILL."""
    path = tmp_path / "s.db"
    code = (f"import os, signal; from store import open_db; from store import queries as q\n"
            f"db = open_db({str(path)!r}); rid = q.create_run(db, gpu_name='g', problem_key='p')\n"
            f"q.start_experiment(db, rid, seq=1, kind='lever', lever='exp2')\n"
            f"os.kill(os.getpid(), signal.SIGKILL)")
    p = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(os.path.dirname(__file__)))
    assert p.returncode == -9
    run = q.get_run(open_db(path), 1)
    assert run["status"] == "interrupted" and "experiment 1 (exp2) was in flight" in run["stop_reason"]
