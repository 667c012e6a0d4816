"""The GQA ladder and policy 27: at B8 H16/4 N2048 D64 on an H100 the parts between the agent's final and the suite's
kernel, alone and in pairs (results/2026-12-06_h100_gqa_ladder); lever ws_q_by_tma_lazy_p_mid_wait built from that
record and read from policy 26's run (results/2026-12-06_cpu_policy27); its kernel paired and policy 27's three runs
replayed with no GPU to their printed histories and own rows against cuDNN (results/2026-12-06_h100_policy27), and
its run at the causal D=64 shape (results/2026-12-06_h100_causal_d64)."""
import json
import re
import sys
import tarfile

from agent import levers
from agent.policy import POLICIES
from agent.replay.catalog import as_read_by
from recorded import RESULTS, agent_runs_fixture, assert_replayed_as_printed, printed_history, suite_margins

LADDER = RESULTS / "2026-12-06_h100_gqa_ladder"
P27 = RESULTS / "2026-12-06_h100_policy27"
GQA = "B8-H16-Hkv4-N2048-D64"
F = "ws3_ot_dm"


def _tier(tgz):
    with tarfile.open(tgz) as tf:
        return json.load(tf.extractfile("tier/tier.json"))


def test_the_ladders_parts_lose_or_hold_alone_and_pay_together():
    m = suite_margins(LADDER / "json.tgz")
    alone = {p: m[GQA, f"{F}->ws3_{p}_ot_dm"] for p in ("lazy", "qp", "pm")}
    pairs = {p: m[GQA, f"{F}->ws3_{p}_ot_dm"] for p in ("lazy_qp", "lazy_pm", "qp_pm")}
    assert alone == {"lazy": 1.0027, "qp": 0.9505, "pm": 1.0007}
    assert pairs == {"lazy_qp": 1.0376, "lazy_pm": 1.0230, "qp_pm": 1.0408}
    assert m[GQA, f"{F}->ws3_lazy_qp_ot_pm_dm"] == 1.0565 > max(pairs.values())
    assert m[GQA, f"cudnn->{F}"] == 1.0312 and m[GQA, "cudnn->ws3_lazy_qp_ot_pm_dm"] == 1.0889
    aa = re.search(rf"^A/A {F} at .*: \[(.*)\]", (LADDER / "margins.txt").read_text(), re.M)[1]
    assert all(abs(float(x) - 1) < 1e-4 for x in aa.split(","))
    assert all(s["failures"] == [] for s in _tier(LADDER / "json.tgz").values())
    # ncu: Q by TMA with the persistent schedule alone issues less and moves more through L2
    anat = (LADDER / "anatomy.txt").read_text()
    issue = [float(x) for x in re.findall(r"issue ([\d.]+)%", anat)]
    l2 = [float(x) for x in re.findall(r"L2 ([\d.]+) B", anat)]
    assert issue[1] == 50.12 and issue[3] == 46.69 and l2[1] == 689648352.0 and l2[3] == 780373376.0


def test_policy_27_adds_the_three_parts_as_one_move_where_they_were_measured():
    assert POLICIES[27].model_copy(update={"version": 26}) == POLICIES[26]
    lv = levers.get("ws_q_by_tma_lazy_p_mid_wait")
    assert lv.name not in {x.name for x in as_read_by(POLICIES[26])} and lv.head_dims == (64,) and lv.noncausal_only
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds
    from kernel_src.knobs import Knobs

    # from the ladder's base the move as policies 27-30 read it builds the kernel the second call paired (the
    # ladder's top with three stages); from policy 31 the same with warp-uniform branches
    as27 = next(x for x in as_read_by(POLICIES[27]) if x.name == lv.name)
    assert as27.apply(Knobs.parse(ds.KERNELS[F])) == Knobs.parse(ds.KERNELS["ws3_lazy_qp_ot_pm_dm_s3"])
    assert lv.apply(Knobs.parse(ds.KERNELS[F])) == Knobs.parse(ds.KERNELS["ws3_lazy_qp_ot_pm_dm_s3"]).replace(
        warp_uniform="on")
    m = suite_margins(P27 / "json.tgz")
    assert m[GQA, f"{F}->ws3_lazy_qp_ot_pm_dm_s3"] == 1.0525 and m[GQA, "cudnn->ws3_lazy_qp_ot_pm_dm_s3"] == 1.0875
    assert m[GQA, "ws3_lazy_qp_ot_pm_dm->ws3_lazy_qp_ot_pm_dm_s3"] == 0.9976
    assert all(s["failures"] == [] for s in _tier(P27 / "json.tgz").values())
    reading = (RESULTS / "2026-12-06_cpu_policy27" / "first_choices.txt").read_text()
    assert "  ask 13: ws_q_by_tma_lazy_p_mid_wait, ws_q_by_tma_three_stages," in reading
    n512 = reading.split("n512_agent_4")[1]
    assert "ws_q_by_tma_lazy_p_mid_wait" not in n512  # the N512 run's path never meets it


replayed27 = agent_runs_fixture(P27, {"gqa64": (1.115, "t192x128w12"), "gqa64_agent_5": (1.115, "t192x128w12"),
                                      "d64": (1.099, "t192x128w12")})


def test_policy_27_runs_replay_to_the_printed_history_and_row(replayed27):
    x = {"gqa64": 1.115, "gqa64_agent_5": 1.115, "d64": 1.099}[replayed27[0]]
    assert_replayed_as_printed(P27, replayed27, x, "t192x128w12", n_experiments=(20,))


def test_policy_27_kept_its_move_at_gqa_twice_and_lost_it_level_at_n8192():
    p26 = printed_history(RESULTS / "2026-12-06_h100_policy26" / "gqa64_agent_4.txt")
    for run in ("gqa64_agent_4", "gqa64_agent_5"):
        now = printed_history(P27 / f"{run}.txt")
        assert [r[:2] for r in now[:12]] == [r[:2] for r in p26[:12]]
        assert now[12][:2] == ("ws_q_by_tma_lazy_p_mid_wait", "KEPT") and 1.04 < now[12][2] < 1.05
    d64 = printed_history(P27 / "d64_agent_4.txt")
    assert d64[12] == ("ws_q_by_tma_lazy_p_mid_wait", "SLOWER", 0.9992)
    final = re.search(r"^summary: .*final kernel (\S+)", (P27 / "gqa64_agent_5.txt").read_text(), re.M)[1]
    assert "persistent=on" in final and "q_load=tma" in final and "rescale_lazy=on" in final and "p_pack=mid_wait" in final


CAUSAL = RESULTS / "2026-12-06_h100_causal_d64"
replayed_causal = agent_runs_fixture(CAUSAL, {"causal64": (1.055, "t192x128w12")})


def test_the_causal_d64_run_replays_to_its_printed_history_and_row(replayed_causal):
    assert_replayed_as_printed(CAUSAL, replayed_causal, 1.055, "t192x128w12", n_experiments=(20,))
    now = printed_history(CAUSAL / "causal64_agent_4.txt")
    assert now[12] == ("ws_mainloop_three_warpgroups", "KEPT", 1.2798) and now[5] == ("heaviest_first", "KEPT", 1.2055)
    assert "ws_q_by_tma_lazy_p_mid_wait" not in {r[0] for r in now}  # non-causal only
