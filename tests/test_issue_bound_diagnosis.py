"""Agent version 4: the `issue_bound` diagnosis and the levers that relieve it on the Hopper arm.

Agent version 3 on the H200 (wgmma t64x64w4, two cp.async K/V stages, B2 H16 N8192 D128 fp16)
kept kv_overlap, read the profile after it as `unknown` (not_selected 27% + dispatch_stall 17% of
stall weight, tensor pipe 34.4%) and stopped on the plateau at 0.906x SDPA flash with 8 of 14
experiments unspent: `tma` no longer applied after kv_overlap and `tall_q_tile` was predicted 0.995.
The fixtures are that run's two ncu profiles and its recording (results/2026-11-30_h200_tma_pipeline_tier/wgmma_n8192).
"""
import json
from pathlib import Path

import pytest

from agent import levers
from agent.bench import Replay, ReplayMiss
from agent.loop import SearchOptions, run_search
from agent.policy import CURRENT, POLICIES
from agent.strategies import make
from agent.strategies.base import State
from agent.strategies.limiter import LimiterAgent
from experiments.problem import Shape
from kernel_src.arch import TABLE
from kernel_src.knobs import Knobs
from profiler.diagnosis import diagnose, metrics_from_row
from profiler.ncu import parse_raw_csv
from profiler.static import StaticFigures
from store.db import open_db

FIX = Path(__file__).resolve().parent / "fixtures" / "wgmma_kv_overlap_n8192"
SEED = Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem", br=64, warps=4, bc=64,
             kv_stages=2)
# the best after the kv_overlap keep
OVERLAP = SEED.replace(kv_overlap="on", kv_stages=1)
T_NOISE, T_KEEP = 0.001817, 1.00182  # the run's A/A null


def _diag(name: str, version: int):
    (path,) = FIX.glob(f"ncu_{name}_*.csv")
    m = metrics_from_row(parse_raw_csv(path.read_text())[0], "sm_90")
    return diagnose(m, issue_bound=POLICIES[version].diagnose_issue_bound)


def _figures() -> dict[str, StaticFigures]:
    """The compiler's figures the recorded run read, for every candidate it built (the TMA ring from the
    kv_overlap kernel is the seed's `tma` candidate: the same knobs)."""
    out = {}
    for line in (FIX / "recording.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["key"].startswith("static:"):
            out.update({k: StaticFigures(**v) for k, v in rec["result"].items() if v})
    return out


def _state(version: int) -> State:
    figs = _figures()
    return State(best=OVERLAP, seed=SEED, diagnosis=_diag("exp4", version), t_noise=T_NOISE, t_keep=T_KEEP,
                 budget_left=12, levers=levers.CATALOG, limits=TABLE["sm_90"], static=figs,
                 best_static=figs[OVERLAP.key()])


def test_the_profile_after_the_kv_overlap_keep_is_issue_bound_from_v4_and_unknown_as_v3_read_it():
    d4, d3 = _diag("exp4", 4), _diag("exp4", 3)
    assert d4.label == "issue_bound" and d3.label == "unknown"
    assert [s for s, _ in d4.top_stalls] == ["not_selected", "wait", "dispatch_stall"]
    assert "wgmma instead of mma.sync" in d4.summary and "TMA" in d4.summary and "issue active 64%" in d4.summary
    # the rule is the last before the fallback: the seed's profile keeps the label v3 recorded
    assert _diag("seed", 4).label == _diag("seed", 3).label == "occupancy_limited"


def test_version_4_remains_beside_the_earlier_ones():
    """The default since moved to 5 (tests/test_margins_carry_over.py); v4's own runs replay with v4."""
    assert list(POLICIES)[:4] == [1, 2, 3, 4] and POLICIES[4].diagnose_issue_bound and POLICIES[4].reliefs
    assert not (POLICIES[3].diagnose_issue_bound or POLICIES[3].reliefs) and CURRENT.version > 4
    assert make("agent", agent_version=4).version == LimiterAgent(4).version == 4
    with pytest.raises(ValueError, match=f"agent version {max(POLICIES) + 1}"):
        LimiterAgent(max(POLICIES) + 1)


def test_the_reliefs_and_the_tma_ring_are_invisible_before_v4():
    v3, v4 = ({lv.name: lv for lv in levers.catalog_for(POLICIES[v])} for v in (3, 4))
    for lv in v3.values():
        for compute in ("mma", "wgmma"):
            assert lv.targets_on(compute) == lv.targets  # v3 replays read the targets they ran with
            assert lv.relief("issue_bound", compute) is None
    for lv in levers.CATALOG:
        for r in lv.reliefs:
            assert r.evidence and r.label not in lv.targets and lv.reliefs == v4[lv.name].reliefs
    ring = levers.get("tma_ring")
    assert "tma_ring" not in v3 and v4["tma_ring"].applies_to(OVERLAP)
    assert ring.apply(OVERLAP) == SEED.replace(staging="tma")  # the TMA two-stage kernel
    assert not v4["tma"].applies_to(OVERLAP)  # tma itself still needs kv_overlap off
    assert "issue_bound" in v4["wgmma"].targets_on("mma")
    assert "issue_bound" not in v4["tall_q_tile"].targets_on("mma")  # the arm's relief only


def test_v4_ranks_the_tma_ring_and_the_tall_tile_first_and_predicts_them_to_keep():
    ranked = LimiterAgent(4).ranked(_state(4))
    top = [p.move.name for p in ranked[:2]]
    assert top == ["tma_ring", "tall_q_tile"], [p.rationale for p in ranked[:4]]
    for p in ranked[:2]:
        assert p.promising(T_KEEP) and p.point() >= T_KEEP, p.rationale
        assert "relieves issue_bound on wgmma" in p.rationale and "cost 0" in p.rationale
    # the tall tile gives up CTAs (3 -> 1): under issue_bound that is not a cost
    tall = next(p for p in ranked if p.move.name == "tall_q_tile")
    assert "CTAs/SM 3->1" in tall.rationale


def test_v3_ranks_as_the_recorded_run_did():
    """The recorded run's ranking after the keep, and the two it left as 'not worth a measurement'."""
    ranked = LimiterAgent(3).ranked(_state(3))
    assert [p.move.name for p in ranked[:4]] == ["softmax_ffma", "lazy_rescale", "persistent_grid", "rescale_skip"]
    assert "tma_ring" not in {p.move.name for p in ranked}
    tall = next(p for p in ranked if p.move.name == "tall_q_tile")
    assert not tall.promising(T_KEEP) and round(tall.point(), 3) == 0.995


def test_the_v3_recording_replays_as_recorded(tmp_path):
    from typer.testing import CliRunner

    from agent.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["run", "--replay", str(FIX / "recording.jsonl"), "--db", str(tmp_path / "r.db")])
    assert res.exit_code == 0, res.output
    assert "diagnosis now unknown - no rule matched at tensor pipe 34.4%" in res.output
    assert "tall_q_tile: predicted 0.995" in res.output
    assert "8 of 14 experiments unspent" in res.output and "0.906x" in res.output
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(tmp_path / "r.db")]).output)
    got = [(r["lever"], r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] == "lever"]
    assert got == [("narrow_kv_tile", "SLOWER", 0.9149), ("kv_overlap", "KEPT", 1.11), ("softmax_ffma", "NULL", 1.008),
                   ("lazy_rescale", "NULL", 1.0182), ("persistent_grid", "SLOWER", 0.9955),
                   ("rescale_skip", "NULL", 1.0021)]


def test_v4_on_the_recording_diverges_after_the_keep_at_the_tall_tile(tmp_path):
    """The recording's own catalog (no tma_ring in it) under agent 4: the same first two moves, then
    issue_bound and the tall tile first, a question the v3 run never asked."""
    rec = Replay(FIX / "recording.jsonl")
    rec.explicit = {"agent_version"}
    events = []
    with pytest.raises(ReplayMiss, match="t128x64w8/q_in=smem/kv_overlap=on over"):
        run_search(rec, open_db(tmp_path / "v4.db"), shape=Shape(B=2, H=16, N=8192, D=128), seed=SEED,
                   artifacts=tmp_path / "art", options=SearchOptions(budget=14, agent_version=4),
                   say=lambda e: events.append((e.kind, dict(e))))
    moves = [(k["lever"], e, k.get("diagnosis") and k["diagnosis"].label) for e, k in events if e in ("kept", "rejected")]
    assert moves == [("narrow_kv_tile", "rejected", None), ("kv_overlap", "kept", "issue_bound")]
    last = [k["proposals"] for e, k in events if e == "ranking"][-1]
    assert last[0].move.name == "tall_q_tile" and last[0].point() >= T_KEEP


def test_from_v4_cp_async_only_leaves_scalar_staging():
    """The causal TMA run (agent version 3, results/2026-11-30_h200_tma_pipeline_tier/tma_c8192) spent 3 of its 8 experiments on compounds that took its TMA
    kernel back to cp.async with the scalar->cp.async band 1.10-1.60; they measured 0.55-0.58. From v4
    the lever applies only to scalar staging; v3 (its replay) reads the catalog it ran with."""
    from kernel_src.knobs import Knobs

    lever = levers.get("cp_async")
    v1, v3, v4 = (next(lv for lv in levers.catalog_for(POLICIES[v]) if lv.name == "cp_async") for v in (1, 3, 4))
    tma = Knobs().replace(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", kv_stages=2)
    assert v3.applies_to(tma, False) and not v4.applies_to(tma, False)
    assert not lever.applies_to(tma, False)  # the current agent
    assert v4.applies_to(Knobs(), False) and v1.applies_to(Knobs(), False)


def test_from_v4_hopper_tile_moves_a_tuned_mma_kernel_to_the_arm_s_measured_form():
    """The naive-seed run of results/2026-11-30_h200_wgmma_first_battery kept wgmma's first synchronous tile out (NULL 0.9955, re-screen SLOWER
    0.8981 against mma t128x32w4); results/2026-11-30_h200_tma_pipeline_tier measured the TMA two-warpgroup tile at 508-528 TFLOP/s. From
    v4 one lever takes any mma.sync kernel with cp.async there, resetting what the arm cannot take."""
    from agent.levers import candidate, get
    from kernel_src.knobs import Knobs

    final_s5 = Knobs.parse_assignments(
        "compute=mma layout=pad staging=cp_async exp=ex2 br=128 bc=32 warps=4 kv_stages=2 q_in=smem softmax=fused "
        "epilogue=smem rescale_skip=on rescale_lazy=on".split())
    lever = get("hopper_tile")
    assert lever.applies_to(final_s5, False) and "hopper_tile" not in {lv.name for lv in levers.catalog_for(POLICIES[3])}
    cand, why = candidate(lever, final_s5)
    assert why is None and cand.label() == ("wgmma/sw128/tma/ex2/t128x64w8/kv_stages=2/q_in=smem/rescale_skip=on/"
                                            "softmax=fused/rescale_lazy=on")
    assert cand.needs_arch() == "sm_90" and lever.relief("issue_bound", "mma") is not None


def test_issue_bound_relabels_only_the_one_recorded_profile():
    """results/2026-11-30_cpu_build_checks/check_issue_bound_relabel.py over every ncu profile under results/ (its output recorded in
    results/2026-11-30_cpu_build_checks/issue_bound_relabel.txt): with the rule on, two profiles change label,
    unknown -> issue_bound: the one after the wgmma run's kv_overlap keep (recorded by agent version 3, which read
    `unknown` and stopped) and the one after the naive run's hopper_tile keep, which agent version 4 itself diagnosed
    issue_bound on the H200 (naive_n8192.txt: "not_selected+dispatch_stall are 48%"); no profile recorded
    before v4 other than the first. Run again here, it says the same."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, str(root / "results" / "2026-11-30_cpu_build_checks" / "check_issue_bound_relabel.py")],
                         capture_output=True, text=True, check=True).stdout
    # the profiles of the runs before agent 4 (those under results/2026-11-30_*; a later run's are diagnosed with the
    # rule on by the agent that recorded them)
    lines = [x for x in out.splitlines() if not x.startswith("#") and x.startswith("2026-11-30_")]
    assert lines and all("unknown -> issue_bound" in x for x in lines)
    assert {x.split(" (tiles")[0].rsplit("/", 1)[-1] for x in lines} == {"ncu_exp4_715049b55f52.csv", "ncu_exp11_0e2f9e2ae8e6.csv"}
    assert all("tma_pipeline_tier/artifacts.tar.xz:wgmma_n8192" in x or "kv_release_ws/artifacts.tar.xz:naive_n8192" in x
               for x in lines)
    assert "diagnosis now issue_bound - not_selected+dispatch_stall are 48%" in (
        root / "results" / "2026-11-30_h200_kv_release_ws" / "naive_n8192.txt").read_text()
    recorded = (root / "results" / "2026-11-30_cpu_build_checks" / "issue_bound_relabel.txt").read_text()
    # the record names the two folders, and their archives (artifacts.tgz, since recompressed to xz), as they were
    # called when it was written
    for was, now in (("h200_session6/", "h200_tma_pipeline_tier/"), ("h200_session7/", "h200_kv_release_ws/"),
                     ("/artifacts.tgz:", "/artifacts.tar.xz:")):
        recorded = recorded.replace(was, now)
    assert sorted(x for x in recorded.splitlines() if not x.startswith("#")) == sorted(lines)
