"""The N 2048 prefill rounds (results/2026-12-02_h200_prefill_n2048): what its README claims, read back from the call's
output, and the permutation test recomputed from the rounds."""
import json
from pathlib import Path

from recorded import load_script

HERE = Path(__file__).resolve().parents[1] / "results" / "2026-12-02_h200_prefill_n2048"


def _stats():
    return load_script(HERE / "rounds_stats.py")


def test_the_rounds_served_by_ours_against_cudnn_and_the_default_beside_their_nulls():
    d = json.loads((HERE / "call1" / "prefill_rounds.json").read_text())
    assert d["device"] == "NVIDIA H200" and d["N"] == 2048 and d["served_by"] == "fa5090"
    assert len(d["rounds"]) == 8 and all(p["alternations"] == 400 for r in d["rounds"] for p in r.values())
    s = _stats().stats(d)
    assert round(s["ours vs cudnn"]["median"], 4) == 1.0050 and round(s["ours vs default"]["median"], 4) == 1.0026
    assert abs(s["ours vs cudnn"]["null_median"] - 1) < 1e-3 and abs(s["ours vs default"]["null_median"] - 1) < 1e-3
    assert s["ours vs cudnn"]["p"] < 0.05 and s["ours vs default"]["p"] < 0.05


def test_the_permutation_test_finds_nothing_between_two_draws_of_one_null():
    mod = _stats()
    same = [1.0, 0.999, 1.001, 1.002, 0.998, 1.0005, 0.9995, 1.0]
    assert mod.permutation_p(same, list(reversed(same)))[1] > 0.3
    assert mod.permutation_p([x + 0.01 for x in same], same)[1] < 0.01


def test_the_op_alone_is_what_the_prefill_gain_comes_from():
    op = json.loads((HERE / "call1" / "prefill_rounds.json").read_text())["op"]
    assert round(op["ours vs cudnn"]["margin"], 3) == 1.204 and round(op["ours vs flash"]["margin"], 2) == 2.38
    assert abs(op["ours vs ours"]["margin"] - 1) < 0.002
