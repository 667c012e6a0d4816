"""A synthetic bench for the loop's logic: deterministic, no GPU, no nvcc.

Nothing here is a measurement. Its registers follow the shape of the H200's ptxas figures (Q in
registers costs ~32 at D=128, BC 128 adds ~70, a second m16 tile per warp ~70, padding saves ~12)
and its speed model rewards resident rows per SM, so the strategies' code paths (compiler
figures, compound moves, the plateau rule, re-measured nulls) can be exercised end to end; claims
about the real search come from the H200 recordings under results/."""
from __future__ import annotations

import hashlib

from agent.bench import ProfileRecord
from agent.bench_protocol import Bench
from experiments.build import BuildResult
from experiments.device import DeviceInfo
from experiments.lab import JobResult, decide
from kernel_src.arch import TABLE, ctas_per_sm
from kernel_src.knobs import Knobs
from profiler.static import StaticFigures


def registers(k: Knobs) -> tuple[int, int]:
    if k.compute.value == "scalar":
        return 128, 0
    r = 140 + (32 if k.q_in.value == "regs" else 0) + {16: -12, 32: -8, 64: 0, 128: 70}[k.bc]
    r += 70 if k.br == 32 * k.warps else 0
    r += 10 if k.kv_stages > 1 else 0
    r -= 12 if k.layout.value == "pad" else 0
    spill = max(0, r - 255) * 4
    r = min(r, 255)
    if k.min_ctas:
        cap = (65536 // (k.min_ctas * k.threads())) // 8 * 8
        if r > cap:
            spill, r = spill + (r - cap) * 4, cap
    return r, spill


def figures(k: Knobs, head_dim: int = 128, arch: str = "sm_90") -> StaticFigures:
    lim = TABLE[arch]
    r, spill = registers(k)
    smem = k.smem_bytes(head_dim)
    ctas, limiter = ctas_per_sm(lim, threads=k.threads(), smem=smem, regs=r)
    refusal = None if smem <= lim.smem_per_block_optin else f"{smem} B > {lim.smem_per_block_optin} B"
    return StaticFigures(registers=r, spill_bytes=spill, smem_per_cta=smem, ctas_per_sm=0 if refusal else ctas,
                         warps_per_sm=0 if refusal else ctas * k.warps, rows_per_sm=0 if refusal else ctas * k.br,
                         limiter=limiter, refusal=refusal)


def tflops(k: Knobs) -> float:
    f = figures(k)
    if f.refusal:
        return 0.0
    t = 8.0
    if k.compute.value == "mma":
        t *= 3.5 * (1.4 if k.layout.value != "row_major" else 1.0)
        t *= 4.0 if k.staging.value == "cp_async" else 1.0
        t *= (f.rows_per_sm / 128) ** 0.5 * (0.97 if k.bc == 32 else 1.0)
        t *= 0.9 if f.spill_bytes > 128 else 1.0
        t *= 0.95 if k.persistent.value == "on" else 1.0
        t *= 0.9 if k.split_kv > 1 else 1.0
    t *= 1.1 if k.exp.value == "ex2" else 1.0
    return t


def _jitter(*parts) -> float:
    h = int(hashlib.sha256(repr(parts).encode()).hexdigest()[:8], 16)
    return 1 + ((h % 1000) / 1000 - 0.5) * 0.002  # +-0.1%, deterministic


class SimBench(Bench):
    @staticmethod
    def require_device() -> None:  # the simulated GPU is always there
        return None

    # the library arms' rates (TFLOP/s): flash where the first synthetic runs put it, cuDNN ahead of it
    # as on the H200 (where its baseline rows ran 1.5-1.9x flash), so a kernel can sit between the two
    SDPA_TFLOPS = {"flash": 340.0, "cudnn": 600.0, "efficient": 165.0, "math": 20.0, "flash_attn": 335.0}

    def __init__(self, flops: float = 1.1e12, csvs: dict | None = None, unavailable: dict[str, str] | None = None):
        """`unavailable`: backend -> why, the library arms that do not run here (the worker's skipped step)."""
        self.flops, self.csvs = flops, csvs or {}
        self.unavailable = unavailable or {}
        self.calls: list[str] = []
        self.budget_s, self.l2 = 1.0, "warm"

    def _paired(self, a_ms: float, b_ms: float, tag: str) -> dict:
        m = a_ms / b_ms * _jitter(tag, a_ms, b_ms)
        return {"margin": m, "margin_ab": m * 1.0005, "margin_ba": m * 0.9995, "margin_lo": m * 0.99,
                "margin_hi": m * 1.01, "ms_base": a_ms, "ms_cand": b_ms,
                "tflops_base": self.flops / (a_ms * 1e-3) / 1e12, "tflops_cand": self.flops / (b_ms * 1e-3) / 1e12}

    def ms(self, k: Knobs) -> float:
        return self.flops / (tflops(k) * 1e12) * 1e3

    def device(self):
        return DeviceInfo(name="NVIDIA H200 (simulated)", arch="sm_90", sm_count=132, limits=TABLE["sm_90"],
                          driver="sim", torch="sim", torch_cuda=None)

    def setup(self, options):
        return options

    def calibration(self, found):
        return found

    def levers(self, names):
        return names

    def build(self, knobs):
        return {k.key(): BuildResult(key=k.key(), ok=True, library=f"/sim/{k.key()}.so", log="", seconds=0.0,
                                     cached=False) for k in knobs}

    def prefetch(self, knobs):
        pass

    def static(self, knobs):
        self.calls.append(f"static {len(knobs)}")
        return {k.key(): figures(k) for k in knobs}

    def check(self, knobs, shapes):
        return JobResult(status="ok", steps=[{"tag": "check", "result": {"ok": True, "checks": []}}])

    def attributes(self, knobs):
        f = figures(knobs)
        return {"registers": f.registers, "smem_per_cta": f.smem_per_cta, "ctas_per_sm": f.ctas_per_sm,
                "threads": knobs.threads()}

    def profile(self, knobs):
        for stage, csv in self.csvs.items():
            if stage(knobs):
                return ProfileRecord(csv=csv)
        return ProfileRecord(error="simulated: no profile")

    def aa_null(self, knobs, repeats):
        self.calls.append(f"aa {knobs.label()}")
        ms = self.ms(knobs)
        return [self._paired(ms, ms, ("aa", knobs.key(), i)) for i in range(repeats)]

    def evaluate(self, base, cand, *, t_keep, t_noise, ceiling=None, simpler=False, replicate=True):
        self.calls.append(f"evaluate {cand.label()}")
        if figures(cand).refusal:
            from experiments.lab import Evaluation
            from experiments.outcome import Outcome
            return Evaluation(outcome=Outcome.BLOCKED_BY_ARITHMETIC, detail=figures(cand).refusal)
        p = self._paired(self.ms(base), self.ms(cand), ("ev", base.key(), cand.key()))
        ok = {"ok": True, "checks": []}
        job = JobResult(status="ok", steps=[{"tag": "attributes", "result": self.attributes(cand)},
                                            {"tag": "c1", "result": ok}, {"tag": "paired", "result": p},
                                            {"tag": "c2", "result": ok}])
        first = decide(job, self.build([cand])[cand.key()], t_keep=t_keep, t_noise=t_noise, simpler=simpler)
        if first.outcome.value != "KEPT" or not replicate:
            return first
        confirm = self.replicate(base, cand)
        return decide(job, self.build([cand])[cand.key()], t_keep=t_keep, t_noise=t_noise, confirm_job=confirm,
                      simpler=simpler)

    def replicate(self, base, cand):
        self.calls.append(f"replicate {cand.label()}")
        return JobResult(status="ok", steps=[{"tag": "paired", "result": self._paired(
            self.ms(base), self.ms(cand), ("confirm", base.key(), cand.key()))}])

    def paired(self, base, cand):
        self.calls.append("paired " + " ".join(a["knobs"].label() if "knobs" in a else a["sdpa"] for a in (base, cand)))
        gone = [self.unavailable[a["sdpa"]] for a in (base, cand) if a.get("sdpa") in self.unavailable]
        if gone:
            return JobResult(status="ok", steps=[{"do": "paired", "tag": "paired", "skipped": f"unavailable: {gone[0]}"}])
        ms = lambda a: self.ms(a["knobs"]) if "knobs" in a else self.flops / (self.SDPA_TFLOPS[a["sdpa"]] * 1e12) * 1e3
        a, b = ms(base), ms(cand)
        return JobResult(status="ok", steps=[{"tag": "paired", "result": self._paired(a, b, ("paired", a, b))}])


class DyingSimBench(SimBench):
    """SimBench whose process dies (os._exit, as an OOM kill or a lost node takes a Dask worker)
    while evaluating the candidate `die_on` (a knob key): once (a marker file says it happened), or
    every time (`always`)."""

    def __init__(self, die_on: str, marker: str, always: bool = False):
        super().__init__()
        self.die_on, self.marker, self.always = die_on, marker, always

    def evaluate(self, base, cand, **gate):
        import os
        from pathlib import Path

        if cand.key() == self.die_on and (self.always or not Path(self.marker).exists()):
            Path(self.marker).touch()
            os._exit(1)
        return super().evaluate(base, cand, **gate)


class SlowSimBench(SimBench):
    """SimBench whose seed check takes 3 s, as a real one does on a GPU: the client's wait for a
    worker outlasts its 2 s poll (the first --gpus 2 run on the H200 ended there, 2026-11-30)."""

    def check(self, knobs, shapes):
        import time

        time.sleep(3.0)
        return super().check(knobs, shapes)


class NoisyWorkerSimBench(SimBench):
    """SimBench whose A/A null is 3% wide on the Dask worker named "1" (a noisier GPU), so a pair
    measured there is judged with another t_keep than one measured on worker "0"."""

    def aa_null(self, knobs, repeats):
        from distributed import get_worker

        out = super().aa_null(knobs, repeats)
        if str(get_worker().name) == "1":
            out = [{**a, "margin": a["margin"] * (1.03 if i % 2 else 0.97)} for i, a in enumerate(out)]
        return out


class SpillingSimBench(SimBench):
    """SimBench whose compiler figures make min_ctas_3 the H200's costly lever: forcing a
    third CTA adds one CTA's rows per SM but spills 512 B while Q sits in registers, so the agent
    pairs it with what gives registers back (q_from_smem, narrow_kv_tile) and ranks those compounds
    above every single lever. The timings are SimBench's."""

    def static(self, knobs):
        self.calls.append(f"static {len(knobs)}")
        out = {}
        for k in knobs:
            f = figures(k)
            if k.min_ctas and not f.refusal:
                f = f.model_copy(update={"ctas_per_sm": f.ctas_per_sm + 1, "rows_per_sm": f.rows_per_sm + k.br,
                                         "spill_bytes": 512 if k.q_in.value == "regs" else 0})
            out[k.key()] = f
        return out


def sim_worker_bench(shape, budget_s, l2, profile):
    """agent.distributed.gpu_worker_bench's stand-in on a CPU cluster: a worker's bench, simulated."""
    return SimBench()


# what a worker prints when the machine's environment is broken under a run: torch fails to load in every new
# child process
NO_TORCH = "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'torch'"


class BreakingSimBench(SimBench):
    """SimBench whose machine breaks once `healthy` evaluations have been answered: from the next one on
    every worker dies as a child process does that cannot load torch (evaluations CRASH, checks and pairs
    come back `crash`, the A/A null and attributes raise as the Lab's do), until `fixed` is set."""

    def __init__(self, healthy: int):
        super().__init__()
        self.healthy, self.evaluations, self.broken, self.fixed = healthy, 0, False, False

    def _down(self) -> bool:
        return self.broken and not self.fixed

    def _crash(self) -> JobResult:
        return JobResult(status="crash", steps=[], stderr=NO_TORCH)

    def evaluate(self, base, cand, **gate):
        self.evaluations += 1
        self.broken = self.broken or self.evaluations > self.healthy
        if self._down():
            self.calls.append(f"evaluate {cand.label()} (broken)")
            return decide(self._crash(), self.build([cand])[cand.key()], t_keep=gate["t_keep"], t_noise=gate["t_noise"])
        return super().evaluate(base, cand, **gate)

    def check(self, knobs, shapes):
        self.calls.append(f"check {knobs.label()}" + (" (broken)" if self._down() else ""))
        return self._crash() if self._down() else super().check(knobs, shapes)

    def paired(self, base, cand):
        return self._crash() if self._down() else super().paired(base, cand)

    def replicate(self, base, cand):
        return self._crash() if self._down() else super().replicate(base, cand)

    def aa_null(self, knobs, repeats):
        if self._down():
            raise RuntimeError(f"A/A null failed (crash): {NO_TORCH}")
        return super().aa_null(knobs, repeats)

    def attributes(self, knobs):
        if self._down():
            raise RuntimeError(f"could not read attributes of {knobs.label()}: {NO_TORCH}")
        return super().attributes(knobs)


class CrashingSimBench(SimBench):
    """SimBench on a sound machine where the candidates in `crash` (knob keys) fault in their own worker
    (CRASH, as an illegal address does); every other call, the best's re-check among them, passes."""

    def __init__(self, crash: set[str]):
        super().__init__()
        self.crash = set(crash)

    def evaluate(self, base, cand, **gate):
        if cand.key() in self.crash:
            self.calls.append(f"evaluate {cand.label()} (crash)")
            job = JobResult(status="crash", steps=[{"tag": "attributes", "result": self.attributes(cand)}],
                            stderr="torch.AcceleratorError: CUDA error: an illegal memory access was encountered")
            return decide(job, self.build([cand])[cand.key()], t_keep=gate["t_keep"], t_noise=gate["t_noise"])
        return super().evaluate(base, cand, **gate)

    def check(self, knobs, shapes):
        self.calls.append(f"check {knobs.label()}")
        return super().check(knobs, shapes)
