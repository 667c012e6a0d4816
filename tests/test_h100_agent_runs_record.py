"""The H100 records: `run --budget 20` from the naive seed on a fresh database at four suite shapes
(results/2026-12-05_h100_agent_runs), each recording replayed with no GPU to the printed history, each run's
own row against SDPA cuDNN the README's (three of four at >= 1.0x, N512 D64 below), policy 22's levers' margins; the
suite against cuDNN (2026-12-05_h100_suite22: 10 of 11) and N512 D64's screen and ncu pages (2026-12-05_h100_n512)."""
import json
import re
import tarfile

from recorded import RESULTS, agent_runs_fixture, assert_replayed_as_printed, printed_history, read_record

HERE = RESULTS / "2026-12-05_h100_agent_runs"
# run -> (x cuDNN in the run's summary, the final kernel's tile)
RUNS = {"n512": (0.934, "t192x128w12"), "gqa": (1.026, "t128x128w8"), "d64": (1.098, "t192x128w12"),
        "d128": (1.021, "t128x128w8")}
replayed = agent_runs_fixture(HERE, RUNS)


def test_each_run_replays_to_the_history_the_device_printed(replayed):
    assert_replayed_as_printed(HERE, replayed, *RUNS[replayed[0]])


def test_policy_22s_levers_on_this_card():
    """The hoisted descriptors kept at N512 D64 (1.0134) and N8192 D64, lost at N2048 D128 (0.9932); items from a
    counter kept at causal N1024 GQA (1.0318)."""
    got = {n: {lv: (o, m) for lv, o, m in printed_history(HERE / f"{n}_agent_4.txt")} for n in RUNS}
    assert got["n512"]["ws_hoisted_descriptors"] == ("KEPT", 1.0134)
    assert got["d64"]["ws_hoisted_descriptors"] == ("KEPT", 1.0094)
    assert got["d128"]["ws_hoisted_descriptors"] == ("SLOWER", 0.9932)
    assert got["gqa"]["ws_dynamic_items"] == ("KEPT", 1.0318)
    assert (HERE / "gpu.txt").read_text().count("H100 80GB HBM3") == 1
    h200 = (RESULTS / "2026-12-05_h200_n512_policy22" / "n512_agent_4.txt").read_text()
    cut = re.findall(r"^#\d+ lever (\S+) on", h200, re.M)
    asked = [lv for lv, _, _ in printed_history(HERE / "n512_agent_4.txt")]
    assert len(cut) == 15 and asked[:15] == cut  # the H200 run, cut at its 15th, asked the same levers in order


SUITE, N512 = RESULTS / "2026-12-05_h100_suite22", RESULTS / "2026-12-05_h100_n512"


def _confirmed(path) -> dict[str, tuple[str, float]]:
    """shape -> (best kernel, ours over cuDNN in the confirm pair), from a plan-`best` record."""
    return {r["shape"]: (r["best"], r["confirm"]["summary"][f"cudnn:{r['best']}"]["margin"]) for r in read_record(path)}


def test_the_h100_suite_ten_of_eleven_as_printed():
    got = {**_confirmed(SUITE / "best_a.json"), **_confirmed(SUITE / "best_b.json")}
    assert len(got) == 11 and sorted(k for k, (_, m) in got.items() if m < 1) == ["B16-H16-N512-D64-float16-noncausal"]
    assert got["B16-H16-N512-D64-float16-noncausal"] == ("ws3_lazy_qp_ot_pm_dm", 0.9255)
    assert got["B8-H32-Hkv8-N1024-D128-bfloat16-causal"][0] == "ws_op_lazy_qp_hf_w_ot_pm_dy"
    printed = (SUITE / "best_a.log").read_text() + (SUITE / "best_b.log").read_text()
    for key, (best, m) in got.items():  # the table each part printed is its record's
        assert re.search(rf"^{key} \| {best} \(pass\) \| {m:.3f} ", printed, re.M), key
    assert re.findall(r"failures (\d+)", (SUITE / "tier.txt").read_text()) == ["0", "0"]
    assert all("H100 80GB HBM3" in (SUITE / f).read_text() for f in ("gpu.txt", "gpu_b.txt"))


def test_the_suite_screen_took_no_heaviest_first_kernel_at_n512_and_now_takes_the_named_ones():
    (before,) = [r for r in read_record(SUITE / "best_a.json") if r["shape"].startswith("B16-H16-N512")]
    (after,) = read_record(N512 / "n512_best.json")
    screened = lambda r: {k.split(":", 1)[1] for k in r["screen"]["summary"] if k.startswith("cudnn:")}  # noqa: E731
    assert len(screened(before)) == 6 and not any("_hf" in n for n in screened(before))
    assert len(screened(after)) == 16 and "ws3_lazy_qp_hf_ot_ts_s3_dm" in screened(after)
    margins = {n: after["screen"]["summary"][f"cudnn:{n}"]["margin"] for n in screened(after)}
    assert max(margins.values()) < 0.95 and max(margins, key=margins.get) == after["best"] == "ws3_lazy_qp_ot_ts_s3_dy"


def test_ncu_beside_cudnn_at_n512_as_the_readme_reads_it():
    with tarfile.open(N512 / "n512_anatomy.tgz") as t:
        rows = json.load(t.extractfile("./anatomy.json"))
    ours = {r["ours"]: r for r in rows if r["kernel"].startswith("void fa::")}
    cudnn = next(r for r in rows if "64x128x64_4x1x1" in r["kernel"])
    pad, skip = ours["ws3_lazy_qp_ot_pm_dm"], ours["ws3_lazy_qp_hf_ot_ts_s3_dm"]
    gmma, xu = "sm__inst_executed_pipe_tensor_op_gmma.sum", "sm__inst_executed_pipe_xu.sum"
    assert pad[gmma] / cudnn[gmma] == 1.125 and round(pad[xu] / cudnn[xu], 2) == 1.16 and skip[gmma] == cudnn[gmma]
    idle = lambda r: 1 - r["sm__cycles_active.avg"] / r["gpc__cycles_elapsed.max"]  # noqa: E731
    assert (round(idle(cudnn), 2), round(idle(pad), 2), round(idle(skip), 2)) == (0.08, 0.11, 0.15)
    assert (round(pad["dram__bytes_read.sum"] / 1e6, 1), round(skip["dram__bytes_read.sum"] / 1e6, 1)) == (50.4, 102.5)


def test_the_two_consumer_kernel_does_cudnns_work_more_slowly_as_the_readme_reads_it():
    with tarfile.open(N512 / "two_consumers.tgz") as t:
        rows = json.load(t.extractfile("./anatomy.json"))
    by = {(r["ours"], r["kernel"].startswith("void fa::")): r for r in rows}
    ours, cudnn = by[("ws_op_lazy_qp_ot_pr_pk", True)], by[("ws_op_lazy_qp_ot_pr_pk", False)]
    launch = ("launch__block_size", "launch__registers_per_thread", "launch__grid_size")
    assert [ours[k] for k in launch] == [cudnn[k] for k in launch] == [384, 168, 132]
    inst, issue = "smsp__inst_executed.sum", "smsp__issue_active.avg.pct_of_peak_sustained_active"
    assert abs(ours[inst] / cudnn[inst] - 1) < 0.012 and (ours[issue], cudnn[issue]) == (37.81, 45.95)
    fam = (N512 / "families.txt").read_text().split("ws_op_lazy_qp_ot_pr_pk_sass.csv")[1]
    assert "barrier         11.5%  WARPSYNC.ALL 6.5%, WARPGROUP.DEPBAR.LE 4.5%" in fam
    assert "long_sb         13.4%  BRA 12.5%" in fam


def test_the_two_consumer_moves_pair_with_their_base_and_their_call_names_them():
    import subprocess

    from recorded import device_pairs

    kernels = device_pairs("_npp", ["ws_op_lazy_qp_ot_pr_pk"], pingpong="on")
    assert kernels["ws_op_lazy_qp_ot_pr_pk_tree"] == {**kernels["ws_op_lazy_qp_ot_pr_pk"], "row_max": "tree"}
    here = RESULTS / "2026-12-05_cpu_n512_h100"
    call = (here / "device_call_two_consumers_moves.sh").read_text()
    assert '--move "$B>${B}_tree" --move "$B>${B}_npp"' in call and "B=ws_op_lazy_qp_ot_pr_pk" in call
    assert subprocess.run(["bash", "-n", str(here / "device_call_two_consumers_moves.sh")]).returncode == 0
    static = (here / "static_two_consumers.txt").read_text()
    assert "ws_op_lazy_qp_ot_pr_pk_npp: registers 168 spill_bytes 0" in static and static.count("spill_bytes 0") == 3
