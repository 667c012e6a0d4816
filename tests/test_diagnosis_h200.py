"""The ncu parser and the diagnosis on CSVs recorded from the real H200 run (one per rung)."""

import pytest

from profiler.diagnosis import diagnose, metrics_from_row
from profiler.ncu import parse_raw_csv


def _diag(run2, name):
    (path,) = run2.glob(f"ncu_{name}_*.csv")
    rows = parse_raw_csv(path.read_text())
    assert len(rows) == 1
    return diagnose(metrics_from_row(rows[0], "sm_90"))


def test_seed_tensor_pipe_idle(run2):
    d = _diag(run2, "seed")
    assert d.label == "tensor_idle_scalar_fma"
    assert d.tensor_pipe_pct < 1.0
    assert d.top_stalls[0][0] == "short_scoreboard"


def test_tensor_cores_reveal_8x_bank_conflicts(run2):
    d = _diag(run2, "exp3")  # after the tensor_cores keep
    assert d.label == "smem_bank_conflicts"
    assert d.conflict_factor == pytest.approx(8.0, rel=0.01)
    assert d.ideal_wavefronts_per_shared_ld == pytest.approx(4.0, rel=0.01)


def test_swizzle_removes_conflicts_and_reveals_global_latency(run2):
    d = _diag(run2, "exp4")  # after the swizzle keep
    assert d.label == "global_latency"
    assert d.conflict_factor == pytest.approx(1.0, abs=0.05)
    assert d.top_stalls[0][0] == "long_scoreboard"


@pytest.mark.parametrize("name", ["exp5", "exp6", "exp9"])
def test_late_rungs_are_occupancy_limited_at_two_ctas(run2, name):
    d = _diag(run2, name)
    assert d.label == "occupancy_limited"
    assert d.ctas_per_sm == 2
    assert d.tensor_pipe_pct > 10


def test_tensor_pipe_rises_up_the_ladder(run2):
    tp = [_diag(run2, n).tensor_pipe_pct for n in ("seed", "exp3", "exp4", "exp5", "exp6")]
    assert tp == sorted(tp)
