"""The rescale factors' exponentials behind a vote on the H200 (results/2026-12-04_h200_rescale_factor): tier-clean,
every vote bitwise its kernel without it, and a negative at every non-causal shape; no lever proposes it."""
import inspect

import agent.levers
from recorded import RESULTS

HERE = RESULTS / "2026-12-04_h200_rescale_factor" / "call1"


def test_the_tier_of_the_vote_kernels_has_no_failure():
    text = (HERE / "tier.txt").read_text()
    assert text.count("failures 0: []") == 2 and "built 16 of 16 libraries" in text and "failed: []" in text
    assert "6 bitwise pairs" in text and "5 bitwise pairs" in text


def _margins() -> dict:
    got = {}
    for line in (HERE / "margins.txt").read_text().splitlines():
        if "->" in line and " cudnn->" not in line and "warmup" not in line and not line.startswith(("$", "#")):
            shape, rest = line.split(" ", 1)
            base, cand = rest.split(": ")[0].split("->")
            got[(shape.split("-float16-")[0] + ("-causal" if shape.endswith("-causal") else ""), cand[len(base):])] = \
                float(rest.split(": ")[1].split()[0])
    return got


def test_the_vote_loses_where_the_softmax_binds_and_is_level_under_a_causal_mask():
    got = _margins()
    assert got == {("B16-H16-N512-D64", "_rf"): 0.9523, ("B16-H16-N512-D64", "_rp"): 0.9469,
                   ("B2-H16-N8192-D64", "_rf"): 0.9670, ("B2-H16-N8192-D64", "_rp"): 0.9277,
                   ("B2-H16-N2048-D128", "_rf"): 0.9258, ("B2-H16-N2048-D128", "_rp"): 0.9815,
                   ("B2-H16-N8192-D128", "_rf"): 0.9293, ("B2-H16-N8192-D128", "_rp"): 0.9996,
                   ("B2-H16-N8192-D128-causal", "_rf"): 1.0000, ("B2-H16-N8192-D128-causal", "_rp"): 1.0040}
    # every non-causal reading below 1 (the predicted 1.005-1.015 at D=64 did not come)
    assert all(v < 1 for (shape, _), v in got.items() if not shape.endswith("causal"))
    assert "rescale_factor" not in inspect.getsource(agent.levers)  # the knob stays; no lever proposes it
