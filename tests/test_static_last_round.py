"""The last round on the static persistent schedule, split (last_round=key_split) or streamed in equal shares of the
CTAs (key_stream): the stream's rule, lever ws_last_round_stream and policy 30, the H100 record (tier, margins, the
suite's rows; results/2026-12-06_h100_static_last_round) and policy 29's run there, replayed with no GPU to its printed
history and own row against cuDNN."""
import re
import sys

import pytest

from agent import levers
from agent.policy import POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.knobs import KnobError, Knobs
from recorded import (RESULTS, agent_runs_fixture, assert_best_rows_as_printed, assert_replayed_as_printed, packed_tier,
                      printed_history, suite_margins)

REC = RESULTS / "2026-12-06_h100_static_last_round"
KS = "ws_op_lazy_qp_w_ot_pr_pk_dm_wu"
BW = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu"


def _kernels():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    return ds.KERNELS


def test_the_stream_is_the_static_schedules():
    k = _kernels()
    assert Knobs.parse(k[f"{KS}_ls"]).replace(last_round="whole") == Knobs.parse(k[KS])
    assert Knobs.parse(k[f"{BW}_ls"]).replace(last_round="whole") == Knobs.parse(k[BW])
    dynamic = k["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el"]
    with pytest.raises(KnobError, match="last_round.=key_stream .*schedule=static.*not .*schedule=dynamic"):
        Knobs.parse({**dynamic, "last_round": "key_stream"})


def test_the_lever_goes_where_the_last_round_is_short():
    lv = levers.get("ws_last_round_stream")
    k = Knobs.parse(_kernels()[KS])
    assert lv.applies_to(k, causal=False, head_dim=128, seqlen=8192, dtype="float16")
    assert not lv.applies_to(k, causal=True, head_dim=128, seqlen=8192)  # no piece under the mask
    assert not lv.applies_to(k, causal=False, head_dim=128, seqlen=2048)  # the launch streams nothing at N2048
    assert not lv.applies_to(k.replace(schedule="dynamic"), causal=False, seqlen=8192)
    assert lv.apply(k) == Knobs.parse(_kernels()[f"{KS}_ls"]) and lv.problems() == "non-causal only, N >= 4096"
    assert POLICIES[30].model_copy(update={"version": 29}) == POLICIES[29]
    assert lv.name in {x.name for x in as_read_by(POLICIES[30])} - {x.name for x in as_read_by(POLICIES[29])}


def test_the_h100_record_as_its_readme_quotes_it():
    tier = (REC / "tier.txt").read_text()
    runs = re.findall(r"^tier D(?:64\+128|64): \d+ configurations x 2 kernels .* failures (\d+): \[\]$", tier, re.M)
    assert runs == ["0"] * 6 and "FA_LAST_ROUND_SPLIT=-1:1" in tier and "FA_LAST_ROUND_SPLIT=-1:3" in tier
    assert all(s["failures"] == [] for s in packed_tier(REC / "json.tgz").values())
    m = suite_margins(REC / "json.tgz")
    want = {("B2-H16-N8192-D128", f"{KS}->{KS}_ls"): 1.0189, ("B2-H16-N8192-D128", f"cudnn->{KS}_ls"): 1.1092,
            ("B1-H16-N32768-D128", f"{KS}->{KS}_lr"): 1.0322, ("B1-H16-N32768-D128", f"{KS}->{KS}_ls"): 1.0234,
            ("B1-H16-N32768-D128", f"cudnn->{KS}_ls"): 1.1176, ("B2-H16-N8192-D64", f"{BW}->{BW}_ls"): 1.0510,
            ("B2-H16-N8192-D64", f"{BW}->{BW}_lr"): 1.0448,
            ("B2-H16-N8192-D64", f"ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl->{BW}_ls"): 1.0028,
            ("B2-H16-N8192-D64", f"ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl->{BW}_lr"): 0.9975,
            ("B4-H16-N4096-D128", f"{KS}->{KS}_ls"): 1.0113}
    assert {key: m[key] for key in want} == want
    aa = re.search(rf"^A/A {KS}_ls at .*: \[(.*)\]", (REC / "margins.txt").read_text(), re.M)[1]
    assert all(abs(float(x) - 1) < 5e-4 for x in aa.split(","))
    readme = (REC / "README.md").read_text()
    assert all(f"{v:.4f}" in readme for v in want.values())


ROWS = {"B2-H16-N8192-D128-float16-noncausal": (f"{KS}_ls", 1.109, 679),
        "B1-H16-N32768-D128-float16-noncausal": (f"{KS}_lr", 1.127, 694),
        "B4-H16-N4096-D128-bfloat16-noncausal": (f"{KS}_ls", 1.091, 674),
        "B2-H16-N8192-D64-float16-noncausal": (f"{BW}_ls", 1.125, 504)}


def test_the_suites_rows_as_the_readme_quotes_them():
    assert_best_rows_as_printed(REC / "suite", ROWS, REC / "README.md")


replayed29 = agent_runs_fixture(REC / "suite", {"d128": (1.055, "t128x128w8")})


def test_policy_29_run_replays_to_the_printed_history_and_row(replayed29):
    assert_replayed_as_printed(REC / "suite", replayed29, 1.055, "t128x128w8", n_experiments=(19, 20))


def test_policy_29_kept_the_warp_uniform_lever_at_ask_12():
    run = printed_history(REC / "suite" / "d128_agent_4.txt")
    assert run[11][:2] == ("ws_warp_uniform", "KEPT") and run[11][2] == 1.0125
    p22 = printed_history(RESULTS / "2026-12-05_h100_agent_runs" / "d128_agent_4.txt")
    assert [r[0] for r in run[:11]] == [r[0] for r in p22[:11]]  # the same levers asked, in the same order
    differ = [(i + 1, a[:2], b[1]) for i, (a, b) in enumerate(zip(run[:11], p22[:11])) if a[1] != b[1]]
    assert differ == [(7, ("unrolled_copies", "NULL"), "SLOWER")]


def test_the_share_lead_reads_todays_model_and_changes_only_n32768():
    """results/2026-12-07_cpu_stream_share: the script's `today` is the launch's model (the shares the built library
    gives in tests/test_last_round.py), and with every merged partial counted only N32768's share moves, 8 -> 16."""
    import importlib.util
    import subprocess

    rec = RESULTS / "2026-12-07_cpu_stream_share"
    spec = importlib.util.spec_from_file_location("share_model", rec / "share_model.py")
    out = subprocess.run([sys.executable, str(rec / "share_model.py")], capture_output=True, text=True, check=True)
    assert out.stdout == (rec / "share_model.txt").read_text()
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    for items, nkv, D, want in ((2048, 64, 128, (68, 33)), (2048, 32, 128, (68, 17)), (4096, 256, 128, (4, 8)),
                                (1376, 64, 64, (56, 28)), (512, 16, 128, (0, 0))):
        assert m.today(items, nkv, D) == want
        assert m.counted(items, nkv, D)[:2] == (want if nkv != 256 else (4, 16))
    readme = (rec / "README.md").read_text()
    assert "**4, 16, 15**" in readme and "| B1 H16 N32768 D128 | 4, 8, 31 |" in readme
