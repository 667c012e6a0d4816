"""Nothing lost, nothing wrong. A run whose process is gone is marked interrupted (with
what was in flight) by any read-write open and shown so, unmarked, by a read-only one; `run
--resume` continues it to the decisions an uninterrupted run makes; Ctrl-C leaves it resumable;
a second `run` on a database with a live run refuses."""
import hashlib
import os
import socket
import subprocess
import sys

import pytest

from agent.levers import CATALOG
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


# ---- run --resume: the same decisions as the uninterrupted run -------------------------------------
import random  # noqa: E402

from agent.loop import SearchOptions, run_search  # noqa: E402
from agent.resume import resume_search  # noqa: E402
from experiments.problem import Shape  # noqa: E402
from kernel_src.knobs import SEED, Knobs  # noqa: E402

from fakes import SimBench  # noqa: E402

SHAPE = Shape(B=2, H=16, N=8192, D=128)
BUDGET = {"agent": 20, "random": 8, "tpe": 14}  # TPE's model replaces its 10 random start-up draws at 11


class Killed(BaseException):
    """What SIGKILL does to the loop: no handler runs (not an Exception, not a KeyboardInterrupt)."""


class Boom(RuntimeError):
    """An error inside the bench: the loop records the run as `error`, resumable by its id."""


class Dies(SimBench):
    """SimBench that stops the process at its n-th measuring call of `what` (any, when None)."""

    def __init__(self, n: int, what: str | None = None, exc: type[BaseException] = Killed):
        super().__init__()
        self.n, self.what, self.exc, self.count = n, what, exc, 0

    def _tick(self, what):
        if self.what in (None, what):
            self.count += 1
            if self.count == self.n:
                raise self.exc(f"killed at {what} #{self.n}")

    def evaluate(self, *a, **k):
        self._tick("evaluate")
        return super().evaluate(*a, **k)

    def aa_null(self, *a, **k):
        self._tick("aa_null")
        return super().aa_null(*a, **k)

    def paired(self, *a, **k):
        self._tick("paired")
        return super().paired(*a, **k)

    def profile(self, *a, **k):
        self._tick("profile")
        return super().profile(*a, **k)


def _trace(db, rid):
    """What a run decided, in order: every finished row but the ones cut off in flight."""
    return [(e["seq"], e["kind"], e["lever"], e["knob_key"], e["outcome"], e["margin"])
            for e in q.history(db, rid) if e["outcome"] != "INTERRUPTED"]


def _bury(path, rid):
    """The process that owned the run is gone: as after SIGKILL (its pid no longer exists)."""
    db = open_db(path)
    db.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", [_dead_pid(), rid])
    db.close()


def _uninterrupted(tmp_path, strategy, exclude: tuple[str, ...] = (), **opts):
    path = tmp_path / f"whole_{strategy}.db"
    db = open_db(path)
    rid = run_search(SimBench(), db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art",
                     options=SearchOptions(strategy=strategy, budget=BUDGET[strategy], exclude=exclude, **opts))
    return db, rid


def _interrupted(tmp_path, strategy, kills: list[tuple[int, str | None, type]], exclude: tuple[str, ...] = (), **opts):
    """The same run stopped at each kill in turn, resumed after each; returns the final database."""
    path = tmp_path / f"cut_{strategy}.db"
    db = open_db(path)
    rid = None
    for i, (n, what, exc) in enumerate(kills + [(0, None, Killed)]):
        bench = Dies(n, what, exc) if n else SimBench()
        try:
            if rid is None:
                rid = run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / "art",
                                 options=SearchOptions(strategy=strategy, budget=BUDGET[strategy], exclude=exclude,
                                                       **opts))
            else:
                named = rid if q.get_run(db, rid)["status"] == "error" else None  # the default: latest interrupted
                assert resume_search(bench, db, named, artifacts=tmp_path / "art") == rid
            assert n == 0 or bench.count < n, "the kill point was never reached"
            break
        except (Killed, KeyboardInterrupt, Boom):
            rid = rid or q.latest_run(db)["id"]
            if exc is Killed:  # nothing ran on the way out: the next open finds the owner gone
                db.close()
                _bury(path, rid)
                db = open_db(path)
            assert q.get_run(db, rid)["status"] in ("interrupted", "error")
    return db, rid


KILLS = {  # (n-th call, of what, how): in flight, in a keep's re-measured null, in a re-anchor, in the closing pairs
    "sigkill_in_the_seeds_profile": [(1, "profile", Killed)],  # no seed row yet
    "sigkill_in_the_first_null": [(1, "aa_null", Killed)],  # the seed's row, no null
    "sigkill_in_experiment_1": [(1, "evaluate", Killed)],
    "ctrl_c_in_experiment_4": [(4, "evaluate", KeyboardInterrupt)],
    "error_in_experiment_6": [(6, "evaluate", Boom)],
    "sigkill_in_the_null_after_a_keep": [(2, "aa_null", Killed)],
    "sigkill_in_the_profile_of_a_keep": [(2, "profile", Killed)],
    "sigkill_in_the_first_reanchor": [(1, "paired", Killed)],
    "sigkill_in_the_comparator": [(3, "paired", Killed)],
    "sigkill_between_the_closing_pairs": [(4, "paired", Killed)],  # flash recorded, cuDNN owed
    "three_kills": [(3, "evaluate", Killed), (2, "evaluate", KeyboardInterrupt), (5, None, Killed)],
}


@pytest.mark.parametrize("kills", list(KILLS), ids=list(KILLS))
def test_a_killed_agent_run_resumed_makes_the_uninterrupted_runs_decisions(tmp_path, kills):
    whole, w = _uninterrupted(tmp_path, "agent")
    cut, c = _interrupted(tmp_path, "agent", KILLS[kills])
    assert _trace(cut, c) == _trace(whole, w)  # same keeps, same margins, nothing doubled, nothing lost
    a, b = q.get_run(whole, w), q.get_run(cut, c)
    assert (b["status"], b["stop_reason"], b["noise"]) == (a["status"], a["stop_reason"], a["noise"])
    assert len(b["resumes"]) == len(KILLS[kills])
    assert [(s["lever"], s["status"]) for s in q.shelf(cut, c)] == [(s["lever"], s["status"]) for s in q.shelf(whole, w)]
    counted = [e["seq"] for e in q.history(cut, c) if e["seq"]]
    assert counted == list(range(1, len(counted) + 1))


# The Hopper arm's levers. TPE's draws are constructive now (a few asks a draw over the whole space); drawn
# uniformly, as recorded runs drew, under 1% of the full space's points were valid from the scalar seed, so
# TPE's ten start-up draws took 7,077 asks (23 s) and this test, whose resumes ask again from the first draw,
# 173 s. `uniform` keeps that case, without the Hopper levers (253 asks, 1.1 s).
HOPPER_LEVERS = ("wgmma", "tma", "tma_ring", "hopper_tile", "last_warp_refill", "producer_warpgroup", "pingpong",
                 *(lv.name for lv in CATALOG if lv.name.startswith("ws_")))  # the warp-specialised mainloop's


@pytest.mark.parametrize("strategy, draw", [("random", None), ("tpe", "constructive"), ("tpe", "uniform")])
def test_random_and_tpe_resumed_draw_what_the_uninterrupted_run_drew(tmp_path, strategy, draw):
    """Their RNG is re-derived by replaying the strategy over the finished trials (and the run's options:
    the levers it excluded, how TPE drew)."""
    exclude, opts = (), {}
    if strategy == "tpe":
        pytest.importorskip("optuna")
        exclude, opts = (HOPPER_LEVERS if draw == "uniform" else ()), {"tpe_draw": draw}
    whole, w = _uninterrupted(tmp_path, strategy, exclude, **opts)
    cut, c = _interrupted(tmp_path, strategy, [(2, "evaluate", Killed), (3, "evaluate", KeyboardInterrupt),
                                               (BUDGET[strategy] - 5 - 1, "evaluate", Killed)], exclude, **opts)
    assert _trace(cut, c) == _trace(whole, w)
    assert q.get_run(cut, c)["stop_reason"] == q.get_run(whole, w)["stop_reason"]
    assert sum(e["outcome"] == "INTERRUPTED" for e in q.history(cut, c)) == 3
    if strategy == "tpe":
        assert q.get_run(cut, c)["options"]["search"]["tpe_draw"] == draw  # the resume drew as the run did


def test_twenty_kills_at_random_moments_then_resume(tmp_path):
    """SIGKILL x20, on the synthetic bench: each kill at a random measuring call."""
    rng = random.Random(11)
    whole, w = _uninterrupted(tmp_path, "agent")
    cut, c = _interrupted(tmp_path, "agent", [(rng.randint(1, 3), None, Killed) for _ in range(20)])
    assert _trace(cut, c) == _trace(whole, w)
    assert len(q.get_run(cut, c)["resumes"]) == 20


def test_a_run_resumes_with_the_agent_version_it_recorded(tmp_path):
    """Version 2 from the wgmma seed has no lever to try (the H200 run that stopped "exhausted") where
    the current version has the arm's: a version-2 run killed before its first experiment resumes as
    version 2 and stops where it would have."""
    wg = Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem", kv_stages=2)
    path = tmp_path / "v2.db"
    db = open_db(path)
    with pytest.raises(Killed):
        run_search(Dies(1, "profile"), db, shape=SHAPE, seed=wg, artifacts=tmp_path / "art",
                   options=SearchOptions(budget=10, agent_version=2))
    rid = q.latest_run(db)["id"]
    db.close()
    _bury(path, rid)
    db = open_db(path)
    assert resume_search(SimBench(), db, artifacts=tmp_path / "art") == rid
    run = q.get_run(db, rid)
    assert run["status"] == "exhausted" and run["options"]["search"]["agent_version"] == 2


def test_resume_refuses_what_it_cannot_continue(tmp_path):
    db, rid = _uninterrupted(tmp_path, "agent")
    from agent.loop import SearchError
    with pytest.raises(SearchError, match="no interrupted run"):
        resume_search(SimBench(), db, artifacts=tmp_path)
    with pytest.raises(SearchError, match="not interrupted"):
        resume_search(SimBench(), db, rid, artifacts=tmp_path)


# ---- the CLI: Ctrl-C during a run, then --resume -------------------------------------------------
def test_ctrl_c_in_a_run_exits_130_naming_run_resume_and_leaves_it_resumable(run2, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from agent.bench import Replay
    from agent.cli import app

    calls = {"n": 0}
    real = Replay.evaluate

    def evaluate(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(Replay, "evaluate", evaluate)
    db = tmp_path / "c.db"
    res = CliRunner().invoke(app, ["run", "--budget", "12", "--reanchor-every", "0", "--replay",
                                   str(run2 / "recording.jsonl"), "--db", str(db)])
    assert res.exit_code == 130, res.output
    last = res.output.strip().splitlines()[-1]  # after the run's own progress lines, one sentence
    assert last.startswith("error: interrupted: run 1") and "`fa5090-search run --resume 1`" in last
    s = open_db(db)
    run = q.get_run(s, 1)
    assert run["status"] == "interrupted" and "Ctrl-C" in run["stop_reason"]
    assert "experiment 3 (cp_async) was in flight" in run["stop_reason"]
    assert [e["lever"] for e in q.history(s, 1) if e["outcome"] == "INTERRUPTED"] == ["cp_async"]
    assert [e["seq"] for e in q.history(s, 1) if e["seq"]] == [1, 2]
    # what --resume refuses, in one sentence each
    for args, code, words in ((["run", "7"], 2, "only read with --resume"),
                              (["run", "--resume", "9"], 1, "no runs row with id 9"),
                              (["run", "--resume", "--replay", "x.jsonl"], 2, "from its start")):
        res = CliRunner().invoke(app, [*args, "--db", str(db)])
        assert res.exit_code == code and words in res.output, res.output


# ---- Ctrl-C takes the worker's whole process group down -------------------------------------------
def test_ctrl_c_while_a_worker_runs_kills_its_process_group(tmp_path):
    """The worker runs in its own session (a hang is killed with all it started), so a terminal's
    Ctrl-C reaches only the parent; the parent kills the group on its way out."""
    import signal
    import threading
    import time

    from experiments.child import run_group

    pids = tmp_path / "pids"
    code = ("import os, subprocess, sys, time\n"
            "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{g.pid}}')\n"
            "time.sleep(60)")
    # Python turns SIGINT into KeyboardInterrupt only where it was not ignored at its start: a suite started
    # in the background (nohup, `&` in a script) inherits SIGINT ignored, as the tool itself would there; the
    # interactive terminal's case is the one tested, so its handler is set for this test
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))  # what the terminal sends on Ctrl-C
    try:
        timer.start()
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_group([sys.executable, "-c", code], timeout=60)
        assert time.monotonic() - t0 < 30
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    for pid in map(int, pids.read_text().split()):  # the worker and the grandchild it started
        for _ in range(50):
            if owner.gone(pid, socket.gethostname(), None):
                break
            time.sleep(0.1)
        assert owner.gone(pid, socket.gethostname(), None), f"pid {pid} outlived the Ctrl-C"


def test_a_hung_worker_is_killed_at_its_timeout_with_its_group():
    from experiments.child import run_group

    rc, _, _ = run_group([sys.executable, "-c", "import time; time.sleep(60)"], timeout=1)
    assert rc is None


# ---- two runs on one database, and a reader during a run ----------------------------------------
N2048 = Shape(B=2, H=16, N=2048, D=128)


class H200(SimBench):
    def device(self):
        return super().device().model_copy(update={"name": "NVIDIA H200"})

def test_a_second_run_is_refused_while_another_process_runs_and_a_reader_sees_consistent_rows(tmp_path, run2):
    from typer.testing import CliRunner

    from agent.cli import app
    from store.errors import RunInProgress

    path, gate = tmp_path / "shared.db", tmp_path / "go"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = f"""
import sys, time, pathlib
sys.path.insert(0, {os.path.join(root, 'tests')!r})
from fakes import SimBench
from agent.loop import SearchOptions, run_search
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store import open_db

class Waits(SimBench):
    n = 0
    def device(self):  # the H200 run's device and problem, so the CLI's replay of it meets this run
        return super().device().model_copy(update={{"name": "NVIDIA H200"}})
    def evaluate(self, *a, **k):
        self.n += 1
        if self.n == 3:  # stop in the middle of the run until the test says go
            pathlib.Path({str(gate)!r} + ".waiting").touch()
            while not pathlib.Path({str(gate)!r}).exists():
                time.sleep(0.05)
        return super().evaluate(*a, **k)

run_search(Waits(), open_db({str(path)!r}), shape=Shape(B=2, H=16, N=2048, D=128), seed=SEED,
           artifacts=pathlib.Path({str(tmp_path / 'art')!r}), options=SearchOptions(budget=6))
"""
    first = subprocess.Popen([sys.executable, "-c", code], cwd=root)
    try:
        waiting = tmp_path / "go.waiting"
        for _ in range(600):
            if waiting.exists() or first.poll() is not None:
                break
            import time
            time.sleep(0.05)
        assert waiting.exists(), "the first run never reached its third experiment"
        # a reader during the run: read-only, consistent rows, the run shown running
        ro = open_db(path, read_only=True)
        assert q.get_run(ro, 1)["status"] == "running"
        rows = q.history(ro, 1)
        assert [r["seq"] for r in rows if r["seq"]] == [1, 2, 3]
        assert all(r["outcome"] for r in rows if r["seq"] in (1, 2)) and rows[-1]["outcome"] is None
        ro.close()
        # a second run, in this process and through the CLI: refused in one sentence, nothing written
        with pytest.raises(RunInProgress, match=f"run 1 is in progress in this database \\(pid {first.pid}"):
            run_search(H200(), open_db(path), shape=N2048, seed=SEED, artifacts=tmp_path / "art",
                       options=SearchOptions(budget=2))
        res = CliRunner().invoke(app, ["run", "--replay", str(run2 / "recording.jsonl"), "--db", str(path)])
        assert res.exit_code == 1 and "run 1 is in progress" in res.output and "use another --db" in res.output
        assert len(q.runs(open_db(path, read_only=True))) == 1
    finally:
        gate.touch()
        assert first.wait(timeout=120) == 0
    db = open_db(path)
    assert q.get_run(db, 1)["status"] in ("budget", "plateau")
    assert [r["seq"] for r in q.history(db, 1) if r["seq"]] == list(range(1, 7))
    run_search(H200(), db, shape=N2048, seed=SEED, artifacts=tmp_path / "art", options=SearchOptions(budget=2))


def test_a_draw_that_does_not_replay_refuses_the_resume_and_leaves_the_run_as_it_was(tmp_path):
    from agent.loop import SearchError

    cut, c = _interrupted(tmp_path, "random", [(3, "evaluate", KeyboardInterrupt)])
    path = tmp_path / "cut_random.db"
    db = open_db(path)
    run = q.latest_run(db)
    assert run["status"] == "budget"  # _interrupted resumed it to the end; cut it again by hand
    db.execute("UPDATE runs SET status = 'interrupted' WHERE id = ?", [run["id"]])
    db.execute("UPDATE experiments SET knob_key = 'tampered' WHERE run_id = ? AND seq = 2", [run["id"]])
    db.conn.commit()
    with pytest.raises(SearchError, match="does not draw experiment 2 again"):
        resume_search(SimBench(), db, artifacts=tmp_path / "art")
    assert q.get_run(db, run["id"])["status"] == "interrupted" and q.get_run(db, run["id"])["resumes"] == run["resumes"]


def test_a_run_killed_with_sigkill_in_another_process_is_resumed_to_the_same_decisions(tmp_path):
    """End to end: a real process SIGKILLed in its fifth experiment; this one resumes it."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = tmp_path / "killed.db"
    code = f"""
import os, signal, sys, pathlib
sys.path.insert(0, {os.path.join(root, 'tests')!r})
from fakes import SimBench
from agent.loop import SearchOptions, run_search
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store import open_db

class Killed(SimBench):
    n = 0
    def evaluate(self, *a, **k):
        self.n += 1
        if self.n == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().evaluate(*a, **k)

run_search(Killed(), open_db({str(path)!r}), shape=Shape(B=2, H=16, N=8192, D=128), seed=SEED,
           artifacts=pathlib.Path({str(tmp_path / 'art')!r}), options=SearchOptions(budget=20))
"""
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == -9
    db = open_db(path)  # the owner is gone: marked here
    assert "experiment 5" in q.get_run(db, 1)["stop_reason"]
    assert resume_search(SimBench(), db, artifacts=tmp_path / "art") == 1
    whole, w = _uninterrupted(tmp_path, "agent")
    assert _trace(db, 1) == _trace(whole, w)


def test_a_worker_dies_with_its_sigkilled_parent(tmp_path):
    """A worker runs in its own session (a hang is killed with its whole group), so a SIGKILL of the
    tool reached neither the tool's handlers nor the worker, which kept the GPU busy under the resumed
    run (the GPU fault battery's dry run, scripts/device_faults.py). Now the kernel kills it with its parent."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    pidfile = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from experiments.child import run_group
run_group([sys.executable, "-c", "import sys, os, time; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); "
           "from experiments.child import die_with_parent; die_with_parent(); "
           "open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(120)"], timeout=300)
"""])
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.05)
    child = int(pidfile.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the worker outlived its SIGKILLed parent")


def test_a_replay_reads_a_resumed_runs_recordings_after_the_first_in_their_order(tmp_path):
    """`run --replay <run-N>/recording.jsonl` of a run that was resumed: the resumed processes wrote
    recording.resume-1.jsonl, -2, ... beside it (agent/commands/search.py); the replay reads them
    after it in numeric order (10 after 2), so it answers what the uninterrupted run asked. Replayed
    on the H200's naive_n8192 run, interrupted at #19 and resumed, in tests/test_replay_naive_seed_searches.py."""
    from agent.bench import Replay, resumes

    rec = tmp_path / "recording.jsonl"
    rec.write_text('{"key": "a", "result": 1}\n')
    for n in (10, 2, 1):
        (tmp_path / f"recording.resume-{n}.jsonl").write_text(f'{{"key": "a", "result": {n + 100}}}\n')
    (tmp_path / "recording.resume-x.jsonl").write_text("not a recording\n")  # not a resume's name: ignored
    assert [p.name for p in resumes(rec)] == ["recording.resume-1.jsonl", "recording.resume-2.jsonl",
                                             "recording.resume-10.jsonl"]
    assert Replay(rec)._answers["a"] == [1, 101, 102, 110]
