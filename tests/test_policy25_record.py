"""Policy 25, policy 26 and their records: item_order=short_tiles_late as measured on an H100 (results/2026-12-06_h100_short_tiles_late:
the tier, the margins at three D=64 shapes, DRAM reads at N512), its decode's model as committed
(results/2026-12-06_cpu_short_tiles_late), lever ws_short_tiles_late where it was measured, policy 25's first choices
read from policy 23's run as committed (results/2026-12-06_cpu_policy25), policy 25's N512 run replayed with no GPU to
its printed history and own row against cuDNN, why its ask 15 differed, the suite's D=64 rows
(results/2026-12-06_h100_policy25), tma_prefetch, a negative (results/2026-12-06_h100_tma_prefetch), and policy 26's
move, a negative in its run at N2048 D64 GQA (results/2026-12-06_cpu_policy26, results/2026-12-06_h100_policy26)."""
import json
import os
import re
import subprocess
import sys
import tarfile

from agent import levers
from agent.policy import POLICIES
from agent.replay.catalog import as_read_by
from recorded import RESULTS, agent_runs_fixture, assert_replayed_as_printed, printed_history, read_record, suite_margins
from test_policy23_record import TILE_MAJOR

SL = RESULTS / "2026-12-06_h100_short_tiles_late"
P25 = RESULTS / "2026-12-06_h100_policy25"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"
N512, GQA, D64 = "B16-H16-N512-D64", "B8-H16-Hkv4-N2048-D64", "B2-H16-N8192-D64"


def _tier(tgz):
    with tarfile.open(tgz) as tf:
        return json.load(tf.extractfile("tier/tier.json"))


def test_the_short_tiles_late_gain_off_n512_keep_the_l2_and_pass_the_tier():
    m = suite_margins(SL / "json.tgz")
    assert m[GQA, f"{B}_el->{B}_el_sl"] == 1.0176 and m[D64, f"{B}_el->{B}_el_sl"] == 1.0139
    assert m[N512, f"{B}_el_dl->{B}_el_dl_sl"] == 1.0153 and m[N512, "cudnn->" + f"{B}_el_dl_sl"] == 1.0094
    assert 0.999 < m[N512, f"{B}_el->{B}_el_sl"] < 1.004  # the last of three processes: level
    printed = (SL / "margins.txt").read_text() + (SL / "repeat_2.txt").read_text() + (SL / "repeat_3.txt").read_text()
    n512 = [float(x) for x in re.findall(rf"noncausal {B}_el->{B}_el_sl: ([\d.]+)", printed)]
    assert n512 == [0.9995, 1.0030, 1.0031]
    assert all(s["failures"] == [] for s in _tier(SL / "json.tgz").values())
    reads = [float(x) for x in re.findall(r"DRAM r/w ([\d.]+)/", (SL / "anatomy.txt").read_text())]
    assert reads[0] == 50353152.0 and reads[1] == 51840768.0  # cuDNN, then ours: the inputs' size, +2.9%


def test_the_short_tiles_late_model_and_its_decode_as_committed():
    here = RESULTS / "2026-12-06_cpu_short_tiles_late"
    out = subprocess.run([sys.executable, str(here / "model.py")], capture_output=True, text=True, check=True).stdout
    committed = (here / "model.txt").read_text()
    assert committed.split("\n", 1)[1] == out
    assert "decode: a bijection on 140 (tiles, heads, grid) cases" in out
    assert "s=0.8: launch order 5.846; W=66 (grid/2) 5.726 (ratio 1.0210)" in out
    kernel = (RESULTS.parent / "kernel_src" / "scheduler.cuh").read_text()
    assert "const unsigned W = min(max(gridDim.x / 2u, 1u), nh), lead = W * F;" in kernel  # the branch model.py copies


def test_policy_25_adds_the_lever_where_it_was_measured():
    assert POLICIES[25].model_copy(update={"version": 24}) == POLICIES[24]
    assert "ws_short_tiles_late" not in {lv.name for lv in as_read_by(POLICIES[24])}
    lv = levers.get("ws_short_tiles_late")
    launch = levers.get("ws_launch_order_row_sums").apply(TILE_MAJOR).replace(cta_order="launch")
    assert lv.applies_to(launch, False, 64, 512, "float16") and lv.applies_to(launch, False, 64, 8192, "float16")
    assert lv.apply(launch).item_order.value == "short_tiles_late" and not lv.sampled
    assert not lv.applies_to(launch, True, 64, 512, "float16")  # a mask
    assert not lv.applies_to(launch, False, 64, 384, "float16")  # no short last tile (384 = 2 x 192)
    assert not lv.applies_to(launch.replace(tail_rows="compute"), False, 64, 512, "float16")  # no idle tail
    assert not lv.applies_to(TILE_MAJOR, False, 64, 512, "float16")  # tile-major items
    for rec in re.findall(r"results/(\S+?)[),;]", lv.hypothesis):
        assert (RESULTS / rec / "README.md").is_file(), rec


def test_policy_25_first_choices_as_committed():
    here = RESULTS / "2026-12-06_cpu_policy25"
    out = subprocess.run([sys.executable, str(here / "first_choices.py")], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(RESULTS.parent)}).stdout
    assert out == (here / "first_choices.txt").read_text()
    n512, d64 = out.split("d64_agent_4")
    assert "ask 17: ws_short_tiles_late," in n512 and "ask 16: kv_double_buffer, ws_short_tiles_late," in n512
    assert "ws_short_tiles_late" not in d64


RUNS = {"n512": (0.984, "t192x128w12"), "gqa64": (1.030, "t192x128w12")}
replayed = agent_runs_fixture(P25, RUNS)


def test_policy_25_run_replays_to_the_printed_history_and_row(replayed):
    assert_replayed_as_printed(P25, replayed, *RUNS[replayed[0]], n_experiments=(20,))


def test_policy_25_asked_the_lever_at_18_after_a_noisier_null_reordered_ask_15():
    now = printed_history(P25 / "n512_agent_4.txt")
    before = printed_history(RESULTS / "2026-12-06_h100_policy23" / "n512_agent_4.txt")
    assert [r[:2] for r in now[:14]] == [r[:2] for r in before[:14]]
    assert now[14] == ("kv_double_buffer", "SLOWER", 0.9599) and now[15] == ("ws_launch_order_row_sums", "KEPT", 1.0478)
    assert now[17] == ("ws_short_tiles_late", "NULL", 0.9958) and "kv_evict_last" not in {r[0] for r in now}
    text = (P25 / "n512_agent_4.txt").read_text()
    assert "A/A null margins 1.01512, 1.00019, 1.00052, 1.00033, 1.00035: t_noise 1.2202%, t_keep 1.01220" in text
    why = (P25 / "why_ask15.txt").read_text()
    assert "t_keep 1.00045; ranked first: ws_launch_order_row_sums," in why
    assert "t_keep 1.01220; ranked first: kv_double_buffer," in why
    assert why.count("ws_launch_order_row_sums: band 0.95-1.07, midpoint 1.0082, clears t_keep: False") == 1


def test_policy_25_at_n2048_d64_gqa_never_reached_the_persistent_kernel():
    now = printed_history(P25 / "gqa64_agent_4.txt")
    got = {lv: (o, m) for lv, o, m in now}
    assert got["persistent_grid"] == ("SLOWER", 0.9514) and got["ws_q_by_tma"] == ("SLOWER", 0.9516)
    assert "ws_short_tiles_late" not in got and got["ws_mainloop_three_warpgroups"] == ("KEPT", 1.1382)
    final = re.search(r"^summary: .*final kernel (\S+)", (P25 / "gqa64_agent_4.txt").read_text(), re.M)[1]
    assert "persistent" not in final and "mainloop=ws" in final


def test_the_suite_d64_rows_take_the_short_tiles_late_off_n512():
    got = {r["shape"]: (r["best"], r["confirm"]["summary"][f"cudnn:{r['best']}"]["margin"])
           for r in read_record(P25 / "best_d64.json")}
    assert got[f"{N512}-float16-noncausal"] == (f"{B}_el", 0.9819)
    assert got[f"{GQA}-float16-noncausal"] == (f"{B}_el_sl", 1.1203)
    assert got[f"{D64}-float16-noncausal"] == (f"{B}_el_sl", 1.1211)


def test_the_tensor_map_prefetch_lost_at_n512():
    tp = RESULTS / "2026-12-06_h100_tma_prefetch"
    m = suite_margins(tp / "json.tgz")
    assert m[N512, f"{B}_el_sl->{B}_el_sl_tp"] == 0.9929
    printed = "".join((tp / f).read_text() for f in ("margins.txt", "repeat_2.txt", "repeat_3.txt"))
    assert [float(x) for x in re.findall(rf"noncausal {B}_el->{B}_el_tp: ([\d.]+)", printed)] == [0.9954, 0.9953, 0.9958]
    assert m["B2-H16-N2048-D128", "ws_op_lazy_qp_w_ot_pr_pk_dm->ws_op_lazy_qp_w_ot_pr_pk_dm_tp"] == 1.0028
    assert all(s["failures"] == [] for s in _tier(tp / "json.tgz").values())
    assert not [lv.name for lv in levers.CATALOG if "tma_prefetch" in lv.sets]


P26 = RESULTS / "2026-12-06_h100_policy26"
replayed26 = agent_runs_fixture(P26, {"gqa64": (1.031, "t192x128w12")})


def test_policy_26_run_replays_to_the_printed_history_and_row(replayed26):
    assert_replayed_as_printed(P26, replayed26, 1.031, "t192x128w12", n_experiments=(20,))


def test_policy_26s_move_lost_where_its_reading_put_it_and_the_rest_repeated_policy_25s_run():
    assert POLICIES[26].model_copy(update={"version": 25}) == POLICIES[25]
    lv = levers.get("ws_q_by_tma_three_stages")
    assert lv.name not in {x.name for x in as_read_by(POLICIES[25])} and lv.head_dims == (64,) and lv.noncausal_only
    reading = (RESULTS / "2026-12-06_cpu_policy26" / "first_choices.txt").read_text()
    assert "ask 13: ws_q_by_tma_three_stages," in reading and "ask 12: ws_o_in_q_tile, ws_q_by_tma_three_stages," in reading
    now, before = printed_history(P26 / "gqa64_agent_4.txt"), printed_history(P25 / "gqa64_agent_4.txt")
    assert now[12] == ("ws_q_by_tma_three_stages", "SLOWER", 0.9544)
    assert [r[:2] for r in now[:12]] == [r[:2] for r in before[:12]]
    assert all(abs(a[2] - b[2]) < 0.015 for a, b in zip(now[:12], before[:12]))
    later = {r[0]: r for r in before[12:]}
    for lever, outcome, margin in now[13:]:  # each later ask as policy 25's run measured that lever
        assert later[lever][1] == outcome and abs(later[lever][2] - margin) < 0.004, lever


def test_the_gqa_ladder_runs_from_the_agents_final_to_the_suites_kernel():
    """results/2026-12-06_cpu_gqa_ladder (written, not run): its base is the final both GQA runs ended on, its parts
    together are the suite's ws3_lazy_qp_ot_pm_dm, and ptxas read the 16 B spill on every Q-by-TMA rung."""
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds
    from kernel_src.knobs import Knobs

    final = re.search(r"^summary: .*final kernel (\S+)", (P26 / "gqa64_agent_4.txt").read_text(), re.M)[1]
    assert Knobs.parse(ds.KERNELS[ds.GQ]).label() == final
    every = {k: v for part in ds.GQ_PARTS.values() for k, v in part.items()}
    assert Knobs.parse({**ds.KERNELS[ds.GQ], **every}) == Knobs.parse(ds.KERNELS["ws3_lazy_qp_ot_pm_dm"])
    assert len(ds.GQ_LADDER) == 7 and all(Knobs.parse(ds.KERNELS[n]) for n in ds.GQ_LADDER)
    static = dict(ln.split(" ", 1) for ln in (RESULTS / "2026-12-06_cpu_gqa_ladder" / "static.txt").read_text().splitlines()[1:])
    assert all(v.split()[1] == ("16" if "_qp_" in n else "0") for n, v in static.items())
