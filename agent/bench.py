"""The bench the loop measures on: the real GPU (experiments + profiler), a recorder around it,
and a replay of a recording (Kernel Tuner's simulation runner, STYLE.md habit 7).

The real path is the product. A recording is written by every real run; replaying it runs the
whole loop, the outcome decisions, the ncu parser and the store with no GPU, which is how CI
exercises the logic on measurements that came from the H200.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel

from experiments.build import BuildResult
from experiments.device import DeviceInfo, probe
from experiments.lab import Evaluation, JobResult, Lab, decide
from experiments.outcome import Outcome
from experiments.problem import Shape
from kernel_src.knobs import Knobs

from .bench_protocol import Bench, FanOut


class ProfileRecord(BaseModel):
    csv: str | None = None  # ncu --page raw --csv output, parsed by profiler.ncu.parse_raw_csv
    error: str | None = None  # why there is no profile (no ncu, no counter permission, ...)
    seconds: float = 0.0


class GpuBench(Bench):
    def __init__(self, shape: Shape, cache_dir: Path, *, budget_s: float = 2.0, profile: bool = True,
                 jobs: int | None = None, l2: str = "warm", device: DeviceInfo | None = None, settle: bool | str = "any",
                 spare: bool = True):
        self.shape, self.cache_dir, self.budget_s = shape, Path(cache_dir), budget_s
        # the sequential rule (experiments.timing.settle_reason): "any" stops a candidate's first pair once settled either
        # way and a keep's replicate once settled against t_keep; True (recorded runs: "non_keep") only non-keeps
        self.settle = settle
        self.spare = spare  # each child process started ahead of its job, imports done (experiments.child.start_spare)
        self.profiling, self.jobs, self.l2 = profile, jobs, l2
        self._device: DeviceInfo | None = device  # given: read on another machine (a Dask worker's GPU)
        self._lab: Lab | None = None
        self.profile_disabled: str | None = None if profile else "profiling disabled (--no-profile)"

    def device(self) -> DeviceInfo:
        if self._device is None:
            self._device = probe()
        return self._device

    @staticmethod
    def require_device() -> DeviceInfo:
        """This machine's GPU, or NoGpu (one sentence) when it has no usable one; asked before a command that
        needs one opens its database for writing."""
        return probe()

    @property
    def lab(self) -> Lab:
        if self._lab is None:
            self._lab = Lab(self.shape, self.device().limits, self.cache_dir, budget_s=self.budget_s, jobs=self.jobs,
                            l2=self.l2, settle=self.settle, spare=self.spare)
        return self._lab

    def build(self, knobs: list[Knobs]) -> dict[str, BuildResult]:
        return self.lab.build(knobs)

    def prefetch(self, knobs: list[Knobs]) -> None:
        """Build every candidate of the next step at once (ninja -j); evaluate then hits the cache."""
        self.lab.build(knobs)

    def close(self) -> None:
        if self._lab is not None:
            self._lab.close()

    def build_ahead(self, knobs: list[Knobs], then=None) -> None:
        follow = None
        if then is not None:  # the figures of what built (the best's among them), read in the background thread
            def follow():
                libs, light = self.lab._libs, self.lab._light
                return then({k.key(): self._figures(k, libs.get(k.key()) or light[k.key()]) for k in knobs
                             if k.key() in libs or k.key() in light})
        self.lab.build_ahead(knobs, then=follow)

    def setup(self, options: dict) -> dict:
        """The settings the run's decisions depend on (recorded, so a replay runs the same ones)."""
        return options

    def static(self, knobs: list[Knobs]) -> dict:
        """Build all at once (one ninja call) and read each one's compiler figures on this device:
        knob key -> profiler.static.StaticFigures, or None when it did not build. A candidate whose library is
        not built yet is read from its figure build (the library is built when it is measured)."""
        built = self.lab.build_figures(knobs)  # the libraries built ahead, else figure builds (Lab.figure_spec)
        return {k.key(): self._figures(k, built[k.key()]) for k in knobs}

    def _figures(self, k: Knobs, b: BuildResult):
        from profiler.static import figures

        try:
            return figures(b.log, k, self.device().limits, self.shape.D, self.shape.causal) if b.ok else None
        except LookupError:  # no attention-kernel entry in the log: nothing to read
            return None

    def evaluate(self, base: Knobs, cand: Knobs, *, t_keep: float, t_noise: float,
                 ceiling: float | None = None, simpler: bool = False, replicate: bool = True) -> Evaluation:
        return self.lab.evaluate(base, cand, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, simpler=simpler,
                                 replicate=replicate)

    def replicate(self, base: Knobs, cand: Knobs) -> JobResult:
        """A keep's replicate whose first pair ran on another GPU (agent.distributed)."""
        return self.lab.replicate(base, cand)

    def check(self, knobs: Knobs, shapes: list[Shape]) -> JobResult:
        return self.lab.check(knobs, shapes)

    def paired(self, base: dict, cand: dict) -> JobResult:
        return self.lab.paired(base, cand)

    def aa_null(self, knobs: Knobs, repeats: int) -> list[dict]:
        return self.lab.aa_null(knobs, repeats)

    def calibration(self, found: dict | None) -> dict | None:
        return found

    def levers(self, names: list[str]) -> list[str]:
        return names

    def ceilings(self, dtype: str) -> dict:
        return self.lab.ceilings(dtype)

    def attributes(self, knobs: Knobs) -> dict:
        return self.lab.attributes(knobs)

    def profile(self, knobs: Knobs) -> ProfileRecord:
        from profiler.ncu import CountersNotPermitted, NcuMissing, ProfilerError, run_ncu

        if self.profile_disabled:
            return ProfileRecord(error=self.profile_disabled)
        t0 = time.perf_counter()
        argv = [sys.executable, "-m", "profiler.launch", self.lab.library(knobs), self.shape.model_dump_json()]
        try:
            res = run_ncu(argv, self.device().arch, timeout=600)
        except (CountersNotPermitted, NcuMissing) as e:
            self.profile_disabled = str(e)  # the same answer for every later candidate
            return ProfileRecord(error=str(e))
        except ProfilerError as e:
            return ProfileRecord(error=str(e), seconds=time.perf_counter() - t0)
        return ProfileRecord(csv=res.csv, seconds=time.perf_counter() - t0)


def _key(op: str, *parts) -> str:
    raw = json.dumps([op, *[p.canonical() if isinstance(p, Knobs) else p for p in parts]], sort_keys=True, default=str)
    return op + ":" + hashlib.sha256(raw.encode()).hexdigest()[:16]


def _arm_key(arm: dict):
    return arm["knobs"].canonical() if "knobs" in arm else arm


class Recorder(Bench):
    """Wraps a bench; appends every answer to a JSONL file as it arrives (a crash loses nothing
    already measured). What a cluster bench measures ahead is recorded when the loop asks for it."""
    replicates_apart = False  # never a worker's bench

    def __init__(self, bench, path: Path):
        self.bench, self.path = bench, Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _rec(self, key: str, result):
        payload = result.model_dump(mode="json") if hasattr(result, "model_dump") else result
        if isinstance(result, dict):
            payload = {k: (v.model_dump(mode="json") if hasattr(v, "model_dump") else v) for k, v in result.items()}
        with self.path.open("a") as f:
            f.write(json.dumps({"key": key, "result": payload}) + "\n")
        return result

    def header(self, run: dict) -> None:
        """What the run was started with (command, problem, every option's value), first in the file,
        so a replay reuses them by itself (Replay.recorded_run)."""
        self._rec(_key("run"), run)

    def device(self):
        return self._rec(_key("device"), self.bench.device())

    def build(self, knobs):
        return self._rec(_key("build", *sorted(k.canonical() for k in knobs)), self.bench.build(knobs))

    def prefetch(self, knobs):  # an optimisation, not a measurement: nothing to record
        self.bench.prefetch(knobs)

    def build_ahead(self, knobs, then=None):  # as prefetch, in the background
        self.bench.build_ahead(knobs, then=then)

    def close(self):
        self.bench.close()

    def fan_out(self) -> FanOut | None:
        return self.bench.fan_out()

    def setup(self, options):
        return self._rec(_key("setup"), self.bench.setup(options))

    def static(self, knobs):
        got = self.bench.static(knobs)
        self._rec(_key("static", *sorted(k.canonical() for k in knobs)),
                  {k: (v.model_dump(mode="json") if v is not None else None) for k, v in got.items()})
        return got

    def evaluate(self, base, cand, *, t_keep, t_noise, ceiling=None, simpler=False):
        return self._rec(_key("evaluate", base, cand),
                         self.bench.evaluate(base, cand, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, simpler=simpler))

    def check(self, knobs, shapes):
        return self._rec(_key("check", knobs, [s.key() for s in shapes]), self.bench.check(knobs, shapes))

    def paired(self, base, cand):
        return self._rec(_key("paired", _arm_key(base), _arm_key(cand)), self.bench.paired(base, cand))

    def aa_null(self, knobs, repeats):
        key = _key("aa_null", knobs, repeats)
        try:
            got = self.bench.aa_null(knobs, repeats)
        except RuntimeError as e:  # its workers failed (a broken machine): the failure is an answer too
            self._rec(key, {"failed": str(e)})
            raise
        return self._rec(key, got)

    def calibration(self, found):
        return self._rec(_key("calibration"), self.bench.calibration(found))

    def levers(self, names):
        return self._rec(_key("levers"), self.bench.levers(names))

    def attributes(self, knobs):
        return self._rec(_key("attributes", knobs), self.bench.attributes(knobs))

    def profile(self, knobs):
        return self._rec(_key("profile", knobs), self.bench.profile(knobs))


class ReplayMiss(LookupError):
    pass


def resumes(path: Path) -> list[Path]:
    """The recordings a resumed run wrote beside `path` (<stem>.resume-N<suffix>, N = 1, 2, ...), in
    the order they were written."""
    path = Path(path)
    found = {}
    for p in path.parent.glob(f"{path.stem}.resume-*{path.suffix}"):
        n = p.name[len(path.stem) + len(".resume-"):len(p.name) - len(path.suffix)]
        if n.isdigit():
            found[int(n)] = p
    return [found[n] for n in sorted(found)]


class Replay(Bench):
    """Answers from a recording, in recorded order per question; no GPU, no nvcc."""
    replicates_apart = False  # a recorded evaluation is answered whole, its replicate with it

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no recording at {self.path}")
        if self.path.is_dir():
            found = sorted(str(p) for p in self.path.glob("**/recording.jsonl"))[:3]
            raise ReplayMiss(f"{self.path} is a folder; --replay takes a run's recording file"
                             + (f", e.g. {', '.join(found)}" if found else
                                " (<db>_artifacts/run-N/recording.jsonl), and this folder holds none"))
        self._answers: dict[str, list] = defaultdict(list)
        # a run resumed after an interruption (`run --resume`) wrote the rest of its answers beside
        # this one, recording.resume-1.jsonl, -2, ...: they follow it, in order, so the replay is the
        # uninterrupted run's (the resumed process's repeated questions, its device and catalog,
        # are answered from the first file and their second answers are never asked for)
        self.parts = [self.path, *resumes(self.path)]
        for part in self.parts:
            for i, line in enumerate(part.read_text(errors="replace").splitlines(), 1):
                if line.strip():
                    try:
                        rec = json.loads(line)
                        self._answers[rec["key"]].append(rec["result"])
                    except (ValueError, KeyError, TypeError):
                        raise ReplayMiss(f"{part} is not a run's recording (line {i} is not a recorded answer); "
                                         "replay the recording.jsonl under <db>_artifacts/run-N/") from None
        self._header = (self._answers.pop(_key("run"), None) or [None])[0]
        if not self._answers:
            raise ReplayMiss(f"{self.path} holds no recorded answers; replay the recording.jsonl under <db>_artifacts/run-N/")
        # the calibration record and periodic re-anchors came in one change: a recording without the
        # first re-anchored only at the end
        self._calibrated = bool(self._answers.get(_key("calibration")))
        # SearchOptions fields the replaying command line gave explicitly: they win over the recording's
        self.explicit: set[str] = set()

    def recorded_run(self) -> dict | None:
        """What the recorded run was started with: {"command", "problem", "params" (every option's
        value, or None), "budget", "source"}. From the recording's header (where it has one),
        else from the run's row in the database beside it (<stem>_artifacts/run-N/recording.jsonl ->
        <stem>.db, run N, opened read-only); None when neither is there."""
        if self._header:
            return {"params": None, "budget": None, **self._header, "source": f"the header of {self.path}"}
        run_dir, folder = self.path.parent, self.path.parent.parent
        if not (run_dir.name.startswith("run-") and run_dir.name[4:].isdigit() and folder.name.endswith("_artifacts")):
            return None
        db_path = folder.parent / (folder.name.removesuffix("_artifacts") + ".db")
        if not db_path.is_file():
            return None
        from store import queries as q
        from store.db import open_db
        from store.errors import StoreError

        try:
            db = open_db(db_path, read_only=True)
            try:
                run = q.get_run(db, int(run_dir.name[4:]))
            finally:
                db.close()
        except StoreError:
            return None
        return {"command": run.get("command"), "problem": run.get("problem"), "params": None, "budget": run.get("budget"),
                "source": f"run {run['id']} of {db_path}"}

    def _get(self, key: str, what: str):
        if not self._answers.get(key):
            raise ReplayMiss(f"the recording {self.path.name} has no answer for {what}: the replayed search "
                             "asked a question the recorded run never asked")
        return self._answers[key].pop(0)

    def device(self):
        return DeviceInfo(**self._get(_key("device"), "the device"))

    def build(self, knobs):
        got = self._get(_key("build", *sorted(k.canonical() for k in knobs)), "a build")
        return {k: BuildResult(**v) for k, v in got.items()}

    def prefetch(self, knobs):
        pass

    def setup(self, options):
        """The recorded run's settings, except those the replaying command line gave explicitly;
        recordings older than the strategies ran the ladder with one A/A null for the whole run."""
        got = self.settings(options)
        self._answers.get(_key("setup")) and self._get(_key("setup"), "the settings")
        return got

    def settings(self, options):
        """What `setup` will answer, without taking the answer (the CLI reads the strategy a replay
        will run before it starts one)."""
        from .replay.settings import LATER_SETTINGS, LEGACY

        key = _key("setup")
        if self._answers.get(key):
            recorded = {**LATER_SETTINGS, **self._answers[key][0]}
        else:
            recorded = dict(LEGACY) if self._calibrated else {**LEGACY, "reanchor_every": 0}
        return {**recorded, **{k: options[k] for k in self.explicit if k in options}}

    def static(self, knobs):
        """The recorded answer to this very question; else, where every one of these knobs' figures was recorded
        in some answer, those (a figure is a fact of the knobs on the recorded device). A resumed run's process
        knows only the figures its database kept, so it asks for more at once than the uninterrupted run it
        replays as."""
        from profiler.static import StaticFigures

        key = _key("static", *sorted(k.canonical() for k in knobs))
        if not self._answers.get(key):
            seen = self._figures_seen()
            if all(k.key() in seen for k in knobs):
                return {k.key(): (StaticFigures(**seen[k.key()]) if seen[k.key()] is not None else None) for k in knobs}
        got = self._get(key, "the compiler's figures")
        return {k: (StaticFigures(**v) if v is not None else None) for k, v in got.items()}

    def _figures_seen(self) -> dict:
        if not hasattr(self, "_seen_figures"):
            self._seen_figures = {}
            for part in self.parts:
                for line in part.read_text(errors="replace").splitlines():
                    if line.strip() and '"static:' in line[:40]:
                        self._seen_figures.update(json.loads(line)["result"])
        return self._seen_figures

    def evaluate(self, base, cand, *, t_keep, t_noise, ceiling=None, simpler=False):
        ev = Evaluation(**self._get(_key("evaluate", base, cand), f"evaluating {cand.label()} over {base.label()}"))
        if ev.job is None:  # refused before running (arithmetic, compile error): nothing to re-decide
            return ev
        own = (ev.paired or {}).get("device") or {}
        if "t_keep" in own:  # measured on a cluster's GPU: judged with that device's own A/A null
            t_keep, t_noise = own["t_keep"], own["t_noise"]
        # a cluster's replicate on another worker: judged with that worker's null, recorded beside the pair
        ev = decide(ev.job, ev.build, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, confirm_job=ev.confirm_job,
                    simpler=simpler, replicate=own.get("replicate"))
        if ev.outcome is Outcome.KEPT and ev.confirm_job is None and ev.detail.endswith("replicate pending"):
            # the recorded run kept it without one (it predates the replicate): nothing is pending
            ev.detail = ev.detail.removesuffix("replicate pending") + "not replicated (recorded before the fresh-process replicate)"
        return ev

    def check(self, knobs, shapes):
        key = _key("check", knobs, [s.key() for s in shapes])
        if not self._answers.get(key):  # recorded before C1 added the candidate's own tile tails
            from experiments.problem import c1_shapes

            legacy = _key("check", knobs, [s.key() for s in c1_shapes(shapes[-1]) + shapes[-1:]])
            key = legacy if self._answers.get(legacy) else key
        return JobResult(**self._get(key, f"checking {knobs.label()}"))

    def paired(self, base, cand):
        return JobResult(**self._get(_key("paired", _arm_key(base), _arm_key(cand)), "a paired measurement"))

    def aa_null(self, knobs, repeats):
        got = self._get(_key("aa_null", knobs, repeats), "the A/A null")
        if isinstance(got, dict) and "failed" in got:
            raise RuntimeError(got["failed"])
        return got

    def levers(self, names):
        """The catalog the recorded run searched (older recordings: the first catalog)."""
        from .replay.catalog import FIRST_CATALOG

        key = _key("levers")
        return self._get(key, "the lever catalog") if self._answers.get(key) else list(FIRST_CATALOG)

    def calibration(self, found):
        """The calibration the recorded run used (recordings older than m002 had none)."""
        key = _key("calibration")
        return self._get(key, "the calibration") if self._answers.get(key) else None

    def attributes(self, knobs):
        return self._get(_key("attributes", knobs), f"attributes of {knobs.label()}")

    def profile(self, knobs):
        return ProfileRecord(**self._get(_key("profile", knobs), f"a profile of {knobs.label()}"))
