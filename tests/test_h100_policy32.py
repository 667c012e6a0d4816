"""The H100 record of policy 32 from the naive seed at B2 H16 N8192 D128, with the tier of the suite's kernels (the
streamed D=64 kernel among them), the D=64 rows and the pairing's clocks asked again (results/2026-12-07_h100_policy32):
each read as the README quotes it, the run replayed with no GPU to the history and the own row the H100 printed."""
import json
import re
import sys
import tarfile

from recorded import (RESULTS, agent_runs_fixture, assert_best_rows_as_printed, assert_replayed_as_printed,
                      assert_tier_passed, packed_tier, pairing_segments, read_record)

HERE = RESULTS / "2026-12-07_h100_policy32"
G = "ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"
KS = "ws_op_lazy_qp_w_ot_pr_pk_dm_wu"


def test_the_tier_with_the_streamed_d64_kernel_passed():
    assert all("NVIDIA H100 80GB HBM3, 580.159.04" in (HERE / f"gpu_call{i}.txt").read_text() for i in (1, 2))
    tier = packed_tier(HERE / "json.tgz")
    assert_tier_passed(tier, {"D64+128": (168, 6, 2), "D64": (84, 8, 3)})
    assert f"{G}_ls" in tier["D64"]["libraries"]
    with tarfile.open(HERE / "json.tgz") as t:
        for forced in ("tf1", "tf3"):  # FA_LAST_ROUND_SPLIT=-1:1 and -1:3: every item split or streamed
            f = json.load(t.extractfile(f"{forced}/tier.json"))
            assert [f[k]["failures"] for k in ("D64+128", "D64")] == [[], []]
            assert sorted(f["D64+128"]["libraries"]) == [f"{KS}_lr", f"{KS}_ls"]
            assert sorted(f["D64"]["libraries"]) == [f"{G}_ls", "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls"]
    assert (HERE / "tier.txt").read_text().count("failures 0: []") == 6


D64_ROWS = {"B2-H16-N8192-D64-float16-noncausal": (f"{G}_ls", 1.184, 513),
            "B16-H16-N512-D64-float16-noncausal": ("ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd", 1.000, 345),
            "B2-H16-N4096-D64-bfloat16-causal": (G, 1.096, 403),
            "B8-H16-Hkv4-N2048-D64-float16-noncausal": (G, 1.137, 477)}


def test_the_d64_rows_as_the_readme_quotes_them():
    assert_best_rows_as_printed(HERE, D64_ROWS, HERE / "README.md")
    with tarfile.open(HERE / "json.tgz") as t:
        assert "best/best.json" not in t.getnames()  # kept once, as best.json.gz
    assert read_record(HERE / "best.json")[0]["shape"] == "B2-H16-N8192-D64-float16-noncausal"


def test_the_clock_beside_flash_stands_above_its_value_beside_cudnn_or_itself_again():
    rec, seg = pairing_segments(HERE)
    assert "H100" in rec["gpu"] and rec["kernel"] == f"{KS}_ls"
    others = [s for p in ("cudnn", "self") for s in seg[p]]
    assert min(s["sm_mhz"] for s in seg["flash"]) > 1.08 * max(s["sm_mhz"] for s in others)
    assert max(s["tflops_ours"] for s in others) < 680 < min(s["tflops_ours"] for s in seg["flash"])
    readme = (HERE / "README.md").read_text()
    for p, col in (("self", "itself"), ("cudnn", "SDPA cuDNN"), ("flash", "SDPA flash")):
        a, b = seg[p]
        assert f"| {col} | {a['tflops_ours']} / {b['tflops_ours']} | {a['sm_mhz']} / {b['sm_mhz']} |" in readme
    assert "**1.1075 / 1.1088**" in readme and [s["margin"] for s in seg["cudnn"]] == [1.1075, 1.1088]


replayed = agent_runs_fixture(HERE, {"d8k": None})


def test_policy_32_replays_to_the_h100s_history_and_row(replayed):
    assert_replayed_as_printed(HERE, replayed, 1.108, "t128x128w8", n_experiments=(20,))
    assert "**1.108**" in (HERE / "README.md").read_text()


def test_the_lever_alone_lost_and_the_compound_reached_the_suites_kernel():
    """Policy 32 asked ws_persistent_warp_uniform at ask 15 from 176 keys (SLOWER), then kept the same move with P packed
    with the exponentials at ask 17; the final is the suite's `KS_wu_ls`, label for label."""
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    from device_suite import KERNELS

    from kernel_src.knobs import Knobs

    printed = (HERE / "d8k_agent_4.txt").read_text()
    asks = re.split(r"^#(\d+) ", printed, flags=re.M)
    by_ask = {int(asks[i]): asks[i + 1] for i in range(1, len(asks), 2)}
    assert by_ask[15].startswith("lever ws_persistent_warp_uniform on wgmma/sw128/tma/ex2/t128x176w8/")
    assert "SLOWER margin 0.9672" in by_ask[15] and "(SLOWER; predicted kept at 1.02-1.04: wrong)" in re.sub(
        r"\s+", " ", (HERE / "README.md").read_text()).replace("**0.9672** ", "")
    assert by_ask[17].startswith("compound ws_p_with_exp+ws_persistent_warp_uniform") and "KEPT margin 1.0204" in by_ask[17]
    final = re.findall(r"final kernel (\S+)", printed)[-1]
    assert Knobs.parse(KERNELS[f"{KS}_ls"]).label() == final
