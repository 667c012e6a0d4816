"""The warp-specialised Hopper mainloop (mainloop=ws, kernel_src/mainloop_sm90_ws.cuh): its knob rules, its
builds (no spill, the register split it asks for), and the H200 records of it against cuDNN
(results/2026-12-01_h200_ws_mainloop), read as the README there states them."""

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recorded import read_record
from agent.cli import app
from kernel_src.knobs import KnobError, Knobs

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-01_h200_ws_mainloop"
WS = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
          kv_release="producer", mainloop="ws", kv_stages=2, causal_mask="predicate", br=128, warps=8, bc=128)


def test_ws_knob_rules_name_the_knob():
    k = Knobs.parse({**WS, "pipeline": "on", "pingpong": "on", "bc": 176})
    assert k.label().endswith("/mainloop=ws") and k.threads() == 384
    # Q + two stages of K and V at 176 x 128 fp16 + four mbarriers a stage: the kernel's smem_bytes formula
    assert k.smem_bytes(128) == 128 * 128 * 2 + 2 * 2 * 176 * 128 * 2 + 32 * 2 == 213056
    assert Knobs.parse({**WS, "warps": 12, "br": 192}).threads() == 512
    for bad, word in [({"softmax": "separate"}, "softmax=fused"), ({"kv_release": "barrier"}, "kv_release=producer"),
                      ({"bc": 32}, "bc 64, 128, 176 or 192"), ({"kv_stages": 1}, "kv_stages")]:
        with pytest.raises(KnobError, match=word):
            Knobs.parse({**WS, **bad})
    with pytest.raises(KnobError, match="12, three consumer warpgroups, only with mainloop=ws"):
        Knobs.parse({**WS, "mainloop": "general", "warps": 12, "br": 192})
    with pytest.raises(KnobError, match="176 or 192 only with mainloop=ws"):
        Knobs.parse({**WS, "mainloop": "general", "kv_release": "barrier", "bc": 176})
    with pytest.raises(KnobError, match="warps=8"):  # turns take two consumer warpgroups, not three
        Knobs.parse({**WS, "warps": 12, "br": 192, "pingpong": "on"})
    with pytest.raises(KnobError, match="tail_rows'=skip .* pingpong=off"):  # a turn would wait for the idle warpgroup
        Knobs.parse({**WS, "pipeline": "on", "pingpong": "on", "tail_rows": "skip"})
    assert Knobs.parse({**WS, "warps": 12, "br": 192, "pipeline": "on", "tail_rows": "skip"}).tail_rows.value == "skip"
    with pytest.raises(KnobError, match="q_buffers'=2 .* persistent=on, q_load=tma"):  # the next item's Q needs both
        Knobs.parse({**WS, "pipeline": "on", "q_buffers": 2})
    with pytest.raises(KnobError, match="q_buffers'=2 .*not O through the Q tile"):
        Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "q_load": "tma", "o_store": "tma_in_q", "q_buffers": 2})
    with pytest.raises(KnobError, match="knob 'q_buffers' must be one of 1, 2, not 3"):
        Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "q_load": "tma", "q_buffers": 3})
    with pytest.raises(KnobError, match="knob 'ws_producer_regs' must be one of 0, 40, not 41"):
        Knobs.parse({**WS, "ws_producer_regs": 41})
    with pytest.raises(KnobError, match="round_order'=turned .*persistent=on"):  # the static persistent schedule's
        Knobs.parse({**WS, "pipeline": "on", "round_order": "turned"})
    with pytest.raises(KnobError, match="round_order'=snake .*item_stream=off"):  # the stream walks its own rounds
        Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "q_load": "tma", "item_stream": "on", "round_order": "snake"})
    two = Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "q_load": "tma", "q_buffers": 2})
    assert two.smem_bytes(128) - two.replace(q_buffers=1).smem_bytes(128) == 128 * 128 * 2 + 16  # a Q tile, a barrier pair


@pytest.mark.parametrize("extra", [["pipeline=on", "pingpong=on", "bc=176", "rescale_skip=on", "rescale_lazy=on"],
                                   ["pipeline=on", "warps=12", "br=192"],
                                   # the suite's best at N8192 D128: P in two buffers (p_pack=with_exp) still fits 240
                                   ["pipeline=on", "pingpong=on", "rescale_skip=on", "rescale_lazy=on", "pv_wide=on",
                                    "o_store=tma_in_q", "p_pack=with_exp"],
                                   # a warpgroup whose rows all lie past N sits out its item (tail_rows=skip)
                                   ["pipeline=on", "warps=12", "br=192", "tail_rows=skip"]],
                         ids=["d128_bc176", "d64_three_wg", "d128_p_pack", "d64_three_wg_tail_skip"])
def test_ws_builds_without_spilling_and_splits_registers_as_asked(extra, cli_build_cache):
    head_dim = "64" if "warps=12" in extra else "128"
    knobs = [f"{k}={v}" for k, v in WS.items()] + extra
    args = ["static", "--arch", "sm_90", "--json", "--head-dim", head_dim]
    for kv in knobs:
        args += ["--knob", kv]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["built"] and row["spill_bytes"] == 0 and row["refusal"] is None
    # the count at entry (__launch_bounds__ x, 1, __maxnreg__): 65536 / threads, a multiple of 8
    assert row["registers"] == (168 if head_dim == "128" else 128)
    if row["census"]:  # cuobjdump present: QK^T and PV on warpgroup MMA, the split that fits the CTA's pool
        assert row["census"].get("HGMMA", 0) > 0 and not row["census"].get("HMMA")


def _static_d64_persistent(*extra: str) -> dict:
    """`static`'s JSON row of the persistent three-warpgroup kernel with Q by TMA at D=64, sm_90a, with `extra` knobs."""
    args = ["static", "--arch", "sm_90", "--json", "--head-dim", "64"]
    for kv in [f"{k}={v}" for k, v in WS.items()] + ["pipeline=on", "warps=12", "br=192", "persistent=on",
                                                     "q_load=tma", *extra]:
        args += ["--knob", kv]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["built"] and row["refusal"] is None
    return row


def test_two_q_tiles_build_as_one_does(cli_build_cache):
    """q_buffers=2 on the persistent three-warpgroup kernel with Q by TMA: built for sm_90a with the registers and the
    spills of its one-tile build (that build already spills 56 B at this configuration, the lazy rescale off)."""
    rows = [_static_d64_persistent(f"q_buffers={q}") for q in (1, 2)]
    assert rows[1]["registers"] == rows[0]["registers"] == 128 and rows[1]["spill_bytes"] == rows[0]["spill_bytes"]


def test_rounds_turned_or_snaking_build_as_rounds_in_place_do(cli_build_cache):
    """round_order turned and snake on the persistent three-warpgroup kernel with Q by TMA (launch order and heaviest
    first): built for sm_90a with the registers and the spills of the rounds in place (only the round's first item
    lives across an item, as i does in place)."""
    for order in ("launch", "heaviest_first"):
        rows = [_static_d64_persistent(f"cta_order={order}", f"round_order={r}") for r in ("in_place", "turned", "snake")]
        assert all(r["registers"] == 128 and r["spill_bytes"] == rows[0]["spill_bytes"] for r in rows), rows


def test_the_dynamic_schedule_builds_as_the_static_one_does(cli_build_cache):
    """schedule=dynamic on the agent's N512 D64 final (the persistent three-warpgroup kernel with Q and O by TMA, heaviest
    first, the idle tail, three K/V stages, the lazy rescale): 128 registers and no spill either way, 16 B more shared
    memory (the slot's two mbarriers); in the SASS the producer's claim and its count of CTAs done, two global atomics
    the static schedule has none of (results/2026-12-04_cpu_dynamic_schedule)."""
    final = ("cta_order=heaviest_first", "tail_rows=skip", "kv_stages=3", "rescale_skip=on", "rescale_lazy=on",
             "o_store=tma")
    rows = [_static_d64_persistent(*final, f"schedule={v}") for v in ("static", "dynamic")]
    assert [r["registers"] for r in rows] == [128, 128] and [r["spill_bytes"] for r in rows] == [0, 0]
    assert rows[1]["smem_per_cta"] - rows[0]["smem_per_cta"] == 16
    with pytest.raises(KnobError, match="schedule'=dynamic .*persistent=on"):
        Knobs.parse({**WS, "pipeline": "on", "schedule": "dynamic"})
    with pytest.raises(KnobError, match="schedule'=dynamic .*round_order=in_place"):  # no rounds to turn
        Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "round_order": "snake", "schedule": "dynamic"})
    with pytest.raises(KnobError, match="schedule'=dynamic .*item_stream=off"):
        Knobs.parse({**WS, "pipeline": "on", "persistent": "on", "q_load": "tma", "item_stream": "on",
                     "schedule": "dynamic"})
    if not rows[1]["census"]:
        pytest.skip("cuobjdump not installed: the SASS is not read")
    assert rows[1]["census"].get("ATOMG", 0) == 2 and rows[0]["census"].get("ATOMG", 0) == 0, rows[1]["census"]


def test_the_kv_l2_hint_is_the_warp_specialised_producers():
    """kv_l2_hint=evict_last: the rule, and the knob moving no byte of shared memory (results/2026-12-04_cpu_kv_l2_hint)."""
    with pytest.raises(KnobError, match="kv_l2_hint'=evict_last .*mainloop=ws"):
        Knobs.parse({**WS, "mainloop": "general", "kv_release": "barrier", "kv_l2_hint": "evict_last"})
    k = Knobs.parse({**WS, "pipeline": "on", "kv_l2_hint": "evict_last"})
    assert k.smem_bytes(128) == k.replace(kv_l2_hint="none").smem_bytes(128)


def _confirm(folder: str) -> dict:
    out = {}
    for r in read_record(REC / folder / "best.json"):
        s, best = r["confirm"]["summary"], r["best"]
        assert s[f"check:{best}"] == "pass" and s["check:arm"] == "pass"
        assert s[f"cudnn:{best}"]["recheck"] and s[f"flash:{best}"]["recheck"]
        out[r["shape"]] = (best, s[f"cudnn:{best}"]["margin"], s["cudnn:arm"]["margin"])
    return out


def test_the_suite_against_cudnn_as_recorded():
    lazy, first = _confirm("best_per_shape_lazy"), _confirm("best_per_shape")
    rows = {**{k: v for k, v in first.items() if "-D64-" in k}, **lazy}
    assert len(rows) == 11
    at_least_cudnn = {k for k, (_, m, _) in rows.items() if m >= 1.0}
    assert at_least_cudnn == {
        "B2-H16-N8192-D128-float16-noncausal", "B1-H16-N32768-D128-float16-noncausal",
        "B2-H16-N8192-D128-float16-causal", "B1-H32-Hkv4-N16384-D128-bfloat16-causal",
        "B2-H16-N8192-D64-float16-noncausal", "B2-H16-N4096-D64-bfloat16-causal", "B8-H16-Hkv4-N2048-D64-float16-noncausal"}
    assert rows["B2-H16-N8192-D128-float16-noncausal"][:2] == ("ws_op_bc176_lazy", pytest.approx(1.0163, abs=1e-4))
    assert rows["B2-H16-N8192-D64-float16-noncausal"][:2] == ("ws3_overlap", pytest.approx(1.0852, abs=1e-4))
    # where it loses: short sequences and short causal GQA prefill, where the old arm is as fast or faster
    assert rows["B8-H32-Hkv8-N1024-D128-bfloat16-causal"][1] < rows["B8-H32-Hkv8-N1024-D128-bfloat16-causal"][2]
    assert all(m > arm for k, (_, m, arm) in rows.items() if k in at_least_cudnn)


def test_the_levers_alone_and_the_instrument_as_recorded():
    rec = read_record(REC / "margins" / "margins.json")
    m = {k.split(":", 1)[1]: v["margin"] for k, v in rec["margins"].items()}
    assert m["ws->ws_overlap"] < 1 and m["ws->ws_pingpong"] < 1  # each alone loses
    assert m["ws_overlap->ws_overlap_pingpong"] > 1.08  # together they win
    assert m["ws_overlap_pingpong->ws_op_bc176"] > 1.09 and m["ws_overlap_pingpong->ws_op_bc64"] < 0.82
    aa = rec["aa"]["ws_op_bc176@B2-H16-N8192-D128-float16-noncausal"]
    assert len(aa) == 3 and max(abs(x - 1) for x in aa) < 0.01


def test_the_hang_is_kept_as_found():
    (r,) = read_record(REC / "hang_setmaxnreg" / "best.json")
    assert r["screen"]["status"] == "timeout" and r["screen"]["steps"] == []


def test_agent_7_forms_the_combination_as_one_move_and_6_never_sees_it():
    from agent import levers
    from agent.policy import POLICIES
    from agent.strategies.base import State
    from agent.strategies.limiter import LimiterAgent
    from kernel_src.arch import TABLE

    arm = Knobs.parse(dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", br=128, warps=8, bc=64,
                           kv_stages=2, rescale_skip="on", softmax="fused", rescale_lazy="on"))

    def state(best, version):
        return State(best=best, seed=best, t_noise=0.002, t_keep=1.002, budget_left=10, causal=False,
                     levers=levers.catalog_for(POLICIES[version]), limits=TABLE["sm_90"])

    moves = {m.name: m.knobs for m in LimiterAgent(7).moves(state(arm, 7))}
    ws = moves["ws_mainloop"]
    assert (ws.mainloop.value, ws.kv_release.value, ws.pipeline.value, ws.pingpong.value, ws.bc) == ("ws", "producer", "on", "on", 128)
    assert ws.rescale_lazy.value == "on"  # the arm's own lazy rescale stays: 1.092 on the ws kernel at causal N16384
    assert not {"ws_mainloop", "ws_wide_kv_tile", "ws_three_warpgroups"} & {m.name for m in LimiterAgent(6).moves(state(arm, 6))}
    after = {m.name: m.knobs for m in LimiterAgent(7).moves(state(ws, 7))}
    assert after["ws_wide_kv_tile"].bc == 176 and after["ws_three_warpgroups"].warps == 12
    assert "ws_mainloop" not in after and "pingpong" not in after  # already there


def test_the_rescale_factors_exponentials_sit_behind_a_vote(cli_build_cache):
    """rescale_factor on the persistent three-warpgroup kernel (the lazy rescale on): 128 registers each way, one
    VOTE.ANY more per softmax instance; when_raised puts the factors' MUFU.EX2 behind a branch (none predicated: a
    predicated MUFU is still issued), when_raised_predicated leaves them predicated on the vote, as ptxas compiles a
    body of the MUFU and l's update (results/2026-12-04_cpu_rescale_factor)."""
    from experiments.build import BuildSpec
    from profiler.sass import dump_sass

    lazy = ("rescale_skip=on", "rescale_lazy=on")
    values = ("always", "when_raised", "when_raised_predicated")
    rows = [_static_d64_persistent(*lazy, f"rescale_factor={v}") for v in values]
    assert [r["registers"] for r in rows] == [128] * 3
    with pytest.raises(KnobError, match="rescale_factor'=when_raised .*mainloop=ws"):
        Knobs.parse({**WS, "mainloop": "general", "kv_release": "barrier", "rescale_factor": "when_raised"})
    if not rows[1]["census"]:
        pytest.skip("cuobjdump not installed: the SASS is not read")
    assert rows[1]["census"]["MUFU.EX2"] == rows[2]["census"]["MUFU.EX2"]
    assert rows[1]["census"]["VOTE"] > rows[0]["census"]["VOTE"] and rows[2]["census"]["VOTE"] > rows[0]["census"]["VOTE"]
    predicated = []
    for v in values[1:]:
        knobs = Knobs.parse_assignments([f"{k}={x}" for k, x in WS.items()] + [
            "pipeline=on", "warps=12", "br=192", "persistent=on", "q_load=tma", *lazy, f"rescale_factor={v}"])
        key = BuildSpec(knobs=knobs, arch="sm_90", dtypes=("float16",), dims=(64,), causals=(False,), host=False).key()
        mufu = [ln for ln in dump_sass(str(cli_build_cache / "static" / key / "fa.cubin")).splitlines() if "MUFU.EX2" in ln]
        predicated.append(sum(bool(re.search(r"@!?P\d", ln)) for ln in mufu))
    assert predicated[0] == 0 and predicated[1] > 0
