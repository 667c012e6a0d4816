"""One candidate's life: knobs -> pre-flight -> build -> C1 -> paired timing -> C2 -> outcome.

Everything that touches the GPU runs in a child process (experiments.worker) so that a
kernel which faults or hangs becomes an outcome (CRASH / TIMEOUT) and the next candidate gets
a fresh process and a fresh CUDA context.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from pydantic import BaseModel

from kernel_src.arch import ArchLimits, launch_refusal
from kernel_src.knobs import Knobs

from .build import BuildResult, BuildSpec, build, pause_build, stop_build
from .child import run_group, start_spare, stop_spare
from .job import (
    Arm,
    AttributesStep,
    CeilingsStep,
    CheckStep,
    Job,
    JobResult,
    PairedStep,
    Step,
)
from .outcome import Outcome
from .problem import Shape, c1_patterns, c1_shapes

_RESOURCE_WORDS = ("too many resources", "out of resources", "invalid argument", "shared memory")


class Evaluation(BaseModel):
    outcome: Outcome
    detail: str
    build: BuildResult | None = None
    attributes: dict | None = None
    c1: dict | None = None
    paired: dict | None = None
    c2: dict | None = None
    confirm: dict | None = None  # the second paired run, in a fresh process
    job: JobResult | None = None  # the raw child-process records, kept so a replay decides anew
    confirm_job: JobResult | None = None


class Lab:
    """The real, GPU-backed side of an experiment, for one problem shape on one device."""

    def __init__(self, shape: Shape, limits: ArchLimits, cache_dir: Path, *, budget_s: float = 3.0,
                 jobs: int | None = None, l2: str = "warm", settle: bool | str = False, spare: bool = False,
                 quiet_pairs: bool = False):
        self.shape, self.limits, self.cache_dir = shape, limits, Path(cache_dir)
        # a background build stopped for the whole of a job that times a pair (True), or left to run at nice 10 on all
        # cores but two (False): beside synchronised pairs a compile put gaps between a fast kernel's launches (halves
        # 1.05/0.75, results/2026-12-02_h200_fast_run); beside pipelined pairs, the only ones timed now, margins and
        # A/A nulls read as in a quiet machine (results/2026-12-03_h200_builds_beside_pairs, a 16-core host)
        self.quiet_pairs = quiet_pairs
        self.budget_s, self.jobs, self.l2 = budget_s, jobs, l2
        # workers started ahead of the jobs (experiments.child.start_spare), so the next child has its imports done:
        # two of them: on the H200 torch's import (2.7-5.4 s in a spare) outlasts a settled job (from 2.4 s), so one
        # spare started at a job's start was often not ready for the next (results/2026-12-02_h200_fast_run; the
        # effect of the second is not yet measured)
        self.spare = spare
        self.spare_depth = 2
        self._spares: list = []
        # the sequential rule (experiments.timing.settle_reason): False: every pair takes its budget; True or "non_keep": a
        # candidate's first pair stops once settled as a non-keep; "any": once settled either way, and a keep's
        # replicate once settled against t_keep
        self.settle_rule = {False: None, None: None, True: "non_keep"}.get(settle, settle)
        if self.settle_rule not in (None, "non_keep", "any"):
            raise ValueError(f"unknown settle rule {settle!r}; known: non_keep, any")
        self._libs: dict[str, BuildResult] = {}
        self._light: dict[str, BuildResult] = {}  # figure builds (figure_spec): read for registers, never run
        # the background build (build_ahead): its thread, the keys it is building, its ninja, the set asked next
        self._ahead_mutex = threading.Lock()
        self._ahead: threading.Thread | None = None
        self._ahead_keys: set[str] = set()
        self._ahead_proc = None
        self._ahead_next: list[Knobs] | None = None
        self._may_build = threading.Event()  # cleared while a job times something: no background build starts then
        self._may_build.set()
        self.ahead_log: list[dict] = []  # what each background build did: {"n", "built", "seconds", "stopped"}

    # ---- build ---------------------------------------------------------------------------
    def spec(self, knobs: Knobs) -> BuildSpec:
        return BuildSpec(knobs=knobs, arch=self.limits.arch, dtypes=(self.shape.dtype,), dims=(self.shape.D,),
                         causals=(False, True))

    def figure_spec(self, knobs: Knobs) -> BuildSpec:
        """The build the compiler's figures are read from when the library itself is not needed yet: device code
        only (-cubin) and only the problem's own mask mode, about half a library's compile (two instantiations and
        the host pass); ptxas reports that kernel as it does in the library."""
        return BuildSpec(knobs=knobs, arch=self.limits.arch, dtypes=(self.shape.dtype,), dims=(self.shape.D,),
                         causals=(self.shape.causal,), host=False)

    def build_figures(self, knobs_list: list[Knobs]) -> dict[str, BuildResult]:
        """What each candidate's figures are read from: its library where it is built, else its figure build
        (figure_spec), built here for those that have neither (one ninja call)."""
        todo = [k for k in dict.fromkeys(knobs_list) if k.key() not in self._libs and k.key() not in self._light]
        if todo:
            self._make_room({k.key() for k in todo})
            todo = [k for k in todo if k.key() not in self._libs and k.key() not in self._light]
        if todo:
            specs = {k.key(): self.figure_spec(k) for k in todo}
            res = build(list(specs.values()), self.cache_dir / "build", jobs=self.jobs)
            for kk, spec in specs.items():
                self._light[kk] = res[spec.key()]
        return {k.key(): self._libs.get(k.key()) or self._light[k.key()] for k in knobs_list}

    def preflight(self, knobs: Knobs) -> str | None:
        why = launch_refusal(self.limits, smem=knobs.smem_bytes(self.shape.D), threads=knobs.threads(),
                             needs_arch=knobs.needs_arch())
        if why or not knobs.split_kv > 1 or not self.limits.global_mem:
            return why
        # split-KV's fp32 partials live beside the problem's own tensors (two arms' outputs when paired)
        sh = self.shape
        ws = knobs.workspace_bytes(sh.B, sh.H, sh.N, sh.D)
        tensors = (4 * sh.B * sh.H + 2 * sh.B * sh.kv_heads) * sh.N * sh.D * 2
        if ws + tensors > self.limits.global_mem:
            return (f"split_kv={knobs.split_kv} needs {ws} B of fp32 partials ({knobs.split_kv} x B{sh.B} x H{sh.H} x "
                    f"N{sh.N} x (D{sh.D} + 1) x 4 B) beside {tensors} B of inputs and outputs: more than the "
                    f"device's {self.limits.global_mem} B")
        return None

    def build(self, knobs_list: list[Knobs]) -> dict[str, BuildResult]:
        """Build several candidates in parallel; results keyed by knobs.key()."""
        todo = [k for k in knobs_list if k.key() not in self._libs]
        if todo:
            self._make_room({k.key() for k in todo})
            todo = [k for k in todo if k.key() not in self._libs]  # what the background finished meanwhile
        if todo:
            specs = {k.key(): self.spec(k) for k in todo}
            res = build(list(specs.values()), self.cache_dir / "build", jobs=self.jobs)
            for kk, spec in specs.items():
                self._libs[kk] = res[spec.key()]
        return {k.key(): self._libs[k.key()] for k in knobs_list}

    def build_ahead(self, knobs_list: list[Knobs], then=None) -> None:
        """Build these in a background thread, at low CPU priority (nice 10, all cores but two), while the GPU
        measures something else: the candidates the next step will ask for if the one in flight is kept. Nothing
        waits for it: a later `build` of the same knobs waits for the lock (or finds them done), and a later
        `build` of other knobs stops it first (`_make_room`). Only what built is kept: a failure is built again
        where it is asked for, and its log read there. `then()`, called in the thread once these are built:
        what to build after them (the compounds their figures call for). A second call while one runs replaces
        what was asked next."""
        todo = [k for k in dict.fromkeys(knobs_list) if k.key() not in self._libs]
        if not todo and then is None:
            return
        with self._ahead_mutex:
            self._ahead_next = (todo, then, False)
            if self._ahead is None or not self._ahead.is_alive():
                if self._ahead is None:
                    atexit.register(self.close)  # no compiler of a background build outlives the tool
                self._ahead = threading.Thread(target=self._ahead_loop, name="build-ahead", daemon=True)
                self._ahead.start()

    def _ahead_loop(self) -> None:
        while True:
            with self._ahead_mutex:
                asked, self._ahead_next = self._ahead_next, None
                if asked is None:
                    return
                todo, then, light = asked
                todo = [k for k in todo if k.key() not in self._libs and not (light and k.key() in self._light)]
                self._ahead_keys = {k.key() for k in todo}
            entry = {"n": len(todo), "built": 0, "stopped": False, "light": light}
            if todo:
                self._ahead_build(todo, entry, light)
            if then is not None and not entry["stopped"]:
                try:  # what their figures call for, built for its figures only (a compound is rarely measured)
                    more = [k for k in dict.fromkeys(then()) if k.key() not in self._libs and k.key() not in self._light]
                except Exception as e:  # noqa: BLE001 - an optimisation: the foreground decides as always
                    more, entry["then_error"] = [], f"{type(e).__name__}: {e}"[:300]
                with self._ahead_mutex:
                    if more and self._ahead_next is None:  # a newer request wins
                        self._ahead_next = (more, None, True)
            self.ahead_log.append(entry)

    def _ahead_build(self, todo: list[Knobs], entry: dict, light: bool = False) -> None:
        specs = {k.key(): (self.figure_spec if light else self.spec)(k) for k in todo}
        into = self._light if light else self._libs
        self._may_build.wait()  # not while a pair is timed
        t0 = time.perf_counter()
        try:
            res = build(list(specs.values()), self.cache_dir / "build", jobs=max(1, (os.cpu_count() or 2) - 2),
                        nice=10, started=self._ahead_started)
            for kk, spec in specs.items():
                r = res[spec.key()]
                if r.ok:
                    into.setdefault(kk, r.model_copy(update={"ahead": True}))
                    entry["built"] += 1
        except Exception as e:  # noqa: BLE001 - an optimisation: the foreground builds what this did not
            entry["error"] = f"{type(e).__name__}: {e}"[:300]
        finally:
            with self._ahead_mutex:
                entry["stopped"] = self._ahead_proc == "stopped"
                self._ahead_proc, self._ahead_keys = None, set()
            entry["seconds"] = round(time.perf_counter() - t0, 3)

    def _pause_ahead(self, pause: bool):
        """The running background build stopped or continued (its ninja returned), or None when none runs."""
        with self._ahead_mutex:
            proc = self._ahead_proc
            if proc is None or proc == "stopped":
                return None
            pause_build(proc, pause)
            return proc

    def _ahead_started(self, proc) -> None:
        with self._ahead_mutex:
            self._ahead_proc = proc
            if not self._may_build.is_set():  # a timed job began between its wait and its start: stopped at once
                pause_build(proc, True)

    def _make_room(self, keys: set[str]) -> None:
        """Before a build in the foreground: a background build of none of `keys` is stopped (it would hold the
        cache's lock for knobs nobody waits for); one that shares a key with them is waited for."""
        while True:
            with self._ahead_mutex:
                proc = self._ahead_proc
                if proc is None or proc == "stopped":
                    return
                if not self._ahead_keys & keys:
                    self._ahead_proc, self._ahead_next = "stopped", None  # what it would build next is as stale
                    break
            time.sleep(0.05)
        stop_build(proc, reap=False)  # its own thread reaps it, then releases the cache's lock

    def adopt(self, knobs: Knobs, built: BuildResult) -> None:
        """A library built elsewhere (the client of a Dask cluster) and placed here: used, not rebuilt."""
        self._libs[knobs.key()] = built

    def library(self, knobs: Knobs) -> str:
        b = self.build([knobs])[knobs.key()]
        if not b.ok:
            raise RuntimeError(f"{knobs.label()} does not build:\n{b.log[-2000:]}")
        return b.library

    # ---- child processes -----------------------------------------------------------------
    def run_job(self, steps: list[Step], timeout: float) -> JobResult:
        """The steps in one fresh child process (experiments.worker); a step given as a dict is
        validated into its type first."""
        spec = Job(steps=steps)
        t0 = time.perf_counter()
        # a background build shares the CPU with this job (recorded); with quiet_pairs it is stopped for a job
        # that times anything
        timed = self.quiet_pairs and any(isinstance(s, PairedStep) for s in spec.steps)
        if timed:
            self._may_build.clear()
        paused = self._pause_ahead(True) if timed else None
        building = paused is not None or self._ahead_proc is not None
        with tempfile.TemporaryDirectory(prefix="fa5090-job-") as tmp:
            job, out = Path(tmp) / "job.json", Path(tmp) / "result.json"
            job.write_text(spec.model_dump_json())
            taken = None
            while self._spares and taken is None:  # the oldest live spare; one that died is reaped
                p = self._spares.pop(0)
                if p.poll() is None:
                    taken = p
                else:
                    stop_spare(p)
            if self.spare and taken is None:  # the first job of this Lab: nothing was started ahead of it
                taken = self._start_spare()
            while self.spare and len(self._spares) < self.spare_depth:  # the next jobs' workers import meanwhile
                self._spares.append(self._start_spare())
            try:
                rc, _, err = run_group([sys.executable, "-m", "experiments.worker", str(job), str(out)], timeout,
                                       spare=taken, job_line=f"{job}\t{out}")
            finally:
                if timed:
                    self._may_build.set()
                    self._pause_ahead(False)  # whatever background build is there, continued
            status = "timeout" if rc is None else "ok" if rc == 0 else ("error" if rc == 3 else "crash")
            data = json.loads(out.read_text()) if out.exists() else {"steps": []}
        return JobResult(status=status, steps=data["steps"], stderr=(err or "")[-3000:],
                         seconds=round(time.perf_counter() - t0, 3),
                         clock={**(data.get("clock") or {}), "build_ahead_at_start": building,
                                "build_ahead_at_end": self._ahead_proc is not None})

    def _start_spare(self):
        p = start_spare([sys.executable, "-m", "experiments.worker", "--spare"])
        atexit.register(stop_spare, p)  # a spare never handed a job does not outlive the tool
        return p

    def close(self) -> None:
        """The spares waiting for a next job, and a background build, stopped."""
        for p in self._spares:
            stop_spare(p)
        self._spares = []
        with self._ahead_mutex:
            self._ahead_next = None
            proc, self._ahead_proc = self._ahead_proc, ("stopped" if self._ahead_proc is not None else None)
        if proc is not None and proc != "stopped":
            stop_build(proc, reap=False)

    def _timeout(self, n_paired: int = 1) -> float:
        return 120 + n_paired * (self.budget_s * 3 + 30)

    # ---- the experiment ------------------------------------------------------------------
    def evaluate(self, base: Knobs, cand: Knobs, *, t_keep: float, t_noise: float,
                 ceiling: float | None = None, simpler: bool = False, replicate: bool = True) -> Evaluation:
        refusal = self.preflight(cand)
        if refusal:
            return Evaluation(outcome=Outcome.BLOCKED_BY_ARITHMETIC, detail=refusal)
        b = self.build([base, cand])
        if not b[cand.key()].ok:
            return Evaluation(outcome=Outcome.COMPILE_FAIL, detail="nvcc failed; log kept", build=b[cand.key()])
        return self.evaluate_libraries(b[base.key()], b[cand.key()], t_keep=t_keep, t_noise=t_noise, ceiling=ceiling,
                                       simpler=simpler, knobs=cand, replicate=replicate)

    def evaluate_libraries(self, base: BuildResult, cand: BuildResult, *, t_keep: float, t_noise: float,
                           ceiling: float | None = None, simpler: bool = False, knobs: Knobs | None = None,
                           replicate: bool = True) -> Evaluation:
        """The evaluation proper, on two built libraries (the defect battery enters here too);
        `knobs`: the candidate's, whose tile sets the tails C1 checks. `replicate=False` stops at the
        first decision (a keep is then "replicate pending"): a cluster runs the replicate elsewhere."""
        lib_a, lib_b = base.library, cand.library
        shapes, patterns = c1_patterns(c1_shapes(self.shape, knobs))
        steps = [
            AttributesStep(tag="attributes", lib=lib_b, shape=self.shape),
            CheckStep(tag="c1", lib=lib_b, shapes=shapes, inputs=patterns),
            PairedStep(tag="paired", stop_if_failed=True, base=Arm(lib=lib_a), cand=Arm(lib=lib_b), shape=self.shape,
                       budget_s=self.budget_s, l2=self.l2, recheck=True,
                       # a strictly simpler change is kept at any margin >= 1: its null ends at 1
                       settle=(t_noise, 1.0 if simpler else t_keep) if self.settle_rule else None,
                       settle_rule=self.settle_rule or "non_keep"),
            # C2 before a keep, run twice: the two outputs must agree bitwise
            # (a strictly simpler change is kept at any margin >= 1, so it needs C2 from there)
            CheckStep(tag="c2", lib=lib_b, shapes=[self.shape], repeat=2, if_margin_at_least=1.0 if simpler else t_keep),
        ]
        job = self.run_job(steps, self._timeout())
        first = decide(job, cand, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, simpler=simpler)
        if not replicate or first.outcome is not Outcome.KEPT or first.detail.startswith("simplification"):
            return first
        # the keep protocol's replicate: a second paired run in a fresh process must clear t_keep too
        confirm = self.replicate_libraries(base, cand, t_keep=t_keep if self.settle_rule == "any" else None)
        return decide(job, cand, t_keep=t_keep, t_noise=t_noise, ceiling=ceiling, confirm_job=confirm, simpler=simpler)

    def replicate_libraries(self, base: BuildResult, cand: BuildResult, t_keep: float | None = None) -> JobResult:
        """The keep protocol's replicate: the pair again, in a fresh process; `t_keep` given, it stops once its
        median's interval lies wholly on one side of t_keep (settle rule "replicate")."""
        return self.run_job([PairedStep(tag="paired", base=Arm(lib=base.library), cand=Arm(lib=cand.library),
                                        shape=self.shape, budget_s=self.budget_s, l2=self.l2,
                                        settle=(0.0, t_keep) if t_keep is not None else None,
                                        settle_rule="replicate")], self._timeout())

    def replicate(self, base: Knobs, cand: Knobs) -> JobResult:
        """The replicate of a keep measured elsewhere (another GPU of a cluster), on this device."""
        b = self.build([base, cand])
        return self.replicate_libraries(b[base.key()], b[cand.key()])

    def attributes(self, knobs: Knobs) -> dict:
        job = self.run_job([AttributesStep(tag="attributes", lib=self.library(knobs), shape=self.shape)], 120)
        if job.status != "ok":
            raise RuntimeError(f"could not read attributes of {knobs.label()}: {job.stderr[-500:]}")
        return job.value("attributes")

    def check(self, knobs: Knobs, shapes: list[Shape]) -> JobResult:
        """The shapes on N(0,1) inputs, and the reduced ones again on masked-dominant inputs."""
        shapes, patterns = c1_patterns(shapes)
        return self.run_job([CheckStep(tag="check", lib=self.library(knobs), shapes=shapes, inputs=patterns)],
                            self._timeout())

    def paired(self, base: dict, cand: dict) -> JobResult:
        """base/cand: {"knobs": Knobs} or {"sdpa": backend}."""
        arm = lambda a: Arm(lib=self.library(a["knobs"])) if "knobs" in a else Arm(sdpa=a["sdpa"])
        return self.run_job([PairedStep(tag="paired", base=arm(base), cand=arm(cand), shape=self.shape,
                                        budget_s=self.budget_s, l2=self.l2)], self._timeout())

    def ceilings(self, dtype: str) -> dict:
        spec = BuildSpec(knobs=Knobs(), arch=self.limits.arch, source="mma_peak.cu")
        b = build([spec], self.cache_dir / "build", jobs=self.jobs)[spec.key()]
        if not b.ok:
            raise RuntimeError(f"the mma.sync ceiling microbenchmark does not build:\n{b.log[-1500:]}")
        job = self.run_job([CeilingsStep(tag="ceilings", dtype=dtype, mma_lib=b.library)], 600)
        if job.status != "ok":
            raise RuntimeError(f"measuring the ceilings failed ({job.status}): {job.stderr[-800:]}")
        return job.value("ceilings")

    def aa_null(self, knobs: Knobs, repeats: int) -> list[dict]:
        """A/A: the same library against itself, each repeat in a fresh process, through the
        same paired path a keep test takes."""
        out = []
        for _ in range(repeats):
            job = self.paired({"knobs": knobs}, {"knobs": knobs})
            if job.status != "ok":
                raise RuntimeError(f"A/A null failed ({job.status}): {job.stderr[-800:]}")
            # where its seconds went (the child's clock), beside the pair: the null's cost is part of a run's
            out.append({**job.value("paired"), "job_s": job.seconds, "clock": job.clock})
        return out


def decide(job: JobResult, built: BuildResult, *, t_keep: float, t_noise: float, ceiling: float | None = None,
           confirm_job: JobResult | None = None, simpler: bool = False, replicate: dict | None = None) -> Evaluation:
    """The outcome of one evaluation; pure, so replayed jobs decide the same way.

    KEPT needs, as the seed's v7 protocol: paired median >= t_keep; the AB and BA halves on the
    same side of 1; C2 passed twice bitwise-identically; the timing inputs re-checked; a second
    paired run in a fresh process also >= t_keep; and a rate under the measured ceiling.

    `replicate`: where the replicate ran when that was another device than the first pair's (a
    cluster's worker: {"worker", "t_keep" of its own A/A null when it measured one, "same_worker"
    when no other was alive}). The replicate is then judged with *that* device's t_keep: its margin
    is a ratio measured on that GPU, whose own null says what a margin there is worth; without a
    t_keep of its own, the run's. None (one GPU): judged with `t_keep`, the detail as always."""
    ev = Evaluation(outcome=Outcome.CRASH, detail="", build=built, attributes=job.value("attributes"),
                    c1=job.value("c1"), paired=job.value("paired"), c2=job.value("c2"), job=job,
                    confirm_job=confirm_job, confirm=confirm_job.value("paired") if confirm_job else None)
    failed = next((s for s in job.steps if s.error is not None), None)
    if job.status == "timeout":
        ev.outcome, ev.detail = Outcome.TIMEOUT, f"child process exceeded its deadline during {_last_tag(job)}"
        return ev
    if failed is not None:
        err = failed.error
        resource = "launch" in err and any(w in err.lower() for w in _RESOURCE_WORDS)
        ev.outcome = Outcome.RESOURCE_FAIL if resource else Outcome.CRASH
        ev.detail = f"{failed.tag}: {err[:300]}"
        return ev
    if job.status == "crash":
        ev.outcome, ev.detail = Outcome.CRASH, f"child process died during {_last_tag(job)}: {job.stderr[-300:]}"
        return ev
    if ev.c1 is None or not ev.c1["ok"]:
        bad = next((c for c in (ev.c1 or {}).get("checks", []) if not c["ok"]), None)
        ev.outcome = Outcome.WRONG
        ev.detail = f"C1 failed at {_shape_str(bad['shape'])}: {bad['reason']}" if bad else "C1 did not run"
        return ev
    p = ev.paired
    if p.get("recheck") is not None and not p["recheck"]["ok"]:
        ev.outcome, ev.detail = Outcome.WRONG, f"re-check on the timing inputs failed: {p['recheck']['reason']}"
        return ev
    if p.get("suspicious"):
        ev.outcome, ev.detail = Outcome.SUSPICIOUS, p["suspicious"]
        return ev
    if ceiling is not None and p["tflops_cand"] > ceiling:
        ev.outcome = Outcome.SUSPICIOUS
        ev.detail = f"{p['tflops_cand']:.1f} TFLOP/s is above the measured ceiling {ceiling:.1f}: not physical, never kept"
        return ev
    m = p["margin"]
    if m >= t_keep:
        halves_agree = (p["margin_ab"] - 1) * (p["margin_ba"] - 1) > 0
        if ev.c2 is None or not ev.c2["ok"]:
            bad = (ev.c2 or {}).get("checks", [{}])[0]
            ev.outcome, ev.detail = Outcome.WRONG, f"margin {m:.4f} but C2 failed: {bad.get('reason', 'did not run')}"
        elif not halves_agree:
            ev.outcome = Outcome.NULL
            ev.detail = f"margin {m:.4f} but the AB ({p['margin_ab']:.4f}) and BA ({p['margin_ba']:.4f}) halves disagree"
        elif confirm_job is None:
            ev.outcome, ev.detail = Outcome.KEPT, f"margin {m:.4f} >= t_keep {t_keep:.4f}; replicate pending"
        elif ev.confirm is None:
            ev.outcome, ev.detail = Outcome.CRASH, f"the replicate run failed ({confirm_job.status}): {confirm_job.stderr[-200:]}"
        else:
            # the replicate is judged with the t_keep of the device that measured it: the run's own,
            # or (another Dask worker) that worker's, named in the detail
            c = ev.confirm["margin"]
            rk = replicate.get("t_keep", t_keep) if replicate is not None else t_keep
            w = replicate["worker"] if replicate is not None else None
            note = f" (no other worker alive: the replicate ran on {w} too)" if replicate and replicate.get("same_worker") else ""
            if c < rk:
                ev.outcome = Outcome.NULL
                ev.detail = (f"margin {m:.4f} did not replicate in a fresh process on {w} ({c:.4f} < its t_keep {rk:.4f}){note}"
                             if w is not None else
                             f"margin {m:.4f} did not replicate in a fresh process ({c:.4f} < t_keep {t_keep:.4f})")
            else:
                ev.outcome = Outcome.KEPT
                ev.detail = (f"margin {m:.4f} >= t_keep {t_keep:.4f}; replicate on {w} {c:.4f} >= its t_keep {rk:.4f}{note}; "
                             if w is not None else
                             f"margin {m:.4f} and replicate {c:.4f} >= t_keep {t_keep:.4f}; ") + \
                    "AB/BA agree; C2 passed twice, bitwise equal"
    elif simpler and m >= 1.0 and ev.c2 is not None and ev.c2["ok"]:
        ev.outcome = Outcome.KEPT  # the seed's one exception to "NULL reverts"
        ev.detail = f"simplification: margin {m:.4f} is within the A/A null but the change is strictly simpler; C2 passed"
    elif m <= 1 - t_noise:
        ev.outcome, ev.detail = Outcome.SLOWER, f"margin {m:.4f} <= 1 - t_noise ({1 - t_noise:.4f})"
    else:
        ev.outcome, ev.detail = Outcome.NULL, f"margin {m:.4f} within the A/A null (t_noise {t_noise:.4%})"
    return ev


def _last_tag(job: JobResult) -> str:
    done = {s.tag for s in job.steps}
    for tag in ("attributes", "c1", "paired", "c2"):
        if tag not in done:
            return tag
    return "the last step"


def _shape_str(sd: dict) -> str:
    return Shape(**sd).key()
