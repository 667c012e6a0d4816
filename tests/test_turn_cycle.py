"""Three consumer warpgroups in a fixed cycle of turns (knob turn_cycle): the rules that keep it to the warp-specialised
mainloop's three warpgroups that each take every turn, the suite's bitwise pairs, the build's figures
(results/2026-12-06_cpu_turn_cycle) and the H100 record (results/2026-12-06_h100_turn_cycle): the tier, the margins its
README quotes, and the key split's measured beside it."""

import re

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, assert_tier_passed, device_pairs, packed_tier, suite_margins

CPU = RESULTS / "2026-12-06_cpu_turn_cycle"
H100 = RESULTS / "2026-12-06_h100_turn_cycle"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"
BASES = ["ws3_lazy_qp_ot_pm_dm", f"{B}_el_tc0", "ws3_lazy_qp_hf_ot_pm_s3_dm", "ws3_lazy_hf_oq_pm"]


def test_the_cycle_needs_three_warpgroups_that_each_take_every_turn():
    k = device_pairs("_tc", BASES, turn_cycle="off")
    with pytest.raises(KnobError, match="turn_cycle'=on .*warps=12.*not mainloop=ws, warps=12, tail_rows=skip"):
        Knobs.parse({**k[f"{B}_el"], "turn_cycle": "on"})  # a warpgroup past N would sit its turns out
    with pytest.raises(KnobError, match="turn_cycle'=on .*not mainloop=ws, warps=8"):
        Knobs.parse({**k["ws_op_lazy_w_oq_pk_dm"], "turn_cycle": "on"})  # two warpgroups: that is pingpong
    assert Knobs.parse(k[f"{B}_el_tc0_tc"]).turn_cycle.value == "on"


def test_the_cycle_builds_as_recorded():
    """ptxas (ptxas.txt): two named barriers more; the `_el_tc0` kernel spills nothing with the cycle."""
    rows = {m[0]: (int(m[1]), int(m[2])) for m in
            re.findall(r"^(\S+ D64 \S+): (\d+) bytes spill stores.*used (\d+) barriers", (CPU / "ptxas.txt").read_text(), re.M)}
    assert len(rows) == 16
    for base in BASES:
        for c in ("noncausal", "causal"):
            assert rows[f"{base}_tc D64 {c}"][1] == rows[f"{base} D64 {c}"][1] + 2 == 9
    assert rows[f"{B}_el_tc0_tc D64 noncausal"][0] == rows[f"{B}_el_tc0_tc D64 causal"][0] == 0


def test_the_h100_record_as_its_readme_quotes_it():
    tier = packed_tier(H100 / "json.tgz")
    assert_tier_passed(tier, {"D64": (84, 10, 5), "D64+128": (168, 2, 0)})
    m = suite_margins(H100 / "json.tgz")
    n8k, gqa = "B2-H16-N8192-D64", "B8-H16-Hkv4-N2048-D64"
    assert m[n8k, f"{B}_el_tc0->{B}_el_tc0_tc"] == 0.9592
    assert m[n8k, "ws3_lazy_qp_ot_pm_dm->ws3_lazy_qp_ot_pm_dm_tc"] == 0.9811
    assert m[gqa, "ws3_lazy_qp_hf_ot_pm_s3_dm->ws3_lazy_qp_hf_ot_pm_s3_dm_tc"] == 0.9334
    assert m["B2-H16-N4096-D64", "ws3_lazy_hf_oq_pm->ws3_lazy_hf_oq_pm_tc"] == 0.9974
    assert all(v < 1 for (_, move), v in m.items() if move.endswith("_tc") and not move.startswith("cudnn"))
    assert m[n8k, f"{B}_el_sl->{B}_el_sl_lr"] == 0.9896  # the key split on the suite's best: a loss
    assert m[n8k, f"cudnn->{B}_el_sl"] == 1.1219
    kp = "ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd"
    assert m["B1-H16-N32768-D128", f"{kp}->{kp}_lr"] == 1.0206


def test_the_persistent_d128_kernel_does_the_same_tensor_work_in_more_cycles():
    """ncu (anatomy.txt): at N8192 D128 the tensor pipe's busy cycles are the same in the one-item-a-CTA kernel and the
    persistent ones (within 0.1%), the persistent kernels' active cycles 2-3% more."""
    text = (H100 / "anatomy.txt").read_text()
    ours = [(float(t), float(a)) for t, a in re.findall(r"tensor ([\d.]+)%.*?SM active ([\d.]+) of", text)
            ][1::2]  # each shape's cuDNN line first, then ours
    assert len(ours) == 5
    busy = [t / 100 * a for t, a in ours]
    one_item, static, dynamic = busy[2:]
    assert abs(static / one_item - 1) < 1e-3 and abs(dynamic / one_item - 1) < 1e-3
    assert 1.02 < ours[3][1] / ours[2][1] < 1.03 and 1.02 < ours[4][1] / ours[2][1] < 1.04
    assert abs(busy[1] / busy[0] - 1) < 1e-3 and ours[1][1] / ours[0][1] > 1.04  # the cycle: same work, more cycles
