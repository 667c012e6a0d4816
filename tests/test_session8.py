"""The H200 runs of 2026-11-30's eighth session (results/2026-11-30_h200_session8, README there), read or
replayed without a GPU: issue 9's mma.sync kernel at and past SDPA flash (FlashAttention-2) once its tile copies
are unrolled (copies=unrolled), the tiers with the two new knobs, their margin tables, the runs at D=64 and
causal, and agent v5 and v6 from the naive seed with the wgmma arm excluded."""
import json
import re
from functools import partial

import pytest
from recorded import RESULTS, outcomes, recorded, recordings_fixture
from test_agent_v5 import _replay as _spy_replay
from test_strategies import _replay

from agent.levers import get
from agent.policy import CURRENT, POLICIES
from agent.strategies.base import Move
from agent.strategies.lever_factors import prior_of
from agent.strategies.limiter import LimiterAgent
from kernel_src.covering import covering_set
from kernel_src.knobs import Knobs

RES = RESULTS / "2026-11-30_h200_session8"
recordings = recordings_fixture(RES)
recordings_b = recordings_fixture(RES / "s8b")
recordings_c = recordings_fixture(RES / "s8c")
_recorded, _outcomes = partial(recorded, RES), outcomes
S5 = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
           q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on")  # session 5's 0.902x
S5U = S5.replace(copies="unrolled")
B64 = S5U.replace(bc=64, persistent="on")  # FlashAttention-2's 128 x 64 on 4 warps, on a persistent grid


def _flash(rows) -> list[float]:
    """Every SDPA flash margin (theirs / ours) a run database holds: the run's own comparator row and each later
    `baseline` process's row."""
    return [r["margin"] for r in rows if r["kind"] == "comparator" and (r["lever"] == "sdpa_flash" or (r["lever"] or "").startswith("flash@"))]


def _final(rows) -> Knobs:
    kept = [r for r in rows if r["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"]) if kept else None


def test_the_covering_set_with_unrolled_copies_passed_bitwise_against_loop():
    """scripts/device_ladder.py --copies unrolled: the 60 covering configurations with copies=unrolled and their
    bitwise partners (every bitwise knob off, copies=loop): 120 libraries on 96 shapes, 60 bitwise pairs, 0 failures."""
    s = json.loads((RES / "covering_correctness.json").read_text())
    assert s["failures"] == [] and len(s["libraries"]) == 120 and len(s["pairs"]) == 60 and len(s["configs"]) == 96
    assert {k.key() for k in covering_set("unrolled")} <= set(s["libraries"])
    assert all("copies=unrolled" in a and "copies=unrolled" not in b for a, b in s["pairs"])
    assert round(s["worst_fraction_of_bound"], 3) == 0.413


@pytest.mark.parametrize("name, libs, pairs, worst", [("poly_half", 17, 8, 0.4532), ("poly_quarter", 17, 8, 0.413),
                                                      ("hopper_poly_half", 48, 37, 0.4532)])
def test_the_tiers_with_exp_poly_passed(name, libs, pairs, worst):
    """--move exp_poly=half / quarter on the covering set (the 9 of 60 configurations with exp=ex2) and --hopper
    --move exp_poly=half: every library on 96 shapes within the tier's bound, the other bitwise knobs paired."""
    s = json.loads((RES / "s8b" / f"{name}_correctness.json").read_text())
    assert s["failures"] == [] and len(s["libraries"]) == libs and len(s["pairs"]) == pairs and len(s["configs"]) == 96
    assert round(s["worst_fraction_of_bound"], 4) == worst
    want = "exp_poly=half" if "half" in name else "exp_poly=quarter"
    assert sum(want in label for label in s["libraries"].values()) >= pairs


def test_unrolled_copies_margin_table(recordings, tmp_path):
    """The lever alone against S5 (budget 1, every other lever excluded): KEPT 1.1234 at N8192 fp16 and 1.1188 at
    causal N32768 bf16; the N8192 recording replays to the same outcome. Predicted 1.00-1.15 from the SASS count."""
    for name, margin in (("copies_n8192", 1.1234), ("copies_c32768", 1.1188)):
        rows = _recorded(name)
        assert _outcomes(rows) == [("unrolled_copies", "KEPT", margin)]
        assert _final(rows) == S5U and Knobs.parse(rows[0]["knobs"]) == S5
    _, rows = _replay(recordings / "copies_n8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db", "--seqlen", "8192")
    assert _outcomes(rows) == [("unrolled_copies", "KEPT", 1.1234)]


def test_exp_poly_margin_table(recordings_b, tmp_path):
    """`run --screen` of the two exp_poly levers against S5 unrolled: SLOWER at both problems, more so at half (the
    H200's kernel is issue-bound; the MUFU relief it is for was not measured: no RTX 5090 here)."""
    assert _outcomes(_recorded("s8b/poly_n8192")) == [("exp_poly_quarter", "SLOWER", 0.9551), ("exp_poly_half", "SLOWER", 0.9242)]
    assert _outcomes(_recorded("s8b/poly_c32768")) == [("exp_poly_quarter", "SLOWER", 0.9658), ("exp_poly_half", "SLOWER", 0.9031)]
    _, rows = _replay(recordings_b / "poly_n8192_artifacts/run-1/recording.jsonl", tmp_path / "p.db", "--seqlen", "8192")
    assert _outcomes(rows) == [("exp_poly_quarter", "SLOWER", 0.9551), ("exp_poly_half", "SLOWER", 0.9242)]


def test_mma_sync_at_and_past_sdpa_flash_at_n8192(recordings, tmp_path):
    """Issue 9's first proof, B2 H16 N8192 D128 fp16 non-causal, each margin from its own fresh process:
    S5 unrolled in six (three runs' comparator rows, three `baseline` processes), 1.006-1.012x SDPA flash;
    S5 unrolled on BC 64 with the persistent grid (the BC-64 run's keep) in four, 1.017-1.021x. The 1.05x goal
    is not reached. cuDNN stays 1.94-1.97x ahead (0.51x)."""
    s5u = []
    for name in ("copies_n8192", "stacked_n8192", "s8b/poly_n8192", "s8b/copies_n8192_b1", "s8b/copies_n8192_b2"):
        rows = _recorded(name)
        assert (_final(rows) or Knobs.parse(rows[0]["knobs"])) == S5U or name.startswith("s8b/copies")
        s5u += _flash(rows) if not name.startswith("s8b/copies") else _flash(rows)[1:]  # b1/b2: the baseline row
    b64 = []
    for name in ("stacked64_n8192", "s8b/b64_more", "s8b/stacked64_n8192_b1", "s8b/stacked64_n8192_b2"):
        rows = _recorded(name)
        b64 += _flash(rows)[1:] if name.startswith("s8b/stacked") else _flash(rows)
    assert _final(_recorded("stacked64_n8192")) == B64 and _final(_recorded("s8b/b64_more")) is None
    assert len(s5u) == 6 and len(b64) == 4
    assert all(m < 1 for m in s5u + b64)  # theirs / ours: ours faster in every process
    assert round(1 / max(s5u), 3) == 1.006 and round(1 / min(s5u), 3) == 1.012
    assert round(1 / max(b64), 3) == 1.017 and round(1 / min(b64), 3) == 1.021
    cudnn = [r["margin"] for n in ("stacked_n8192", "s8b/stacked64_n8192_b1", "s8b/stacked64_n8192_b2", "s8b/copies_n8192_b1",
                                   "s8b/copies_n8192_b2") for r in _recorded(n) if (r["lever"] or "").startswith("cudnn@")]
    assert len(cudnn) == 5 and all(1.94 < m < 1.97 for m in cudnn)
    # the BC-64 kernel's run replays (its persistent grid kept at 1.0621)
    _, rows = _replay(recordings / "stacked64_n8192_artifacts/run-1/recording.jsonl", tmp_path / "b.db", "--seqlen", "8192")
    assert ("persistent_grid", "KEPT", 1.0621) in _outcomes(rows) and round(_flash(rows)[0], 4) == 0.9814


def test_causal_and_d64():
    """Issue 9 asks >= 0.95x at causal N8192 and at D=64. Causal N8192 fp16 from S5 unrolled: heaviest_first KEPT
    1.1214, 1.116x SDPA flash (one process). D=64 N8192 from S5 unrolled: nothing kept, 0.968x, 0.972x, 0.973x in
    three processes; the BC-64 kernel at D=64: 1.000x (one process). Causal N32768 bf16 (S5 unrolled): 1.003x, 1.002x."""
    c = _recorded("mma_c8192")
    assert ("heaviest_first", "KEPT", 1.1214) in _outcomes(c) and round(1 / _flash(c)[0], 3) == 1.116
    d64 = _flash(_recorded("mma_d64")) + _flash(_recorded("s8b/mma_d64_b1"))[1:] + _flash(_recorded("s8b/mma_d64_b2"))[1:]
    assert [round(1 / m, 3) for m in d64] == [0.968, 0.972, 0.973] and all(1 / m >= 0.95 for m in d64)
    assert round(1 / _flash(_recorded("s8b/b64_d64"))[0], 3) == 1.0
    c32 = _flash(_recorded("copies_c32768")) + _flash(_recorded("s8b/poly_c32768"))
    assert [round(1 / m, 3) for m in c32] == [1.003, 1.002]


def test_agent_v5_from_the_naive_seed_stopped_at_0_969x_and_why(recordings, tmp_path, monkeypatch):
    """Agent v5 from the naive seed (budget 20, wgmma arm excluded): eleven keeps, unrolled_copies among them (#5,
    1.1781), plateau with 3 unspent, 0.969x SDPA flash on the swizzled layout. The reason: #10 measured
    qk_pipeline+padding at 0.8958 (padding there a restorer, relieving qk_pipeline's registers); v5 split that loss
    by the two priors' spreads and put most of it on padding, whose band from the row-major seed is wide
    (1.05-1.70): padding alone read 0.865-1.056, below t_keep, and was never measured. v6 (Policy.restorer_margins) reads
    padding's own band there and ranks it first; the replay of the recording gives both agents the same state."""
    rows = _recorded("naive_mma_n8192")
    assert ("unrolled_copies", "KEPT", 1.1781) in _outcomes(rows) and round(1 / _flash(rows)[0], 3) == 0.969
    assert _final(rows).layout.value == "swizzle" and not any(r["lever"] == "padding" for r in rows)
    states, _, miss = _spy_replay(recordings / "naive_mma_n8192_artifacts/run-1/recording.jsonl", tmp_path, 5, monkeypatch)
    assert miss is None
    st = next(s for s in states if s.trials and s.trials[-1].move.name == "qk_pipeline+padding")
    assert round(st.trials[-1].margin, 4) == 0.8958
    pad = Move(levers=("padding",), knobs=get("padding").apply(st.best))
    v5 = LimiterAgent(5).assess(st, pad)[1]
    assert 0.86 < v5[0] < 0.87 and 1.05 < v5[1] < 1.06 and (v5[0] * v5[1]) ** 0.5 < st.t_keep
    # the split: two levers measured only together share the deficit in proportion to their prior variances
    # (lever_factors), padding's from its own band, qk_pipeline's from the compound's (its first lever's)
    var_pad, var_qk = prior_of(get("padding").predicted).sd ** 2, prior_of(get("qk_pipeline").predicted).sd ** 2
    assert round(var_pad / (var_pad + var_qk), 2) == 0.83 and get("qk_pipeline").predicted == (0.9, 1.12)
    assert LimiterAgent(6).assess(st, pad)[1] == get("padding").predicted == (1.05, 1.7)
    assert "padding" not in [p.move.name for p in LimiterAgent(5).ask(st, n=6)]
    assert LimiterAgent(6).ask(st, n=1)[0].move.name == "padding" and CURRENT is POLICIES[6]
    assert [v for v, p in POLICIES.items() if p.restorer_margins] == [6]


def test_agent_v6_from_the_naive_seed_reaches_s5_unrolled(recordings_c, tmp_path, monkeypatch):
    """Agent v6 (s8c): the same first ten experiments as v5, then padding alone (#11, KEPT 1.0705), then
    smem_epilogue; it stopped on the plateau after #17 with S5 unrolled as its best, the kernel measured at
    1.006-1.012x SDPA flash in six processes above. The session's device time ran out during its final
    comparison (exit 124), so this run has no comparator row of its own. Its random-search neighbour on the
    other GPU did not run (its A/A null failed as the next device call copied the working tree under it)."""
    rows = _recorded("s8c/v6_naive_n8192")
    got = _outcomes(r for r in rows if r["seq"] is not None)
    assert len(got) == 17 and got[10] == ("padding", "KEPT", 1.0705) and got[9][0] == "qk_pipeline+padding"
    assert _final(rows) == S5U and not _flash(rows) and "exit 124" in (RES / "s8c/v6_naive_n8192.txt").read_text()
    v5 = _outcomes(r for r in _recorded("naive_mma_n8192") if r["seq"] is not None)
    assert [o[:2] for o in got[:10]] == [o[:2] for o in v5[:10]]  # the same levers and outcomes up to #10
    _, events, miss = _spy_replay(recordings_c / "v6_naive_n8192_artifacts/run-1/recording.jsonl", tmp_path, 6, monkeypatch)
    decided = [(k["lever"], "KEPT" if e == "kept" else k["outcome"].value, round(k["margin"], 4))
               for e, k in events if e in ("kept", "rejected")]
    assert decided == got  # the replay repeats all 17; the recording ends in the final comparison
    assert "A/A null failed" in (RES / "s8c/random_naive_n8192.txt").read_text()


def test_the_recorded_build_checks_of_the_new_knobs():
    """results/2026-11-30_cpu_build_checks: copies=loop compiles to the PTX of the source before the knob (4
    configurations, 3 archs); the key loop of session 5's best kernel on sm_90, loop -> unrolled."""
    same = (RESULTS / "2026-11-30_cpu_build_checks/copies_off_identical.txt").read_text()
    assert same.count(" 0 lines differ") == 4
    text = (RESULTS / "2026-11-30_cpu_build_checks/unrolled_copies.txt").read_text()
    loop = re.search(r"s5_best_t128x32w4\s+sm_90\s+loop\s+(\d+)\s+(\d+)\s+(\d+)", text).groups()
    unrolled = re.search(r"s5_best_t128x32w4\s+sm_90\s+unrolled\s+(\d+)\s+(\d+)\s+(\d+)", text).groups()
    assert loop == ("242", "0", "1033") and unrolled == ("234", "0", "844")
    assert re.search(r"s5_best_t128x64w4\s+sm_90\s+loop\s+255\s+116", text) and re.search(r"s5_best_t128x64w4\s+sm_90\s+unrolled\s+255\s+16", text)
