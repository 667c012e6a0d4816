"""One knob at a time around the agent's N512 D64 final on the H200 (results/2026-12-04_h200_n512_around): tier-clean, and
every move a loss; the final below cuDNN in the same process."""
import re

from recorded import RESULTS

HERE = RESULTS / "2026-12-04_h200_n512_around" / "call1"
A = "ws3_lazy_qp_hf_ot_ts_s3"


def test_the_tier_passed_with_the_three_bitwise_pairs():
    text = (HERE / "tier.txt").read_text()
    assert "built 6 of 6 libraries" in text and "84 configurations x 6 kernels + 3 bitwise pairs" in text
    assert text.count("failures 0: []") == 2


def test_every_move_loses_and_the_final_stays_below_cudnn():
    got = {}
    for m in re.finditer(r"B16-H16-N512-D64-float16-noncausal (\S+)->(\S+): ([0-9.]+) ", (HERE / "margins.txt").read_text()):
        got.setdefault((m[1], m[2]), []).append(float(m[3]))
    moves = {k[1][len(A) + 1:]: v for k, v in got.items() if k[0] == A}
    assert moves == {"qb2": [0.9773], "tree": [0.9353], "tr": [0.9168], "bc64": [0.8896], "eager": [0.9826]}
    assert got[("cudnn", A)] == [0.9866, 0.9859]
