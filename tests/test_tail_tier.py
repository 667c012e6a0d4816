"""C1 shapes and inputs derived from the candidate. An off-by-one in a tile's edge test
lives at N = -1, 0, +1 mod BC and around two query tiles; with N(0,1) inputs a key that should be
masked but is not (a zero-filled tail key, score 0) weighs little against a long row and stays
under the bound, so C1 also draws inputs in which such a key dominates its row. The GPU kernels
themselves are checked by scripts/device_tail_battery.py; here the tier's property is shown on CPU
with the torch reference math, and on a torch emulation of the tiled kernel."""
import math

import pytest
import torch

from experiments.problem import Shape, c1_patterns, c1_shapes
from experiments.tier import TOL_ABS, TOL_FACTOR, check, inputs_for, max_abs, reference
from kernel_src.knobs import Knobs

BCS, BRS = (16, 32, 64, 128), (64, 128)


def _tile(br, bc):
    return Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", br=br, warps=br // 16 if br == 64 else 8,
                 bc=bc)


@pytest.mark.parametrize("bc", BCS)
@pytest.mark.parametrize("br", BRS)
def test_c1_holds_the_candidates_tile_tails_in_both_mask_modes_and_todays_shapes(br, bc):
    target = Shape(B=2, H=16, N=8192, D=128, dtype="bfloat16")
    shapes = c1_shapes(target, _tile(br, bc))
    assert shapes[:5] == c1_shapes(target)  # today's five first
    for n in (bc - 1, bc, bc + 1, 2 * br - 1, 2 * br + 1):
        assert {s.causal for s in shapes if s.N == n} == {False, True}, n
    assert any(1 < s.N < bc - 1 for s in shapes)  # one short key block
    assert any(s.N % bc == bc - 1 for s in shapes)  # never hit by today's five for every BC
    if br >= 128:  # the tail split's N only for tail_rows=split (the recorded runs' checks keep their shapes)
        assert 2 * br - 65 not in {s.N for s in shapes}
    assert {(s.D, s.dtype) for s in shapes} == {(128, "bfloat16")}
    every, patterns = c1_patterns(shapes + [target])
    assert patterns.count("masked_dominant") == len(shapes)  # every reduced shape, not the target (C2's)


def test_grouped_query_targets_keep_their_group_in_the_tile_shapes():
    shapes = c1_shapes(Shape(B=1, H=8, Hkv=2, N=4096, D=64), _tile(64, 32))
    assert all(s.H // s.kv_heads == 4 for s in shapes)


# ---- the property the GPU tier relies on (torch reference math, CPU) ---------------------------------
def _bound(q, k, v, causal):
    oracle, _ = reference(q, k, v, causal)
    floor, _ = reference(q, k, v, causal, q.dtype)
    return oracle, TOL_FACTOR * max_abs(floor, oracle) + TOL_ABS


def _with_phantom(q, k, v):
    """The reference with one extra key of zeros (K and V) in every row's softmax: a key-tail test
    late by one (col > N instead of col >= N) on a zero-filled tile."""
    B, H, N, D = q.shape
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) / math.sqrt(D)
    s = torch.cat([s, torch.zeros(B, H, N, 1)], dim=-1)
    return torch.matmul(torch.softmax(s, -1)[..., :N], v.float())


def _phantom_ratio(shape, pattern, seeds=range(4)):
    worst = 0.0
    for seed in seeds:
        q, k, v = inputs_for(pattern, shape, "cpu", seed)
        oracle, bound = _bound(q, k, v, False)
        worst = max(worst, max_abs(_with_phantom(q, k, v), oracle) / bound)
    return worst


@pytest.mark.parametrize("dtype,D,N", [("bfloat16", 64, 127), ("bfloat16", 128, 129), ("bfloat16", 64, 255),
                                       ("bfloat16", 128, 257), ("float16", 128, 333), ("float16", 64, 333)])
def test_under_normal_inputs_a_phantom_key_is_under_the_bound_on_long_rows(dtype, D, N):
    """Measured here (4 seeds): bf16 0.41x the bound at N=127 and below since; fp16 0.74x at N=333.
    (Short rows show it anyway: fp16 N=15 is 40x.)"""
    assert _phantom_ratio(Shape(B=1, H=2, N=N, D=D, dtype=dtype), "normal") < 1.0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("D", [64, 128])
def test_under_masked_dominant_inputs_a_phantom_key_is_far_over_the_bound_at_every_tile_tail(dtype, D):
    ns = sorted({n for br in BRS for bc in BCS for n in [1, 81, 197, 333] + [bc - 1, bc + 1, 2 * br - 1, 2 * br + 1]})
    ratios = {n: _phantom_ratio(Shape(B=1, H=2, N=n, D=D, dtype=dtype), "masked_dominant", seeds=range(2)) for n in ns}
    assert min(ratios.values()) > 10, ratios  # measured: >= 20x for bf16, >= 150x for fp16


# ---- the tier on an emulated tiled kernel: correct passes, each off-by-one is rejected --------------
def emulated(bc: int, defect: str | None = None):
    """The kernel's arithmetic in torch: K/V zero-filled to a whole number of BC-key blocks, scores in
    fp32, keys masked by the edge tests (`tail`: col >= N; `tail_off_by_one`: col > N; `no_tail`:
    none, as DEF_NO_TAIL_MASK; `causal_off_by_one`: col > row + 1, as DEF_CAUSAL_OFF_BY_ONE), P
    rounded to the input dtype before P V in fp32, as the mma path does."""

    def run(q, k, v, o, lse, causal):
        B, H, N, D = q.shape
        if k.shape[1] != H:
            k, v = (x.repeat_interleave(H // k.shape[1], dim=1) for x in (k, v))
        pad = -N % bc
        kp, vp = (torch.cat([x, torch.zeros(B, H, pad, D, dtype=x.dtype)], dim=2) for x in (k, v))
        s = torch.matmul(q.float(), kp.float().transpose(-1, -2)) / math.sqrt(D)
        col, row = torch.arange(N + pad)[None, :], torch.arange(N)[:, None]
        masked = {"tail_off_by_one": col > N, "no_tail": torch.zeros_like(col > N)}.get(defect, col >= N)
        if causal:
            masked = masked | (col > row + (1 if defect == "causal_off_by_one" else 0))
        s = s.masked_fill(masked, float("-inf"))
        m = s.amax(-1, keepdim=True)
        p = torch.exp(s - m)
        l = p.sum(-1, keepdim=True)
        o.copy_((torch.matmul(p.to(q.dtype).float(), vp.float()) / l).to(o.dtype))
        lse.copy_((m + torch.log(l)).squeeze(-1))

    return run


def _c1(run, target, knobs, only=None):
    """C1's normal and masked-dominant checks (the edge tests' patterns; the hostile ones, which aim at the
    softmax's rescale, are tests/test_hostile_inputs.py's), or `only` one pattern."""
    shapes, patterns = c1_patterns(c1_shapes(target, knobs))
    fails = []
    for i, (s, pat) in enumerate(zip(shapes, patterns)):
        if pat != only if only else pat not in ("normal", "masked_dominant"):
            continue
        r = check(lambda q, k, v, o, l, s=s: run(q, k, v, o, l, s.causal), s, "cpu", seed=i, pattern=pat)
        if not r.ok:
            fails.append((s.N, s.causal, pat, r.reason))
    return fails


@pytest.mark.parametrize("bc", BCS)
def test_c1_passes_the_correct_tiled_arithmetic_and_rejects_each_planted_off_by_one(bc):
    target, knobs = Shape(B=2, H=16, N=4096, D=64), _tile(64, bc)
    assert _c1(emulated(bc), target, knobs) == []  # the correct kernel's arithmetic, both patterns
    for defect in ("no_tail", "tail_off_by_one", "causal_off_by_one"):
        fails = _c1(emulated(bc, defect), target, knobs)
        assert fails, (defect, bc)
        if defect != "causal_off_by_one":  # a tail defect is seen at the tails of its own tile, on the new inputs
            assert any(n % bc and not causal and pat == "masked_dominant" for n, causal, pat, _ in fails), fails


def test_a_late_tail_test_hides_in_normal_inputs_and_shows_in_masked_dominant_ones():
    """bf16, BC 128. At N = 2*BR+1 = 257 the phantom key stays under the output's bound on N(0,1)
    inputs and is seen only by the LSE check (it adds ~1/(1.65 N) to the row sum: 0.003 > 1e-3);
    at N = 8*BC+1 = 1025 it passes both, the whole tier. Masked-dominant inputs put it in the output
    at more than 10x the bound at either N."""
    run = emulated(128, "tail_off_by_one")
    for n, lse_sees_it in ((257, True), (1025, False)):
        s = Shape(B=1, H=2, N=n, D=128, dtype="bfloat16")
        normal = check(lambda q, k, v, o, l: run(q, k, v, o, l, False), s, "cpu", seed=3)
        adversarial = check(lambda q, k, v, o, l: run(q, k, v, o, l, False), s, "cpu", seed=3, pattern="masked_dominant")
        assert normal.max_abs <= normal.bound and (not normal.ok) == lse_sees_it, (n, normal)
        assert not adversarial.ok and adversarial.max_abs > 10 * adversarial.bound, (n, adversarial)


def test_the_defect_battery_runs_each_edge_defect_at_each_bc_on_that_tiles_c1(monkeypatch):
    """What scripts/device_tail_battery.py asks of the GPU, planned without one: each defect and a
    control at BC 16/32/64/128, each evaluated with the candidate's knobs (so C1 holds that tile's tails)."""
    from types import SimpleNamespace

    from experiments import battery
    from experiments.build import BuildResult
    from experiments.lab import Evaluation
    from experiments.outcome import Outcome
    from kernel_src.arch import TABLE

    built = lambda specs, *a, **k: {s.key(): BuildResult(key=s.key(), ok=True, library=f"/x/{s.key()}.so", log="",
                                                         seconds=0.0, cached=False) for s in specs}
    monkeypatch.setattr(battery, "build", built)
    seen = []

    def evaluate_libraries(base, cand, *, t_keep, t_noise, knobs):
        seen.append((knobs.bc, base.key == cand.key))
        wrong = {"ok": False, "checks": [{"ok": False, "reason": "max_abs", "pattern": "masked_dominant",
                                          "shape": {"N": knobs.bc - 1, "causal": False}}]}
        return (Evaluation(outcome=Outcome.NULL, detail="A/A") if base.key == cand.key else
                Evaluation(outcome=Outcome.WRONG, detail="C1", c1=wrong))

    lab = SimpleNamespace(limits=TABLE["sm_90"], shape=Shape(B=2, H=16, N=2048, D=128), cache_dir=__import__("pathlib").Path("/x"),
                          jobs=None, evaluate_libraries=evaluate_libraries)
    rows = battery.defect_battery(lab, t_keep=1.003, t_noise=0.003, bcs=BCS, names=("no_tail_mask", "causal_off_by_one"),
                                  control=True)
    assert [(r["bc"], r["defect"]) for r in rows] == [(bc, n) for bc in BCS for n in ("control", "no_tail_mask", "causal_off_by_one")]
    assert sorted(set(seen)) == [(bc, same) for bc in BCS for same in (False, True)]
    assert all(r["rejected"] == (r["defect"] != "control") for r in rows)
    assert rows[1]["caught_by"] == {"N": 15, "causal": False, "pattern": "masked_dominant", "reason": "max_abs"}


# ---- the rest of the fault battery that a CPU can show ------------------------------------------
def test_a_kernel_that_writes_its_inputs_or_races_is_rejected_even_with_a_right_output():
    s = Shape(B=1, H=2, N=97, D=64)
    good = emulated(64)

    def writes_input(q, k, v, o, lse):
        good(q, k, v, o, lse, False)
        q[0, 0, 0].zero_()  # the output was computed from the intact Q: only the input checksum sees it

    res = check(writes_input, s, "cpu", seed=1)
    assert not res.ok and not res.inputs_intact and "modified its inputs" in res.reason
    calls = {"n": 0}

    def races(q, k, v, o, lse):  # a race: the second run on the same inputs differs in one element
        good(q, k, v, o, lse, False)
        calls["n"] += 1
        if calls["n"] == 2:
            o.view(-1)[7] += 2 ** -10
    res = check(races, s, "cpu", seed=1, repeat=2)
    assert not res.ok and res.deterministic is False and "bitwise" in res.reason


def test_a_kernel_that_caches_its_result_across_calls_is_rejected():
    """"Results cached across calls": a kernel that computes once and then hands back what
    it computed (or leaves the output alone) on later calls. Each check draws fresh inputs (the worker
    draws its seed from os.urandom; the re-check after timing uses the timing's own inputs) and poisons
    the output before every call, so its second check is wrong or not finite."""
    s = Shape(B=1, H=2, N=97, D=64)
    good = emulated(64)

    def caching(skip_write: bool):
        saved = {}

        def run(q, k, v, o, lse):
            if not saved:
                good(q, k, v, o, lse, False)
                saved["o"], saved["lse"] = o.clone(), lse.clone()
            elif not skip_write:
                o.copy_(saved["o"])
                lse.copy_(saved["lse"])
        return run

    for skip_write in (False, True):
        run = caching(skip_write)
        assert check(run, s, "cpu", seed=1).ok  # the first call computes: right
        again = check(run, s, "cpu", seed=2)
        assert not again.ok, skip_write
        assert ("non-finite" in again.reason or "NaN" in again.reason) if skip_write else again.nonfinite == 0
