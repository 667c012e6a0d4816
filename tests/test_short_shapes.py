"""Q by the producer's TMA (q_load=tma), two warp-specialised CTAs per SM (mainloop=ws with min_ctas=2) and
agent 8, which measures the warp-specialised mainloop where agent 7's rows/SM cost kept it from trying:
their knob rules, their builds, and the H200 records of them (results/2026-12-01_h200_short_shapes), read or
replayed as its README states them."""

import json
from pathlib import Path

import pytest
from recorded import opened, outcomes, replay, read_record

from agent.levers import BY_NAME
from agent.policy import CURRENT, POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.knobs import KnobError, Knobs
from store import queries as q
from store.db import open_db

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-01_h200_short_shapes"
WS = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
          kv_release="producer", mainloop="ws", kv_stages=2, causal_mask="predicate", br=128, warps=8, bc=128,
          pipeline="on", pingpong="on", rescale_skip="on", rescale_lazy="on")


def test_q_by_tma_and_two_ctas_are_the_warp_specialised_mainloops_and_say_so():
    k = Knobs.parse({**WS, "q_load": "tma", "persistent": "on"})
    assert k.label().endswith("/mainloop=ws/q_load=tma")
    # Q's full and empty mbarriers, 16 B, beside the ring's; the persistent grid's slot
    assert k.smem_bytes(128) == Knobs.parse({**WS, "persistent": "on"}).smem_bytes(128) + 16
    assert Knobs.parse(WS).key() == Knobs.parse({**WS, "q_load": "cp_async"}).key()  # the default: keys unchanged
    with pytest.raises(KnobError, match="q_load'=tma .* needs mainloop=ws"):
        Knobs.parse({**WS, "mainloop": "general", "pipeline": "off", "q_load": "tma"})
    two = Knobs.parse({**WS, "bc": 64, "min_ctas": 2, "pipeline": "off", "pingpong": "off"})
    assert two.threads() == 384 and two.smem_bytes(64) < 227 * 1024 // 2
    for bad in ({"bc": 128}, {"min_ctas": 3}, {"warps": 12, "br": 192, "pingpong": "off"}):
        with pytest.raises(KnobError, match="two CTAs per SM only on two consumer warpgroups with bc=64"):
            Knobs.parse({**WS, "bc": 64, "min_ctas": 2, "pipeline": "off", "pingpong": "off", **bad})
    # the general mainloop's producer kernel still refuses a second CTA (it spilled 1020 B at t128x64w8)
    with pytest.raises(KnobError, match="t128x64w8 spills at 2"):
        Knobs.parse({**WS, "mainloop": "general", "pipeline": "off", "pingpong": "off", "bc": 64, "min_ctas": 2})


def test_the_new_components_passed_the_tier_with_their_bitwise_pairs():
    t = read_record(REC / "tier" / "tier.json")
    assert set(t) == {"D64+128", "D64"}
    for key, n_configs, n_libs in (("D64+128", 120, 9), ("D64", 60, 8)):
        s = t[key]
        assert s["failures"] == [] and len(s["configs"]) == n_configs and len(s["libraries"]) == n_libs
        pairs = [r for r in s["rows"] if "==" in r["kernel"]]
        assert len(pairs) == len(s["pairs"]) * n_configs == 6 * n_configs
        assert all(r["reason"] == "" and r["ratio"] == 0.0 for r in pairs)  # bitwise equal, every configuration
        assert 0 < s["worst_fraction_of_bound"] < 1


def _confirm(folder: str) -> dict:
    out = {}
    for r in read_record(REC / folder / "best.json"):
        s, best = r["confirm"]["summary"], r["best"]
        assert s[f"check:{best}"] == "pass" and s["check:arm"] == "pass"
        assert all(v == "pass" for k, v in r["screen"]["summary"].items() if k.startswith("check:"))
        out[r["shape"]] = (best, s[f"cudnn:{best}"]["margin"], s[f"flash:{best}"]["margin"])
    return out


def test_the_suite_against_cudnn_is_the_readmes_table():
    got = _confirm("best_q_two_ctas")
    assert len(got) == 11
    at_least = [k for k, (_, m, _) in got.items() if m >= 1.0]
    assert len(at_least) == 7
    assert got["B16-H16-N512-D64-float16-noncausal"][:2] == ("ws2c", 0.8953)
    assert got["B8-H16-Hkv4-N2048-D64-float16-noncausal"][:2] == ("ws3_lazy_qp", 1.037)
    assert got["B2-H16-N4096-D64-bfloat16-causal"][:2] == ("ws2c_hf", 1.0692)
    assert round(got["B2-H16-N2048-D128-float16-noncausal"][1], 3) == 0.936
    readme = (REC / "README.md").read_text()
    assert "**7 of 11 shapes at >= 1.0x cuDNN; 4 below**" in readme
    for _, m, _ in got.values():
        assert f"{m:.3f}" in readme
    assert _confirm("best_warmup")["B16-H16-N512-D64-float16-noncausal"][:2] == ("ws2c", 0.8953)


def test_the_margin_table_of_q_by_tma_is_the_readmes():
    m = read_record(REC / "margins_q_two_ctas" / "margins.json")["margins"]
    get = lambda shape, move: round(m[f"{shape}:{move}"]["margin"], 3)
    assert get("B16-H16-N512-D64-float16-noncausal", "ws_op_lazy_p->ws_op_lazy_qp") == 1.122
    assert get("B8-H32-Hkv8-N1024-D128-bfloat16-causal", "ws_op_lazy->ws_op_lazy_p") == 0.801
    assert get("B16-H16-N512-D64-float16-noncausal", "ws3_lazy->ws2c") == 1.170
    assert get("B2-H16-N8192-D64-float16-noncausal", "ws3_lazy->ws2c") == 0.890
    long = read_record(REC / "margins_q_long" / "margins.json")["margins"]
    assert round(long["B8-H32-Hkv8-N1024-D128-bfloat16-causal:ws_op_lazy_hf->ws_op_lazy_qp_hf"]["margin"], 3) == 1.048


def test_agent_8_counts_no_rows_cost_for_the_asynchronous_mainloop_and_7_still_does():
    assert CURRENT is POLICIES[max(POLICIES)] and POLICIES[8].async_mainloop and not POLICIES[7].async_mainloop
    assert BY_NAME["ws_mainloop"].asynchronous and BY_NAME["ws_mainloop_three_warpgroups"].asynchronous
    assert "ws_mainloop_three_warpgroups" not in {lv.name for lv in as_read_by(POLICIES[7])}
    assert {"ws_q_by_tma", "ws_q_by_tma_heaviest_first", "ws_two_ctas"} <= {lv.name for lv in as_read_by(POLICIES[7])}
    log7 = (REC / "agent7_arm_b8_n2048_d64" / "agent.log").read_text()
    assert "ws_mainloop: predicted 0.959" in log7 and "loses rows/SM 256 -> 128 under issue_latency_chain" in log7


def _history(folder: str) -> list[dict]:
    db = open_db(REC / folder / "agent_arm_b8_n2048_d64.db.gz", read_only=True)
    try:
        return q.history(db, 1)
    finally:
        db.close()


def _cudnn(rows) -> float:
    return next(r for r in rows if r["kind"] == "comparator" and r["lever"] == "sdpa_cudnn")["margin"]


def test_agent_7_from_the_arm_stopped_short_and_agent_8_passed_cudnn_twice():
    rows7 = _history("agent7_arm_b8_n2048_d64")
    assert "ws_mainloop" not in {r["lever"] for r in rows7} and round(1 / _cudnn(rows7), 3) == 0.886
    for folder, final in (("agent8_arm_b8_n2048_d64", 1.057), ("agent8_arm_b8_n2048_d64_run2", 1.021)):
        rows = _history(folder)
        kept = [r["lever"] for r in rows if r["outcome"] == "KEPT"]
        assert kept[-2:] == ["ws_mainloop_three_warpgroups", "ws_q_by_tma"]
        assert round(1 / _cudnn(rows), 3) == final  # the comparator row: SDPA cuDNN over ours


@pytest.mark.parametrize("folder", ["agent7_arm_b8_n2048_d64", "agent8_arm_b8_n2048_d64_run2"])
def test_the_agent_runs_from_the_arm_replay(tmp_path, folder):
    rec = opened(REC / folder / "agent_arm_b8_n2048_d64_artifacts" / "run-1" / "recording.jsonl.gz")
    out, rows = replay(rec, tmp_path / "r.db")
    assert outcomes(rows) == outcomes(_history(folder))
    assert _cudnn(rows) == _cudnn(_history(folder))


@pytest.mark.parametrize("extra,head_dim,regs,ctas", [
    (["q_load=tma"], "128", 168, 1),
    (["bc=64", "min_ctas=2", "pipeline=off", "pingpong=off"], "64", 80, 2)], ids=["q_by_tma_d128", "two_ctas_d64"])
def test_q_by_tma_and_two_ctas_build_without_spilling(extra, head_dim, regs, ctas):
    from typer.testing import CliRunner

    from agent.cli import app

    args = ["static", "--arch", "sm_90", "--json", "--head-dim", head_dim]
    for kv in [f"{k}={v}" for k, v in WS.items()] + extra:
        args += ["--knob", kv]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["built"] and row["spill_bytes"] == 0 and row["registers"] == regs and row["ctas_per_sm"] == ctas
