"""What the search tells a person while it runs: one typed event per thing that happened.

The loop (and calibrate, sweep, resume) call `say(event)`; agent.progress.Reporter renders each
kind. `kind` is the event's short name, the one a test or a log may key on.
"""
from __future__ import annotations

from typing import Callable, ClassVar

from pydantic import BaseModel, ConfigDict

from experiments.device import DeviceInfo
from experiments.outcome import Outcome
from experiments.problem import Shape
from kernel_src.knobs import Knobs
from profiler.diagnosis import Diagnosis

from .reanchor import Reanchor
from .strategies.base import Proposal


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: ClassVar[str]


class RunStarted(Event):
    kind: ClassVar[str] = "run"
    run_id: int
    device: DeviceInfo
    shape: Shape
    strategy: str | None = None


class Phase(Event):
    """What is being done now (the progress bar's description)."""
    kind: ClassVar[str] = "phase"
    text: str


class Line(Event):
    kind: ClassVar[str] = "line"
    text: str


class Warn(Event):
    kind: ClassVar[str] = "warn"
    text: str


class Diagnosed(Event):
    kind: ClassVar[str] = "diagnosis"
    knobs: Knobs
    diagnosis: Diagnosis | None
    why: str = ""  # why there is none


class NullMeasured(Event):
    """An A/A null in force: its margins and the keep threshold they set."""
    kind: ClassVar[str] = "aa"
    margins: list[float]
    t_noise: float
    t_keep: float
    source: str = ""
    ceiling: float | None = None


class ExperimentStarted(Event):
    kind: ClassVar[str] = "experiment"
    seq: int
    budget: int
    move_kind: str  # lever | compound | rescreen | sample
    lever: str
    base: Knobs
    cand: Knobs | None
    predicted: tuple[float, float] | None = None
    prior: dict | None = None  # the margin measured on this kernel in an earlier run
    rationale: str = ""


class Ranked(Event):
    kind: ClassVar[str] = "ranking"
    proposals: list[Proposal]
    t_keep: float


class Remaining(Event):
    """What was not worth a measurement when the run stopped, and why."""
    kind: ClassVar[str] = "remaining"
    items: list[tuple[str, str]]


class Kept(Event):
    kind: ClassVar[str] = "kept"
    seq: int
    lever: str
    margin: float | None
    tflops: float | None
    diagnosis: Diagnosis | None = None
    why: str = ""  # why there is no diagnosis of the new best
    rescreens: list[str] = []  # shelved levers the keep re-opens
    outcome: Outcome = Outcome.KEPT
    detail: str = ""


class Rejected(Event):
    kind: ClassVar[str] = "rejected"
    seq: int
    lever: str
    outcome: Outcome
    detail: str
    margin: float | None = None


class Anchored(Event):
    """The best against the untouched seed (a re-anchor); `result` None: the measurement failed."""
    kind: ClassVar[str] = "anchor"
    result: dict | None
    reanchor: Reanchor | None = None


class Compared(Event):
    """SDPA `backend` against the final best; `result` None: no pair, `why` says why (the backend is
    unavailable here, or the measurement failed)."""
    kind: ClassVar[str] = "comparator"
    result: dict | None
    backend: str = "flash"
    why: str | None = None


class Done(Event):
    kind: ClassVar[str] = "done"
    run_id: int
    status: str
    reason: str
    summary: dict = {}


Say = Callable[[Event], None]


def quiet(event: Event) -> None:
    """A `say` that tells nobody."""
