"""What a search holds: its options, its fixed context (`Run`), the nulls it judges by, and where it
stands (`Progress`, the loop's own variables, which agent.resume rebuilds for an interrupted run)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from typing import Literal

from pydantic import BaseModel, ConfigDict

from experiments.device import DeviceInfo
from experiments.problem import Shape
from kernel_src.knobs import Knobs
from profiler.diagnosis import Diagnosis

from .bench_protocol import Bench
from .events import Say
from .levers import Lever
from .policy import CURRENT
from .strategies.base import Strategy, Trial

PLATEAU = 3  # consecutive experiments without a keep (seed v7 stopped under this rule)
REANCHOR_EVERY = 3  # keeps between re-anchors (the seed's RA1 came after three)
# how many proposals the loop takes from a strategy's rank at each step (a screen's fan-out window)
ASK = 8
# a screen that orders singles first reads the strategy's whole rank: its singles may all rank
# below eight compounds
ASK_ALL = 10_000


class SearchError(RuntimeError):
    pass


class SearchOptions(BaseModel):
    """How a search spends its budget (the CLI's `run` options)."""

    budget: int = 20
    aa_repeats: int = 5
    plateau: int = PLATEAU
    exclude: tuple[str, ...] = ()
    use_calibration: bool = True
    reanchor_every: int = REANCHOR_EVERY
    # screen: every applicable lever once against the seed, which never moves (the seed's v7 "knob
    # screen"): a table of each lever's paired margin against its off setting, no keeps, no plateau
    screen: bool = False
    # evidence: margins already measured against the current kernel in earlier runs of this
    # database (a screen, an earlier search) rank the levers and become their predicted bands
    evidence: bool = True
    strategy: str = "agent"  # agent.strategies.NAMES
    rng_seed: int = 0  # random and TPE draws
    # the A/A null belongs to the kernel being compared: re-measured on the best when its time per
    # call has moved by more than this factor since the kernel the current null was measured on
    renoise_factor: float = 2.0
    renoise: bool = True
    # lazy_null: a re-measured null is owed, not paid, until a decision needs it. Until then each experiment
    # is judged with the band +-lazy_band as its null (t_keep 1 + lazy_band): a margin outside it is decided
    # the same under any null up to that band (every null measured on the H200 was under 1%). The owed null
    # is measured first when the proposal's predicted band reaches into +-lazy_band (or it has none, or it is
    # a simplification), and before the experiment is decided when its margin lands inside the band.
    lazy_null: bool = True
    lazy_band: float = 0.02
    # the agent's policy (agent.policy.POLICIES): a replay or a resume runs the one it recorded
    agent_version: int = CURRENT.version
    # a screen ends with its fixed kernel paired against SDPA flash, so its margin table has an
    # absolute anchor (screens recorded before this setting had none)
    screen_comparator: bool = True
    # a screen measures every single lever that applies to the seed (in the strategy's rank among
    # singles) before any compound move; screens recorded before this setting took the strategy's
    # rank as it came, compounds among the singles (29 of 30 were compounds on the H200)
    screen_singles_first: bool = True
    # the SDPA backends the final kernel is paired against at the end, one fresh process each: flash,
    # and cuDNN, the fastest a PyTorch user gets on an H200 (the `baseline` rows there: cuDNN at 1.54x
    # flash's TFLOP/s at D64 and 1.86-1.90x at D128, N8192, results/2026-11-30_h200_mma_reaches_flash/call2/); runs
    # recorded before this setting paired flash only
    comparators: tuple[str, ...] = ("flash", "cudnn")
    # how TPE draws a point: "constructive" offers each dimension only the values the knob table's rules allow beside
    # those drawn before it (agent.strategies.base.Constructive: a few asks a draw); "uniform" asked every dimension
    # over all its values and told each invalid point failed (thousands of asks a draw, 68-100 thousand for a run's 20
    # on the H200, results/2026-12-04_h200_race/tpe_asks.txt). Runs recorded before this setting drew uniformly.
    tpe_draw: Literal["constructive", "uniform"] = "constructive"


class Noise(BaseModel):
    """The A/A null in force, and the kernel (and its time per call) it was measured on."""

    t_noise: float
    t_keep: float
    margins: list[float]
    knob_key: str | None
    ms: float | None  # that kernel's time per call; None: unknown (then never re-measured)
    source: str


class Progress(BaseModel):
    """Where a run stands after its last finished experiment: the loop's own variables, and the steps
    it still owes after that experiment (an interrupted run's, rebuilt by agent.resume.restore)."""
    model_config = ConfigDict(arbitrary_types_allowed=True)

    cal: dict | None = None
    seeded: bool = False  # the seed's row exists: attrs and diag below are its
    attrs: dict | None = None
    diag: Diagnosis | None = None  # the current best's
    noises: list[Noise] = []  # every null in force so far, the last one now; empty: the first was never recorded
    best: Knobs | None = None
    conds: dict = {}  # agent.shelf.Conditions of the current best
    trials: list[Trial] = []
    links: list[float] = []  # the paired margins of the keeps since the seed
    link_noise: list[float] = []  # the t_noise each of them was judged with
    done: int = 0
    since_keep: int = 0
    figures: dict = {}  # knob key -> the compiler's figures (profiler.static.StaticFigures), None: no build
    owed: set[str] = set()  # what the last keep had not done yet: "renoise", "reanchor"
    null_owed: bool = False  # (lazy_null) the best's time per call has moved: its null is measured when needed
    null_error: str | None = None  # why the owed null could not be measured, the last time it was tried
    last_paired: dict | None = None  # that keep's paired measurement
    # the closing steps already recorded: "final_reanchor", and each comparator pair's lever ("sdpa_flash", ...)
    final_done: set[str] = set()
    # the last experiment after which the best re-checked fine (agent.health): a streak of failures
    # counts from there (0 on resume: a streak older than the resume may be uncounted whole, and re-run)
    checked_at: int = 0

    @property
    def noise(self) -> Noise:
        return self.noises[-1]


@dataclass
class Run:
    """One search's context, fixed once it has started: what every step reads. `levers` is the
    catalog the run may use, read from the bench once the seed is checked."""
    bench: Bench
    db: object  # sqlite_utils.Database
    run_id: int
    dev: DeviceInfo
    shape: Shape
    seed: Knobs
    artifacts: Path  # <db>_artifacts/run-N/
    o: SearchOptions
    strategy: Strategy
    say: Say
    ceiling: float | None = None  # the highest rate measured on this card for the dtype (anchors.ceiling_of)
    levers: tuple[Lever, ...] = ()
    figures_s: float | None = None  # seconds the last figures step waited for builds (kept with the next experiment)

    def gate(self, noise: Noise) -> dict:
        """The keep gate's thresholds under `noise`."""
        return {"t_keep": noise.t_keep, "t_noise": noise.t_noise, "ceiling": self.ceiling}

    def band_gate(self) -> dict:
        """The gate while a null is owed (lazy_null): the band +-lazy_band as the null."""
        return {"t_keep": 1.0 + self.o.lazy_band, "t_noise": self.o.lazy_band, "ceiling": self.ceiling}


def renoise_due(o: SearchOptions, noise: Noise, pr: dict) -> bool:
    """The best's time per call has moved more than `renoise_factor` since the null in force was measured."""
    return bool(o.renoise and noise.ms and pr.get("ms_cand") and
                max(noise.ms / pr["ms_cand"], pr["ms_cand"] / noise.ms) > o.renoise_factor)
