"""What the loop measures on: the `Bench` protocol, and the optional `FanOut` of a bench that measures
several evaluations at once.

A bench answers questions about candidates (build, check, time, profile); the loop never asks how.
Four implement it: the GPU (agent.bench.GpuBench), a recorder around any bench and a replay of a
recording (agent.bench), and a Dask cluster of GPUs (agent.distributed.DaskBench); tests' fakes do
too. Optional capabilities are declared here with their defaults, and a bench that has one says so
by overriding it: the loop reads the declaration, never probes for a method.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from experiments.build import BuildResult
    from experiments.device import DeviceInfo
    from experiments.lab import Evaluation, JobResult, Lab
    from experiments.problem import Shape
    from kernel_src.knobs import Knobs
    from profiler.static import StaticFigures

    from .bench import ProfileRecord


class FanOut(Protocol):
    """A bench that measures several evaluations at once, each on its own GPU (agent.distributed)."""

    @property
    def workers(self) -> list[str]:
        """The GPUs' names, one evaluation each at a time."""

    def submit(self, base: Knobs, cands: list[tuple[Knobs, bool]], *, t_keep: float, t_noise: float,
               ceiling: float | None = None) -> None:
        """Start these (candidate, simpler) evaluations against `base`; `Bench.evaluate` with the same
        arguments answers from them later, in the loop's own order."""

    def discard_ahead(self, base: Knobs | None) -> dict:
        """Drop what was started against another best than `base` (None: everything still ahead);
        {"discarded": n, "measured": of them, how many a worker had taken}."""

    def map(self, fn: Callable[[Any, Any], Any], items: list, knobs_of: Callable[[Any], list[Knobs]],
            on_death: Callable[[Any, str], Any]) -> list:
        """fn(a worker's bench, item) for every item, spread over the GPUs, answers in order."""


class Bench(Protocol):
    # evaluates a keep's first pair and its replicate apart when asked (evaluate(..., replicate=False),
    # then replicate()), so a cluster replicates on another GPU; False: it answers whole evaluations only
    # (a replay answers them as they were recorded)
    replicates_apart: bool = True
    # the lab that builds and runs candidates on this machine, where a cluster's worker places the libraries
    # its client built (agent.distributed); None: nothing is built here (a replay, a fake)
    lab: Lab | None = None

    def device(self) -> DeviceInfo: ...

    def setup(self, options: dict) -> dict:
        """The settings the run's decisions depend on (a replay answers with the recorded ones)."""

    def calibration(self, found: dict | None) -> dict | None:
        """The calibration the run uses (`found`: the newest of this GPU and problem, or None)."""

    def levers(self, names: list[str]) -> list[str]:
        """The lever catalog the run searches (a replay answers with the recorded one)."""

    def build(self, knobs: list[Knobs]) -> dict[str, BuildResult]: ...

    def prefetch(self, knobs: list[Knobs]) -> None:
        """Build ahead (one ninja call); nothing is answered."""

    def build_ahead(self, knobs: list[Knobs], then: Callable[[dict], list[Knobs]] | None = None) -> None:
        """Start building these in the background while the GPU measures something else (the candidates the next
        step asks for if the one in flight is kept); `then(figures)`, given the compiler's figures of those that
        built (knob key -> StaticFigures | None): what to build after them. Nothing is answered or recorded, and a
        replay ignores it. The default: nothing."""
        return None

    def static(self, knobs: list[Knobs]) -> dict[str, StaticFigures | None]:
        """The compiler's figures of each on this device (None: it did not build)."""

    def evaluate(self, base: Knobs, cand: Knobs, *, t_keep: float, t_noise: float, ceiling: float | None = None,
                 simpler: bool = False) -> Evaluation: ...

    def check(self, knobs: Knobs, shapes: list[Shape]) -> JobResult: ...

    def paired(self, base: dict, cand: dict) -> JobResult:
        """base/cand: {"knobs": Knobs} or {"sdpa": backend}."""

    def aa_null(self, knobs: Knobs, repeats: int) -> list[dict]: ...

    def attributes(self, knobs: Knobs) -> dict: ...

    def profile(self, knobs: Knobs) -> ProfileRecord: ...

    def replicate(self, base: Knobs, cand: Knobs) -> JobResult:
        """A keep's replicate alone, in a fresh process (where `replicates_apart`)."""
        raise NotImplementedError(f"{type(self).__name__} answers whole evaluations only")

    def ceilings(self, dtype: str) -> dict:
        """The card's measured rates for the dtype (`calibrate`)."""
        raise NotImplementedError(f"{type(self).__name__} measures no ceilings")

    def close(self) -> None:
        """What the bench keeps running between measurements (spare children, a background build), stopped; the
        default: nothing to stop."""
        return None

    def fan_out(self) -> FanOut | None:
        """The bench itself when it measures several evaluations at once; None (the default): one at a time."""
        return None
