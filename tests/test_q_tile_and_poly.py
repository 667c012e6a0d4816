"""The H200 record of O through the Q tile (o_store=tma_in_q), exp_poly on the warp-specialised mainloop, the suite
against cuDNN with them, and the naive-seed search of agent 12 (results/2026-12-02_h200_q_tile_poly): the tier's
verdicts, the margin and suite tables as the README gives them, the rules of the new knob value, and where the
search's time went."""
import json
import sqlite3
import sys
from pathlib import Path

import pytest
from recorded import RESULTS, assert_tier_passed, opened, read_record

from agent.levers import BY_NAME
from agent.policy import CURRENT
from kernel_src.arch import launch_refusal, limits
from kernel_src.knobs import KnobError, Knobs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from device_suite import KERNELS, TIER, TIER_ALONE  # noqa: E402

REC = RESULTS / "2026-12-02_h200_q_tile_poly"
README = (REC / "README.md").read_text()


def test_o_through_the_q_tile_is_for_one_item_a_cta_and_frees_the_o_tile():
    bc176 = Knobs.parse(KERNELS["ws_op_bc176_lazy_w_oq"])
    assert bc176.smem_bytes(128) == 213056
    assert launch_refusal(limits("sm_90"), smem=bc176.smem_bytes(128), threads=384, needs_arch="sm_90") is None
    with_tile = Knobs.parse({**KERNELS["ws_op_bc176_lazy_w_oq"], "o_store": "tma"})
    assert with_tile.smem_bytes(128) - bc176.smem_bytes(128) == 128 * 128 * 2  # the O tile it does without
    with pytest.raises(KnobError, match="persistent=off"):
        Knobs.parse({**KERNELS["ws_op_lazy_qp_w_ot"], "o_store": "tma_in_q"})
    with pytest.raises(KnobError, match="mainloop=ws"):
        Knobs.parse({**KERNELS["arm"], "o_store": "tma_in_q"})
    assert Knobs.parse(KERNELS["ws3_lazy_oq_pq"]).exp_poly.value == "quarter"  # exp_poly now valid on the mainloop


def test_the_agent_proposes_the_q_tile_epilogue_and_not_exp_poly_on_the_mainloop():
    assert CURRENT.version >= 12
    lv = BY_NAME["ws_o_in_q_tile"]
    ws = Knobs.parse(KERNELS["ws_op_lazy_w"])
    assert lv.applies_to(ws, False, 128) and not lv.applies_to(Knobs.parse(KERNELS["ws_op_lazy_qp_w"]), False, 128)
    assert "1.034" in lv.hypothesis and "2026-12-02_h200_q_tile_poly" in lv.hypothesis
    assert not BY_NAME["exp_poly_quarter"].applies_to(ws, False, 128)
    assert BY_NAME["exp_poly_quarter"].applies_to(Knobs.parse({**KERNELS["arm"]}), False, 128)


def test_call_two_tier_passed_with_every_q_tile_pair_and_call_one_shows_the_formula_bug():
    t = read_record(REC / "call2" / "tier" / "tier.json")
    assert_tier_passed(t, {"D64+128": (136, 44, 34), "D64": (68, 25, 17)})
    got = {tuple(p) for s in t.values() for p in s["pairs"]}
    assert {("ws_op_bc176_lazy_w_oq", "ws_op_bc176_lazy_w"), ("ws_op_lazy_w_oq", "ws_op_lazy_w"),
            ("ws3_lazy_oq", "ws3_lazy")} <= got
    alone = {n for ns in TIER_ALONE.values() for n in ns if n.endswith(("_pq", "_ph"))}  # exp_poly's, of that call
    assert alone <= set(t["D64+128"]["libraries"]) | set(t["D64"]["libraries"])
    assert all(not n.endswith("_oq") or any(p[0] == n for ps in TIER.values() for p in ps) for n in KERNELS)
    first = read_record(REC / "call1" / "tier" / "tier.json")["D64+128"]["failures"]
    assert sorted(k for k, _ in first) == ["ws_op_bc176_lazy_hf_w_oq", "ws_op_bc176_lazy_w_oq", "ws_op_bc176_lazy_w_oq_pq"]
    assert all("invalid argument" in why for _, why in first)


def test_the_margin_tables_are_the_readmes():
    m = {k: round(v["margin"], 4) for k, v in read_record(REC / "call2" / "margins" / "margins.json")["margins"].items() if v}
    for v in m.values():
        assert f"{v:.4f}" in README, v
    q_tile = {k: v for k, v in m.items() if k.endswith("->ws_op_bc176_lazy_w_oq") or k.endswith("_lazy_w->ws_op_lazy_w_oq")}
    assert len(q_tile) == 8 and min(q_tile.values()) > 1.0  # never a loss alone
    poly = {k: v for k, v in m.items() if k.endswith("_pq")}
    assert len(poly) == 6 and max(poly.values()) < 1.0  # a loss everywhere
    aa = read_record(REC / "call2" / "margins" / "margins.json")["aa"]
    assert max(abs(x - 1) for ms in aa.values() for x in ms) < 0.02


def test_the_suite_is_the_readmes_and_ten_of_eleven_reach_cudnn():
    latest = {}
    for call in ("call1", "call2"):  # call 2 confirmed again five of call 1's shapes
        for r in read_record(REC / call / "best" / "best.json"):
            s, best = r["confirm"]["summary"], r["best"]
            if not isinstance(s.get(f"cudnn:{best}"), dict):
                continue  # the shape whose confirm the time limit cut
            assert s[f"check:{best}"] == "pass"
            latest[r["shape"]] = (call, best, round(s[f"cudnn:{best}"]["margin"], 3))
    assert len(latest) == 10
    for _, _, m in latest.values():
        assert f"{m:.3f}" in README
    prior = [r for r in read_record(RESULTS / "2026-12-01_h200_item_stream" / "call5_fixed_tier_best" / "best" /
                                    "best.json") if r["shape"] == "B8-H16-Hkv4-N2048-D64-float16-noncausal"]
    gqa = prior[0]["confirm"]["summary"][f"cudnn:{prior[0]['best']}"]["margin"]
    figures = [m for _, _, m in latest.values()] + [gqa]
    assert sum(m >= 1.0 for m in figures) == 10 and "**10 of the 11 shapes at >= 1.0x cuDNN**" in README
    assert latest["B8-H32-Hkv8-N1024-D128-bfloat16-causal"][2] == 0.997
    assert latest["B4-H16-N4096-D128-bfloat16-noncausal"][1].endswith("_oq")


def test_the_naive_seed_search_and_where_its_time_went():
    con = sqlite3.connect(f"file:{opened(REC / 'call3' / 'fa5090.db.gz')}?immutable=1", uri=True)
    try:
        run = con.execute("select status, json_extract(options, '$.search.agent_version'), "
                          "json_extract(options, '$.bench.settle') from runs").fetchone()
        rows = con.execute("select outcome from experiments where seq is not null order by seq").fetchall()
        timing = [json.loads(p) for (p,) in con.execute("select payload from measurements where kind = 'timing'")]
        settled = con.execute("select detail from experiments where outcome = 'SLOWER'").fetchone()
    finally:
        con.close()
    assert run == ("interrupted", 12, 1)
    assert [o for (o,) in rows].count("KEPT") == 7 and len(rows) == 8
    spent = {k: round(sum(t.get(k) or 0 for t in timing)) for k in ("job_s", "replicate_s", "profile_s")}
    assert spent == {"job_s": 64, "replicate_s": 42, "profile_s": 53} and "64 s" in README and "53 s" in README
    assert settled is not None
    assert any((t.get("settled") or "").startswith("settled SLOWER after 10 alternations") for t in timing)
