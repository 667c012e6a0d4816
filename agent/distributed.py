"""Several GPUs: a bench whose independent measurements run on a Dask cluster.

`--gpus N` starts a local cluster of N Nanny workers, each pinned to one GPU by
CUDA_VISIBLE_DEVICES and holding the resource GPU=1, so a worker times one candidate at a time;
`--scheduler tcp://HOST:PORT` joins workers started elsewhere (README: "Several GPUs").
dask-cuda's LocalCUDACluster is the field's standard for the local case, but its wheel needs
pandas, cuda-core, nvidia-ml-py and rapids-dask-dependency (which pins dask itself), none of
them on the H200 machine: one `Nanny(env={"CUDA_VISIBLE_DEVICES": i})` per GPU is the part of
it this tool needs.

What stays where:
- builds on the client, with the usual ninja builder and content-addressed cache; a worker reads
  the library in place when it sees the client's cache (same host, or a shared file system at the
  same path), else from its own host's cache under the same key, else it asks and the bytes travel
  once with the task and land in that cache;
- the loop's own questions (seed check, A/A null, profile, re-anchor, comparator) on one worker,
  the *home* GPU; independent evaluations (a screen's levers, a sweep's draws) on any worker;
- a pair never leaves its GPU: both arms run in one child process on the worker's device, and each
  worker judges its pairs with an A/A null measured on its own device, recorded with each pair;
- a keep's replicate (the second pair, in a fresh process) runs on another worker than its first
  pair, the next free one, when the cluster has two or more (the same model, so the same question
  on another device: a stronger replicate than the same GPU); with no other worker alive, on the
  same one, said in the detail. It is judged with the replicating worker's own null;
- GPUs of different models are refused in one run (their margins and nulls do not mix);
- a worker that dies while measuring: the candidate is re-queued once, and a second death is
  the candidate's outcome (CRASH), never a lost run. The scheduler's own retries are off
  (allowed-failures 0) so that "once" is counted here.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

from experiments.device import DeviceInfo
from experiments.lab import Evaluation, JobResult, decide
from experiments.outcome import Outcome
from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs

from .bench_protocol import Bench


class DistributedError(RuntimeError):
    pass


# ---- the cluster ------------------------------------------------------------------------------
CONFIG = {"distributed.scheduler.allowed-failures": 0}  # re-queueing is counted here, once


@contextmanager
def open_cluster(gpus: int | None = None, scheduler: str | None = None):
    """A Dask client: a local cluster of one worker per GPU (`gpus`), or an existing scheduler."""
    import dask
    from distributed import Client

    if scheduler:
        try:
            client = Client(scheduler, timeout=30)
        except OSError as e:
            raise DistributedError(f"no Dask scheduler answered at {scheduler}: {e}") from None
        try:
            retries = client.run_on_scheduler(_on_scheduler("allowed_failures"))
            if retries:
                raise DistributedError(
                    f"the scheduler at {scheduler} re-runs a task {retries} time(s) after its worker dies, on its own; "
                    "start it with DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0 so that a candidate whose worker "
                    "died is re-queued once, and recorded, here")
            yield client
        finally:
            client.close()
        return
    with dask.config.set(CONFIG):
        cluster = gpu_cluster(gpus or 1)
        client = Client(cluster)
        try:
            client.wait_for_workers(gpus or 1, timeout=120)
            yield client
        finally:
            client.close()
            cluster.close()


def gpu_cluster(n: int, visible: str | None = None):
    """One Nanny per GPU, pinned by CUDA_VISIBLE_DEVICES (an index of the caller's own list when
    it has one), one thread each, resource GPU=1, no memory limit (the worker only waits on
    child processes; the nanny must not kill it for their memory)."""
    import logging

    from distributed import Nanny, Scheduler, SpecCluster

    visible = os.environ.get("CUDA_VISIBLE_DEVICES") if visible is None else visible
    ids = [v for v in visible.split(",") if v.strip()] if visible else [str(i) for i in range(n)]
    if n > len(ids):
        raise DistributedError(f"--gpus {n} but CUDA_VISIBLE_DEVICES names only {len(ids)} GPU(s) ({visible})")
    workers = {f"gpu{i}": {"cls": Nanny, "options": {
        "nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": ids[i]}, "resources": {"GPU": 1}, "memory_limit": 0,
        "silence_logs": logging.CRITICAL}} for i in range(n)}
    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": ":0"}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR)


def check_one_model(devices: dict[str, DeviceInfo]) -> None:
    """Margins and nulls of different GPU models do not mix: refused in one sentence."""
    names = sorted({d.name for d in devices.values()})
    if len(names) > 1:
        raise DistributedError(f"the cluster's workers hold GPUs of different models ({', '.join(names)}); "
                               "run one cluster (or one --scheduler) per model")


# ---- what runs on a worker ------------------------------------------------------------------
_BENCHES: dict[str, object] = {}  # this worker process's bench, per DaskBench (token)
_DEVICES: dict[str, DeviceInfo] = {}
_NULLS: dict[tuple, dict] = {}  # (token, knob key, repeats) -> this device's A/A null


def gpu_worker_bench(shape, budget_s: float, l2: str, profile: bool):
    """The bench of one GPU worker: the device read in a child process (the worker keeps no CUDA
    context of its own), its own build cache (FA5090_CACHE on that host) for libraries it is sent."""
    from agent.bench import GpuBench

    out = subprocess.run([sys.executable, "-c", "from experiments.device import probe; print(probe().model_dump_json())"],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise DistributedError(f"the worker with CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')} "
                               f"could not read its GPU: {last}")
    dev = DeviceInfo.model_validate_json(out.stdout.strip().splitlines()[-1])
    cache = Path(os.environ.get("FA5090_CACHE", Path.home() / ".cache" / "fa5090-search"))
    return GpuBench(shape, cache, budget_s=budget_s, profile=profile, l2=l2, device=dev)


def _here(token: str, make):
    if token not in _BENCHES:
        bench = make()
        _DEVICES[token] = bench.device()
        _BENCHES[token] = bench
    return _BENCHES[token]


def _where(token: str) -> dict:
    from distributed import get_worker

    w = get_worker()
    return {"worker": str(w.name), "address": w.address, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "gpu": _DEVICES[token].name}


class LibraryMissing(Exception):
    """This worker's host has neither the client's path nor a cached copy of these builds: send bytes."""


def _place(bench, libs: list) -> None:
    """Hand the worker's lab the libraries the client built, found by content key: at the client's
    path (same host, or a shared file system mounted at the same path), else in this host's own cache
    (FA5090_CACHE/build/<key>/fa.so), else written there from the bytes the client sent."""
    lab = bench.lab
    if lab is None:  # a replay or a fake builds nothing
        return
    missing = []
    for knobs, built, size, data in libs:
        if built.ok:
            here = lab.cache_dir / "build" / built.key / "fa.so"
            seen = [q for q in (Path(built.library), here) if q.exists() and q.stat().st_size == size]
            if not seen and data is not None:
                here.parent.mkdir(parents=True, exist_ok=True)
                tmp = here.with_suffix(f".{uuid.uuid4().hex}.tmp")
                tmp.write_bytes(data)
                os.replace(tmp, here)
                seen = [here]
            if not seen:
                missing.append(built.key)
                continue
            built = built.model_copy(update={"library": str(seen[0])})
        lab.adopt(knobs, built)
    if missing:
        raise LibraryMissing(missing)


def _null_here(token: str, bench, knobs: Knobs, repeats: int) -> dict:
    key = (token, knobs.key(), repeats)
    if key not in _NULLS:
        _NULLS[key] = _null_of(bench.aa_null(knobs, repeats))
    return _NULLS[key]


def _null_of(aa: list[dict]) -> dict:
    margins = [a["margin"] for a in aa]
    tn = noise_of(margins)
    return {"t_noise": tn, "t_keep": 1.0 + tn, "aa_margins": margins}


def _probe_here(token: str, make) -> DeviceInfo:
    _here(token, make)
    return _DEVICES[token]


def _on_scheduler(what: str):
    """A question for the scheduler itself, as a nested function: cloudpickle sends it by value, so a
    scheduler that does not have this project installed can answer it. "gpu_workers": name -> address
    of the workers holding the resource GPU, now (the client's copy of that list lags by seconds)."""
    def ask(dask_scheduler=None):
        if what == "allowed_failures":
            return dask_scheduler.allowed_failures
        return {str(ws.name): ws.address for ws in dask_scheduler.workers.values() if ws.resources.get("GPU", 0) >= 1}
    return ask


# ---- what a worker is asked: one typed operation per task
class Op:
    """One bench call on a worker: `run` answers it there; `where` (the worker, its device) is the
    answer's provenance, to which an operation adds what it measured it with."""

    def run(self, bench: Bench, token: str, where: dict, null_repeats: int):
        raise NotImplementedError


@dataclass(frozen=True)
class Evaluate(Op):
    base: Knobs
    cand: Knobs
    t_keep: float
    t_noise: float
    ceiling: float | None
    simpler: bool
    split: bool = False  # a keep's replicate runs on another worker (DaskBench._replicate)

    def run(self, bench, token, where, null_repeats):
        gate = {"t_keep": self.t_keep, "t_noise": self.t_noise, "ceiling": self.ceiling, "simpler": self.simpler}
        if self.split and bench.replicates_apart:  # the replicate runs elsewhere (a replay's worker answers
            gate["replicate"] = False  # whole recorded evaluations)
            where["split"] = True
        if null_repeats:  # judged with this device's own null, measured once per base kernel
            null = _null_here(token, bench, self.base, null_repeats)
            gate.update(t_noise=null["t_noise"], t_keep=null["t_keep"])
            where.update(null, null_repeats=null_repeats)
        return bench.evaluate(self.base, self.cand, **gate)


@dataclass(frozen=True)
class Replicate(Op):
    base: Knobs
    cand: Knobs

    def run(self, bench, token, where, null_repeats):
        if null_repeats:  # judged with this device's own null, measured on this base first if not yet
            where.update(_null_here(token, bench, self.base, null_repeats), null_repeats=null_repeats)
        return bench.replicate(self.base, self.cand)


@dataclass(frozen=True)
class Map(Op):
    fn: Callable
    item: object

    def run(self, bench, token, where, null_repeats):
        return self.fn(bench, self.item)


@dataclass(frozen=True)
class Check(Op):
    knobs: Knobs
    shapes: list

    def run(self, bench, token, where, null_repeats):
        return bench.check(self.knobs, self.shapes)


@dataclass(frozen=True)
class Attributes(Op):
    knobs: Knobs

    def run(self, bench, token, where, null_repeats):
        return bench.attributes(self.knobs)


@dataclass(frozen=True)
class Profile(Op):
    knobs: Knobs

    def run(self, bench, token, where, null_repeats):
        return bench.profile(self.knobs)


@dataclass(frozen=True)
class Ceilings(Op):
    dtype: str

    def run(self, bench, token, where, null_repeats):
        return bench.ceilings(self.dtype)


@dataclass(frozen=True)
class Paired(Op):
    base: dict
    cand: dict

    def run(self, bench, token, where, null_repeats):
        return bench.paired(self.base, self.cand)


@dataclass(frozen=True)
class AaNull(Op):
    knobs: Knobs
    repeats: int

    def run(self, bench, token, where, null_repeats):
        got = bench.aa_null(self.knobs, self.repeats)
        _NULLS[(token, self.knobs.key(), self.repeats)] = _null_of(got)  # the loop's null on the home device is
        return got  # that device's null too


# the name of each operation the loop asks the home GPU, in a task's description and a death's sentence
_NAMES = {Check: "check", Attributes: "attributes", Profile: "profile", Ceilings: "ceilings", AaNull: "aa_null",
          Paired: "paired"}


def _run(token: str, make, libs: list, op: Op, null_repeats: int = 0):
    """One bench call on this worker; returns (answer, where it was measured)."""
    bench = _here(token, make)
    _place(bench, libs)
    where = _where(token)
    return op.run(bench, token, where, null_repeats), where


# ---- the client's bench ---------------------------------------------------------------------
@dataclass(eq=False)
class _Task:
    """One bench call waiting for, or running on, a worker."""
    what: str
    op: Op
    knobs: list
    pin: str | None = None  # a worker's name (the home GPU), or None: any
    avoid: str | None = None  # a replicate: any worker but this one (its first pair's), unless no other is alive
    null_repeats: int = 0
    future: object = None
    worker: str | None = None
    address: str | None = None
    deaths: list = field(default_factory=list)
    answer: tuple | None = None  # (result, where) or (None, {"died": [...]})
    error: BaseException | None = None
    discarded: bool = False  # started ahead against a best that moved: never asked for (discard_ahead)


class DaskBench(Bench):
    """The bench protocol over a Dask cluster. `make` (picklable, no arguments) builds each worker's
    own bench; `local` answers on the client what needs no GPU (settings, builds, compiler figures).
    `null_repeats` > 0: each worker judges its evaluations with an A/A null of that many fresh
    processes measured on its own device (0: the run's null, as a replay must).

    A worker is handed one task at a time and the next when it is free (the scheduler would queue
    every task on some worker at once, and a worker's death would then fail all of them): so a
    death is charged to the one candidate that was being measured, which is re-queued once.
    `submit` queues independent evaluations; `evaluate` answers from them in the loop's order."""

    replicates_apart = False  # the client's bench: its workers' benches replicate
    WAIT_FOR_WORKERS_S = 300  # a dead worker's nanny restarts it in seconds; a lost host never comes back
    WAIT_TO_JOIN_S = 30

    def __init__(self, client, make, local, *, null_repeats: int = 0, ship: bool | None = None):
        from agent.bench import GpuBench

        self.client, self.make, self.local = client, make, local
        self.token = uuid.uuid4().hex
        self.null_repeats = null_repeats
        self._queue: list[_Task] = []
        self._busy: dict[str, _Task] = {}
        self._ahead: dict[tuple, _Task] = {}
        self.requeued: list[dict] = []  # every re-queue: what, which worker died
        self.discarded: list[dict] = []  # every evaluation started ahead and dropped unasked (discard_ahead)
        self.devices = self._probe()
        check_one_model(self.devices)
        for name, dev in self.devices.items():  # each worker tagged with its GPU, where any client can read it
            client.set_metadata(["fa5090-search", "gpu", name], dev.name)
        self.home = sorted(self.devices)[0]
        if isinstance(local, GpuBench):
            local._device = self.devices[self.home]  # the client builds for the workers' GPU model
        # libraries travel only from a real build; a replay or a fake has none
        self.ship = isinstance(local, GpuBench) if ship is None else ship

    # ---- the cluster's shape
    def _alive(self) -> dict[str, str]:
        """name -> address of the GPU workers alive now (a restarted worker keeps its name, not its address)."""
        return self.client.run_on_scheduler(_on_scheduler("gpu_workers"))

    def _probe(self) -> dict[str, DeviceInfo]:
        alive, since = self._alive(), time.monotonic()
        while not alive and time.monotonic() - since < self.WAIT_TO_JOIN_S:  # workers still starting or restarting
            time.sleep(0.5)
            alive = self._alive()
        if not alive:
            raise DistributedError("the Dask cluster has no worker with the resource GPU=1: start each worker with "
                                   "`dask worker tcp://HOST:PORT --nthreads 1 --resources GPU=1` and its own "
                                   "CUDA_VISIBLE_DEVICES")
        from distributed import wait

        futs = {n: self.client.submit(_probe_here, self.token, self.make, workers=[a], allow_other_workers=False,
                                      pure=False, resources={"GPU": 1}) for n, a in alive.items()}
        try:
            wait(list(futs.values()), timeout=self.WAIT_FOR_WORKERS_S)
        except TimeoutError:
            pass  # those still silent are left out below
        devices = {}
        for n, f in futs.items():
            if f.status == "finished":
                devices[n] = f.result()
            elif f.status == "error" and isinstance(f.exception(), DistributedError):
                raise f.exception()  # it cannot read its GPU: one sentence
            else:  # died or vanished while starting: left out of this run
                f.cancel()
        if not devices:
            raise DistributedError(f"none of the cluster's {len(futs)} GPU worker(s) answered within {self.WAIT_FOR_WORKERS_S} s")
        return devices

    @property
    def workers(self) -> list[str]:
        return sorted(self.devices)

    def _libs(self, knobs: list[Knobs], with_bytes: bool = False) -> list:
        """(knobs, build, size, bytes or None) of each library a task needs; bytes only for a worker
        that said it has no copy (LibraryMissing), so each crosses the network once per host."""
        if not self.ship or not knobs:
            return []
        built = self.local.build(knobs)
        out = []
        for k in dict.fromkeys(knobs):
            b = built[k.key()]
            path = Path(b.library) if b.ok else None
            out.append((k, b, path.stat().st_size if path else 0, path.read_bytes() if path and with_bytes else None))
        return out

    # ---- dispatch: one task per worker at a time
    def _queue_task(self, t: _Task, front: bool = False) -> _Task:
        self._queue.insert(0, t) if front else self._queue.append(t)
        return t

    def _pump(self) -> None:
        alive = self._alive()
        for name in self.workers:
            if name in self._busy or name not in alive:
                continue
            t = next((t for t in self._queue if self._takes(t, name, alive)), None)
            if t is None:
                continue
            self._queue.remove(t)
            self._send(t, name, alive[name])

    def _takes(self, t: _Task, name: str, alive: dict) -> bool:
        if t.pin is not None:
            return t.pin == name
        if t.avoid == name:  # the replicate's first pair ran here: only when no other worker is alive
            return not any(w in alive for w in self.workers if w != name)
        return True

    def _send(self, t: _Task, name: str, address: str, with_bytes: bool = False) -> None:
        t.worker, t.address = name, address
        t.future = self.client.submit(_run, self.token, self.make, self._libs(t.knobs, with_bytes), t.op,
                                      t.null_repeats, pure=False, resources={"GPU": 1}, workers=[address],
                                      allow_other_workers=False)
        self._busy[name] = t

    def _collect(self, t: _Task) -> None:
        from distributed import KilledWorker

        del self._busy[t.worker]
        if t.discarded:  # nobody will ask for it: neither re-queued after a death nor sent again
            t.answer = (None, {"died": ["discarded"]})
            return
        try:
            got, where = t.future.result()
        except KilledWorker as e:
            t.deaths.append(f"worker {t.worker} died ({str(e)[:200]})")
            if len(t.deaths) == 1:
                self.requeued.append({"what": t.what, "died": t.worker})
                self._queue_task(t, front=True)
            else:
                t.answer = (None, {"died": t.deaths})
            return
        except LibraryMissing:  # that host has no copy yet: the same task again, with the bytes
            self._send(t, t.worker, t.address, with_bytes=True)
            return
        except Exception as e:  # noqa: BLE001 - the bench's own error, raised where the loop asks
            t.error = e
            return
        if t.deaths:
            where["requeued"] = f"re-queued once after {t.deaths[0]}"
        t.answer = (got, where)

    def _wait(self, t: _Task) -> tuple:
        from distributed import wait

        idle_since = None
        while t.answer is None and t.error is None:
            self._pump()
            running = [b.future for b in self._busy.values()]
            if not running:  # every worker that may take it is dead and not yet back
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since > self.WAIT_FOR_WORKERS_S:
                    raise DistributedError(f"no GPU worker came back within {self.WAIT_FOR_WORKERS_S} s to measure {t.what}")
                time.sleep(0.2)
                continue
            idle_since = None
            try:
                done = wait(running, timeout=2, return_when="FIRST_COMPLETED").done
            except TimeoutError:  # distributed's wait raises where concurrent.futures' returns (H200, 2026-11-30)
                done = set()
            for b in [b for b in self._busy.values() if b.future in done]:
                self._collect(b)
            if not done:  # sent to a worker that was gone before it started: it never ran, so no death is charged
                alive = set(self._alive().values())
                for b in [b for b in self._busy.values() if b.address not in alive and b.future.status == "pending"]:
                    b.future.cancel()
                    del self._busy[b.worker]
                    if not b.discarded:
                        self._queue_task(b, front=True)
        if t.error is not None:
            raise t.error
        return t.answer

    def _home(self, op: Op, knobs=()):
        what = _NAMES[type(op)]
        t = self._queue_task(_Task(f"{what} on the home GPU", op, list(knobs), pin=self.home), front=True)
        got, where = self._wait(t)
        if got is None:
            raise DistributedError(f"the home GPU's worker died twice during {what}: {where['died'][-1]}")
        return got, where

    def fan_out(self) -> DaskBench:
        return self

    # ---- on the client
    def device(self) -> DeviceInfo:
        return self.devices[self.home]

    def setup(self, options):
        return self.local.setup(options)

    def calibration(self, found):
        return self.local.calibration(found)

    def levers(self, names):
        return self.local.levers(names)

    def build(self, knobs):
        return self.local.build(knobs)

    def prefetch(self, knobs):
        self.local.prefetch(knobs)

    def static(self, knobs):
        return self.local.static(knobs)

    # ---- on the home GPU
    def check(self, knobs, shapes):
        return self._home(Check(knobs, shapes), knobs=[knobs])[0]

    def attributes(self, knobs):
        return self._home(Attributes(knobs), knobs=[knobs])[0]

    def profile(self, knobs):
        return self._home(Profile(knobs), knobs=[knobs])[0]

    def ceilings(self, dtype):
        return self._home(Ceilings(dtype))[0]

    def aa_null(self, knobs, repeats):
        got, where = self._home(AaNull(knobs, repeats), knobs=[knobs])
        return [{**a, "device": where} for a in got]

    def paired(self, base, cand):
        arms = [a["knobs"] for a in (base, cand) if "knobs" in a]
        got, where = self._home(Paired(base, cand), knobs=arms)
        for s in got.steps:
            if s.result is not None:
                s.result["device"] = where
        return got

    # ---- on any GPU
    def submit(self, base: Knobs, cands: list[tuple[Knobs, bool]], *, t_keep: float, t_noise: float,
               ceiling: float | None = None) -> None:
        """Queue these evaluations; each goes to the next free worker, and `evaluate` with the same
        arguments answers from it (the loop's order and decisions are unchanged)."""
        for cand, simpler in cands:
            key = (base.key(), cand.key(), t_keep, t_noise, ceiling, simpler)
            if key not in self._ahead:
                self._ahead[key] = self._queue_task(self._evaluation(base, cand, t_keep, t_noise, ceiling, simpler))
        self._pump()

    def discard_ahead(self, base: Knobs | None) -> dict:
        """Drop every evaluation started ahead against another base than `base` (a keep moved the
        best under them; None: every one, the search is over): the loop never asks for them, as one
        GPU would never have measured them.
        Those still queued never start; one running on a worker finishes there (a pair is never
        interrupted mid-measurement on its GPU) and its answer is ignored. Returns how many were
        dropped, and how many of those a worker had taken (measured, or being measured)."""
        dropped = started = 0
        for key, t in list(self._ahead.items()):
            if base is not None and key[0] == base.key():
                continue
            del self._ahead[key]
            t.discarded = True
            queued = any(q is t for q in self._queue)
            if queued:
                self._queue = [q for q in self._queue if q is not t]
            dropped, started = dropped + 1, started + (not queued)
            self.discarded.append({"what": t.what, "base": key[0], "cand": key[1], "worker": None if queued else t.worker,
                                   "measured": not queued})
        return {"discarded": dropped, "measured": started}

    def _evaluation(self, base, cand, t_keep, t_noise, ceiling, simpler) -> _Task:
        # with two workers or more a keep's replicate runs on another one (_replicate)
        op = Evaluate(base, cand, t_keep, t_noise, ceiling, simpler, split=len(self.workers) >= 2)
        return _Task(f"evaluate {cand.label()}", op, [base, cand], null_repeats=self.null_repeats)

    def evaluate(self, base, cand, *, t_keep, t_noise, ceiling=None, simpler=False) -> Evaluation:
        key = (base.key(), cand.key(), t_keep, t_noise, ceiling, simpler)
        t = self._ahead.pop(key, None) or self._queue_task(
            self._evaluation(base, cand, t_keep, t_noise, ceiling, simpler), front=True)
        ev, where = self._wait(t)
        if ev is None:
            why = "; then ".join(where["died"])
            return Evaluation(outcome=Outcome.CRASH, detail=f"its worker died twice while measuring it (re-queued once): {why}"[:600],
                              job=JobResult(status="crash", steps=[], stderr=why[-3000:]))
        if (where.pop("split", False) and ev.outcome is Outcome.KEPT and ev.confirm_job is None
                and ev.detail.endswith("replicate pending")):
            ev = self._replicate(base, cand, ev, where, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, simpler=simpler)
        if ev.paired is not None:
            ev.paired["device"] = where
        if where.get("requeued"):
            ev.detail += f"; {where['requeued']}"[:300]
        return ev

    def _replicate(self, base, cand, ev: Evaluation, where: dict, *, t_keep, t_noise, ceiling, simpler) -> Evaluation:
        """A keep's replicate, on the next free worker other than the one that measured its first pair
        (when none other is alive, on that one, and the detail says so), then the keep decided as one
        GPU decides it, with one difference: the replicate's margin is judged with the t_keep of the
        worker that measured it (its own A/A null on this base, measured there first if it had not
        been: a margin is a ratio on one device and that device's null says what it is worth). The
        first pair keeps its own worker's t_keep. Which worker replicated, and its null, go into the
        pair's payload (device.replicate), from which a replay in one process decides the same way."""
        first = where["worker"]
        t = self._queue_task(_Task(f"replicate {cand.label()}", Replicate(base, cand), [base, cand],
                                   avoid=first, null_repeats=self.null_repeats), front=True)
        confirm, there = self._wait(t)
        if confirm is None:  # its worker died twice: the replicate failed, as a crashed child process does
            why = "; then ".join(there["died"])
            confirm = JobResult(status="crash", steps=[], stderr=f"the replicate's worker died twice: {why}"[-3000:])
            there = {"worker": t.worker, **there}
        if there.get("worker") == first:
            there["same_worker"] = True
        where["replicate"] = there
        return decide(ev.job, ev.build, t_keep=where.get("t_keep", t_keep), t_noise=where.get("t_noise", t_noise),
                      ceiling=ceiling, confirm_job=confirm, simpler=simpler, replicate=there)

    def map(self, fn, items: list, knobs_of, on_death) -> list:
        """fn(the worker's bench, item) for every item, spread over the workers, answers in order; an
        item whose worker died twice is on_death(item, why)."""
        name = "map" if isinstance(fn, partial) else fn.__name__  # a partial has no name of its own
        tasks = [self._queue_task(_Task(f"{name} #{i}", Map(fn, it), knobs_of(it))) for i, it in enumerate(items)]
        out = []
        for it, t in zip(items, tasks):
            got, where = self._wait(t)
            if got is None:
                out.append(on_death(it, "; then ".join(where["died"])))
            else:
                out.append({**got, "device": where} if isinstance(got, dict) else got)
        return out
