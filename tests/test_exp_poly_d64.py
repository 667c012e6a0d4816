"""The cubic's share of P's exponentials (exp_poly) on the suite's D=64 bests: the suite's kernels differ from their
bases in that knob alone, and the SASS record (results/2026-12-07_cpu_exp_poly) gives the counts its README quotes,
with fewer MUFU and no spill."""
import re
import sys
from pathlib import Path

from recorded import RESULTS

from kernel_src.knobs import Knobs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from device_suite import BEST, KERNELS, TIER_ALONE  # noqa: E402

REC = RESULTS / "2026-12-07_cpu_exp_poly"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls"
G = "ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"


def test_the_suite_kernels_move_exp_poly_alone_and_are_plan_best_candidates():
    for base, cand, share in ((B, f"{B}_eq", "quarter"), (B, f"{B}_eh", "half"), (G, f"{G}_eq", "quarter")):
        k = Knobs.parse(KERNELS[cand])
        assert k.exp_poly.value == share and k.replace(exp_poly="off") == Knobs.parse(KERNELS[base])
        assert cand in BEST[64]
        assert all(cand not in names for names in TIER_ALONE.values())  # checked at their shapes by plan best


def test_the_sass_record_is_the_readmes():
    text = (REC / "sass_counts.txt").read_text()
    readme = (REC / "README.md").read_text()
    rows = {name: (int(n), {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", ops)})
            for name, n, ops in re.findall(r"^(\w+):.*\n  consumers +(\d+) instructions; (.*)$", text, re.M)}
    assert set(rows) == {B, f"{B}_eq", f"{B}_eh", G, f"{G}_eq"}
    assert text.count("0 bytes spill stores, 0 bytes spill loads") == 5 and text.count("Used 128 registers") == 5
    for name, (n, ops) in rows.items():
        assert f"{n:,}" in readme and f"| {ops['MUFU']} | {ops['FFMA']} | {ops['FADD']} | {ops['FMNMX']} |" in readme
    base, eq, eh = rows[B], rows[f"{B}_eq"], rows[f"{B}_eh"]
    assert base[1]["MUFU"] - eq[1]["MUFU"] == 64 and eq[1]["MUFU"] - eh[1]["MUFU"] == 64  # 16 a warp's 64, per copy
    assert f"{(eq[0] - base[0]) / 64:.2f}" in readme  # the cost of each exponential moved off MUFU
