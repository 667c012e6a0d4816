"""What crosses to the child process (experiments.worker) and back: a job of typed steps, and the
record each step leaves in the result file.

The steps are a discriminated union on `do`: a misspelt field or an unknown step is a validation
error in the parent, before a child is started. The result file keeps the format every recorded
job under results/ holds ({"steps": [{"do", "tag", "result" | "skipped" | "error", "traceback"}]}),
so recorded evaluations load as they were written.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from .problem import Shape
from .timing import LEAD_MS


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tag: str = ""  # the name its record goes by (JobResult.value); empty: the step's `do`
    stop_if_failed: bool = False  # skipped once a check before it failed
    if_margin_at_least: float | None = None  # skipped unless the last paired margin reached this
    if_checks_ok: bool = True  # with if_margin_at_least: skipped too when a check before it failed

    def name(self) -> str:
        return self.tag or self.do  # type: ignore[attr-defined]


class Arm(BaseModel):
    """One side of a pair: a built library, or a torch attention backend."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    lib: str | None = None
    sdpa: Literal["flash", "cudnn", "efficient", "math", "flash_attn"] | None = None


class AttributesStep(_Step):
    do: Literal["attributes"] = "attributes"
    lib: str
    shape: Shape


class CheckStep(_Step):
    """The correctness tier on each shape, on the input pattern named at its index (default N(0,1));
    stops at the first shape that fails."""
    do: Literal["check"] = "check"
    lib: str
    shapes: list[Shape]
    inputs: list[str] = []
    repeat: int = 1  # runs that must agree bitwise


class PairedStep(_Step):
    """The two arms timed alternately on the same inputs (experiments.timing.paired); `recheck`: the
    candidate checked again on the very inputs the timing used."""
    do: Literal["paired"] = "paired"
    base: Arm
    cand: Arm
    shape: Shape
    budget_s: float
    l2: Literal["warm", "cold"] = "warm"
    recheck: bool = False
    # (t_noise, t_keep): the alternations stop once the outcome is settled (experiments.timing.settle_reason) under
    # `settle_rule`: "non_keep" (only a SLOWER or NULL stops it), "any" (a keep-side reading too), "replicate"
    settle: tuple[float, float] | None = None
    settle_rule: Literal["non_keep", "any", "replicate"] = "non_keep"
    lead_ms: float = LEAD_MS  # the GPU busy this long before each pair's first block (experiments.timing)
    # the next pair queued before the host waits for this one, no idle GPU between pairs: the synchronised pairs'
    # first block read ~0.5-0.6% slower than the second (AB/BA halves ~1.0055 / 0.9945 of an A/A pair), pipelined
    # ones within 0.0017 (H200, results/2026-12-03_h200_pair_order)
    pipelined: bool = True


class CeilingsStep(_Step):
    do: Literal["ceilings"] = "ceilings"
    dtype: str
    mma_lib: str


class EnvelopeStep(_Step):
    """Every library on every configuration (experiments.tolerance.run_envelope)."""
    do: Literal["envelope"] = "envelope"
    seed: int
    libs: dict[str, str]  # name -> library path
    configs: list[Shape]
    bitwise_pairs: list[tuple[str, str]] = []


class StreamsStep(_Step):
    """The library on several streams at once, each stream's output bitwise its one-stream output
    (experiments.tier.streams_check)."""
    do: Literal["streams"] = "streams"
    lib: str
    shape: Shape
    streams: int = Field(4, ge=2)
    rounds: int = Field(20, ge=1)
    seed: int = 0


Step = Annotated[Union[AttributesStep, CheckStep, PairedStep, CeilingsStep, EnvelopeStep, StreamsStep],
                 Field(discriminator="do")]


class Job(BaseModel):
    steps: list[Step]


class StepRecord(BaseModel):
    """What one step left: its result, or why it was skipped, or the error that ended the job. Fields
    a record does not have are left out of its JSON, as the worker has always written them."""
    model_config = ConfigDict(extra="allow")

    do: str | None = None
    tag: str | None = None
    result: dict[str, Any] | None = None
    skipped: str | None = None
    error: str | None = None
    traceback: str | None = None
    seconds: float | None = None  # the step's own wall time in the child

    @model_serializer(mode="wrap")
    def _present(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None or k in (self.model_extra or {})}


class JobResult(BaseModel):
    status: str  # "ok" | "error" | "crash" | "timeout"
    steps: list[StepRecord]
    stderr: str = ""
    seconds: float | None = None  # the parent's wall clock for the child, its start and CUDA context included
    # the child's own clock (experiments.worker): torch_import_s, cuda_context_s, process_s, and a spare's
    # spare_imports_s / spare_waited_s; None for jobs recorded before it
    clock: dict | None = None

    def step(self, tag: str) -> StepRecord | None:
        return next((s for s in self.steps if s.tag == tag), None)

    def value(self, tag: str) -> dict | None:
        s = self.step(tag)
        return s.result if s else None
