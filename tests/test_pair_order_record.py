"""The pipelined timer's record (results/2026-12-03_h200_pair_order): under synchronised pairs the first block of
each pair read slower (AB - BA about +0.4..+1.3%), under pipelined pairs the halves agree, and the margins agree
between the timers."""
from __future__ import annotations

import json

from recorded import RESULTS

from experiments.job import PairedStep

REC = RESULTS / "2026-12-03_h200_pair_order"


def rows(pair: tuple[str, str], shape: str, mode: str) -> list[dict]:
    d = json.loads((REC / "call1" / "pair_order.json").read_text())
    assert d["gpu"] == "NVIDIA H200"
    return [r for r in d["rows"] if (r["base"], r["cand"]) == pair and shape in r["shape"]
            and f"{r['mode']}@{r['lead_ms']:g}" == mode]


def test_synchronised_pairs_split_the_halves_and_pipelined_ones_do_not():
    for shape, pair in (("N2048-D128", ("best", "best")), ("N2048-D128", ("best", "lazy")), ("N2048-D128", ("best", "mid_wait")),
                        ("N512-D64", ("ws3_lazy_qp_ot_pm",) * 2), ("N8192-D64", ("ws3_lazy_qp_ot_pm",) * 2)):
        for mode in ("sync@0.3", "sync@1"):
            rs = rows(pair, shape, mode)
            assert len(rs) == 3 and all(0.004 < r["margin_ab"] - r["margin_ba"] < 0.013 for r in rs), (shape, pair, mode)
        rs = rows(pair, shape, "pipelined@0.3")
        assert len(rs) == 3 and all(abs(r["margin_ab"] - r["margin_ba"]) < 0.0013 for r in rs), (shape, pair)


def test_the_levers_the_halves_rule_hid_are_real_and_the_margins_agree():
    lazy = rows(("best", "lazy"), "N2048-D128", "pipelined@0.3")
    assert all(r["margin_ab"] > 1.004 and r["margin_ba"] > 1.004 for r in lazy)
    sync = rows(("best", "lazy"), "N2048-D128", "sync@0.3")
    assert any(r["margin_ba"] < 1 for r in sync)  # the halves rule called it NULL
    assert abs(min(r["margin"] for r in sync) - max(r["margin"] for r in lazy)) < 0.002


def test_every_pair_the_tool_times_is_pipelined():
    assert PairedStep.model_fields["pipelined"].default is True


def test_the_pipelined_null_of_the_run_final_and_of_cudnn():
    d = json.loads((REC / "call2" / "null.json").read_text())
    ours = [r for r in d["rows"] if r["backend"] == "ours"]
    cudnn = [r for r in d["rows"] if r["backend"] == "cudnn"]
    assert len(ours) == len(cudnn) == 6 and all(r["alternations"] == 400 for r in ours + cudnn)
    assert all(0.9997 <= round(r["margin"], 4) <= 1.0002 and abs(r["margin_ab"] - r["margin_ba"]) < 0.0017 for r in ours)
    assert all(0.9999 <= round(r["margin"], 4) <= 1.0001 for r in cudnn)
    assert "ws_producer_regs=40 p_pack=with_exp" in d["knobs"]


def test_the_n512_loss_does_not_shrink_with_four_times_the_batch():
    text = (REC / "call2" / "n512_batch.txt").read_text()
    assert "B16-H16-N512-D64-float16-noncausal cudnn->ws3_lazy_qp_ot_pm: 0.9395" in text
    assert "B64-H16-N512-D64-float16-noncausal cudnn->ws3_lazy_qp_ot_pm: 0.9458" in text
