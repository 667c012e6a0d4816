"""experiments.timing.paired's two ways of pairing, on a simulated GPU (no device here): a GPU whose first call after
an idle gap runs slower reads an order effect between the AB and BA halves when the device is synchronised around each
pair, and none when the next pair is queued before the host waits (pipelined=True); the pipelined loop keeps whole
AB/BA pairs when it settles early and drops the pair queued meanwhile."""
from __future__ import annotations

import pytest
import torch

from experiments import timing


class FakeGPU:
    """One stream: work runs in the order queued; `gap_penalty` (ms) on the first call after a synchronize."""

    def __init__(self, gap_penalty: float = 0.0):
        self.t, self.idle, self.gap_penalty, self.calls = 0.0, True, gap_penalty, 0

    def kernel(self, ms: float):
        def fn():
            self.t += ms + (self.gap_penalty if self.idle else 0.0)
            self.idle = False
            self.calls += 1
        return fn

    def synchronize(self):
        self.idle = True

    def install(self, monkeypatch):
        gpu = self

        class Event:
            def __init__(self, enable_timing=True):
                self.at = None

            def record(self):
                self.at = gpu.t

            def elapsed_time(self, end):
                return end.at - self.at

            def synchronize(self):
                pass

        monkeypatch.setattr(torch.cuda, "Event", Event)
        monkeypatch.setattr(torch.cuda, "synchronize", self.synchronize)
        monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: None)
        return self


def test_pipelined_pairs_remove_the_idle_gap_order_effect(monkeypatch):
    gpu = FakeGPU(gap_penalty=0.02).install(monkeypatch)
    a = gpu.kernel(0.12)
    sync = timing.paired(a, a, budget_s=0.0, lead_ms=0, pipelined=False)
    pipe = timing.paired(a, a, budget_s=0.0, lead_ms=0)  # the default
    assert sync.alternations == pipe.alternations == timing.MIN_ALTERNATIONS
    assert sync.margin_ab > 1.0005 and sync.margin_ba < 0.9995  # the first block of each pair pays the gap
    assert pipe.margin_ab == pytest.approx(1.0) and pipe.margin_ba == pytest.approx(1.0)


def test_pipelined_pairs_measure_a_real_difference(monkeypatch):
    gpu = FakeGPU().install(monkeypatch)
    res = timing.paired(gpu.kernel(0.120), gpu.kernel(0.100), budget_s=0.0, lead_ms=0, pipelined=True)
    assert res.margin == pytest.approx(1.2) and res.margin_ab == pytest.approx(1.2) and res.margin_ba == pytest.approx(1.2)
    assert res.ms_base == pytest.approx(0.120) and res.ms_cand == pytest.approx(0.100)


def test_pipelined_settle_keeps_whole_pairs_and_drops_the_queued_one(monkeypatch):
    gpu = FakeGPU().install(monkeypatch)
    monkeypatch.setattr(timing, "SETTLE_MIN_S", 0.0)  # the first check decides (the floor: the test below)
    base, cand = gpu.kernel(0.2), gpu.kernel(0.1)
    res = timing.paired(base, cand, budget_s=60.0, lead_ms=0, pipelined=True, settle=(0.001, 1.001), settle_rule="any")
    assert res.settled and res.settled.startswith("settled KEEP-side")
    assert res.alternations == timing.MIN_ALTERNATIONS and res.alternations % 2 == 0
    blocks = res.calls_per_block_base + res.calls_per_block
    warm = 4 + 3 + 3 + 3 + 3  # the warm-up calls and the two wall-clock readings before and after
    assert gpu.calls == warm + (res.alternations + 1) * blocks  # one more pair ran, queued before the settle, not counted


def test_a_settle_waits_for_the_pairs_to_have_run_settle_min_s(monkeypatch):
    """A 2x margin is settled from the first pairs on, but the rule reads no pair before SETTLE_MIN_S of measured
    blocks: a GPU's first ~80 ms run at boost clocks the rest of the budget does not (results/2026-12-03_h200_round_order)."""
    gpu = FakeGPU().install(monkeypatch)
    res = timing.paired(gpu.kernel(0.2), gpu.kernel(0.1), budget_s=60.0, lead_ms=0, pipelined=True,
                        settle=(0.001, 1.001), settle_rule="any")
    assert res.settled and res.settled.startswith("settled KEEP-side")
    per_alternation = (res.calls_per_block_base * 0.2 + res.calls_per_block * 0.1) / 1e3
    n = res.alternations
    assert n * per_alternation >= timing.SETTLE_MIN_S > (n - timing.SETTLE_EVERY) * per_alternation
    assert not timing.may_settle(40, [1.0] * 40, [1.0] * 40)  # 80 ms of blocks: too soon at any count
    assert timing.may_settle(40, [10.0] * 40, [5.0] * 40) and not timing.may_settle(41, [10.0] * 41, [5.0] * 41)
