"""The H100 records of the suite kernels' tier, policy 31's two runs from the naive seed and the pairing's clocks
(results/2026-12-07_h100_tier_policy31), and of the D=64 kernel with its last round streamed at the four D=64 suite
shapes (results/2026-12-07_h100_d64_stream): each read as the README quotes it, the runs replayed with no GPU to the
history and the own rows the H100 printed."""
import gzip
import json
import re
import sys
import tarfile

from recorded import (RESULTS, agent_runs_fixture, assert_best_rows_as_printed, assert_replayed_as_printed,
                      assert_tier_passed, packed_tier, pairing_segments, read_record)

P31, STREAM = RESULTS / "2026-12-07_h100_tier_policy31", RESULTS / "2026-12-07_h100_d64_stream"
H100 = "NVIDIA H100 80GB HBM3, 580.159.04"
G = "ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"


def test_the_tier_of_the_suite_kernels_passed_with_the_last_round_forced():
    assert all(H100 in (P31 / f"gpu_call{i}.txt").read_text() for i in (1, 2))
    assert_tier_passed(packed_tier(P31 / "json.tgz"), {"D64+128": (168, 6, 2), "D64": (84, 7, 3)})
    with tarfile.open(P31 / "json.tgz") as t:
        for forced in ("tf1", "tf3"):  # FA_LAST_ROUND_SPLIT=-1:1 and -1:3: every item split or streamed
            tier = json.load(t.extractfile(f"{forced}/tier.json"))
            assert [tier[k]["failures"] for k in ("D64+128", "D64")] == [[], []]
            assert len(tier["D64+128"]["libraries"]) == 2 and tier["D64"]["libraries"] == [
                "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_st_wu_ls"]
    printed = (P31 / "tier.txt").read_text()
    assert "FA_LAST_ROUND_SPLIT=-1:1" in printed and "FA_LAST_ROUND_SPLIT=-1:3" in printed
    assert printed.count("failures 0: []") == 6 and "**0**" in (P31 / "README.md").read_text()


replayed31 = agent_runs_fixture(P31, {"d8k": None, "d64": None})
OWN_ROWS = {"d8k": (1.056, "t128x176w8"), "d64": (1.184, "t192x128w12")}


def test_policy_31_runs_replay_to_the_h100s_history_and_rows(replayed31):
    x, tile = OWN_ROWS[replayed31[0]]
    assert_replayed_as_printed(P31, replayed31, x, tile, n_experiments=(20,), gpu="NVIDIA H100 80GB HBM3")
    assert f"**{x:.3f}**" in (P31 / "README.md").read_text()


def test_the_d64_run_ends_on_the_suite_kernel_with_its_last_round_streamed():
    """policy 31's D=64 final is `G_ls` of scripts/device_suite.py, the kernel the stream record screens; at D=128 the
    wide key tile was kept at ask 13 and the persistent lever, offered before it, was not offered after it."""
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    from device_suite import KERNELS

    from kernel_src.knobs import Knobs

    final = re.findall(r"final kernel (\S+)", (P31 / "d64_agent_4.txt").read_text())[-1]
    assert Knobs.parse(KERNELS[f"{G}_ls"]).label() == final
    d8k = (P31 / "d8k_agent_4.txt").read_text()
    asks = re.split(r"^#(\d+) ", d8k, flags=re.M)
    by_ask = {int(asks[i]): asks[i + 1] for i in range(1, len(asks), 2)}
    assert by_ask[13].startswith("lever ws_wide_kv_tile") and "KEPT margin 1.0156" in by_ask[13]
    assert "ws_persistent_warp_uniform" in by_ask[12] and "ws_persistent_warp_uniform" not in "".join(
        by_ask[i] for i in range(13, 21))


def test_beside_flash_the_clock_is_higher_under_the_same_power_cap():
    rec, seg = pairing_segments(P31)
    assert "H100" in rec["gpu"]
    assert min(s["sm_mhz"] for s in seg["flash"]) > 1.09 * max(s["sm_mhz"] for p in ("cudnn", "self") for s in seg[p])
    assert min(s["tflops_ours"] for s in seg["flash"]) > 1.07 * max(s["tflops_ours"] for s in seg["self"])
    readme = (P31 / "README.md").read_text()
    for p, col in (("self", "itself"), ("cudnn", "SDPA cuDNN"), ("flash", "SDPA flash")):
        a, b = seg[p]
        assert f"| {col} | {a['tflops_ours']} / {b['tflops_ours']} |" in readme
        assert f"| {a['sm_mhz']} / {b['sm_mhz']} |" in readme
    assert [round(s["margin"], 4) for s in seg["cudnn"]] == [1.1084, 1.1087] and "1.1084 / 1.1087" in readme


D64_ROWS = {"B2-H16-N8192-D64-float16-noncausal": (f"{G}_ls", 1.184, 508),
            "B16-H16-N512-D64-float16-noncausal": ("ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd", 1.000, 344),
            "B2-H16-N4096-D64-bfloat16-causal": (f"{G}_ls", 1.097, 400),
            "B8-H16-Hkv4-N2048-D64-float16-noncausal": (G, 1.137, 478)}


def test_the_streamed_d64_kernel_at_the_four_d64_shapes_as_the_readme_quotes_it():
    assert all(H100 in (STREAM / f"gpu_call{i}.txt").read_text() for i in (1, 2))
    with tarfile.open(STREAM / "json.tgz") as t:
        tier = json.load(t.extractfile("tier/tier.json"))
        assert json.load(t.extractfile("best/best.json")) == read_record(STREAM / "best.json")  # best.json.gz: a copy
    assert tier["D64"]["libraries"] == [f"{G}_ls"] and tier["D64"]["failures"] == [] and len(tier["D64"]["configs"]) == 84
    assert_best_rows_as_printed(STREAM, D64_ROWS, STREAM / "README.md")


def test_the_stream_on_g_pays_at_n8192_and_loses_at_n2048_gqa():
    m = json.loads(gzip.decompress((STREAM / "margins.json.gz").read_bytes()))
    pairs = {k.split("-float")[0]: round(v["margin"], 4) for k, v in m["margins"].items() if "warmup" not in k}
    assert pairs == {"B2-H16-N8192-D64": 1.0442, "B8-H16-Hkv4-N2048-D64": 0.9940}
    assert all(abs(x - 1) < 2e-4 for xs in m["aa"].values() for x in xs)
    readme = (STREAM / "README.md").read_text()
    assert "**1.0442**" in readme and "**0.9940**" in readme and "0.99993-0.99997" in readme


def test_policy_32_builds_the_persistent_lever_from_176_keys():
    """Policy 32: ws_persistent_warp_uniform goes back to 128 keys, so from policy 31's N8192 D128 final on the H100 (176
    keys, one item a CTA) it builds the suite's persistent warp-uniform kernel but for the 40-register producer, P's
    pack and the evict-last hint; as policy 31 read it, that move needs more shared memory than a CTA has. Read from
    the run's recording (results/2026-12-07_cpu_policy32): the lever first at ask 15, and the only change from policy
    31's reading of the same states."""
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    from device_suite import KERNELS

    from agent import levers
    from agent.policy import POLICIES
    from agent.replay.catalog import as_read_by
    from kernel_src.knobs import Knobs

    assert POLICIES[32].model_copy(update={"version": 31}) == POLICIES[31]
    final = Knobs.parse(KERNELS["ws_op_bc176_lazy"]).replace(pv_wide="on", o_store="tma_in_q", kv_l2_hint="evict_last",
                                                             desc_math="hoisted")
    assert f"final kernel {final.label()}" in (P31 / "d8k_agent_4.txt").read_text()
    lv = levers.get("ws_persistent_warp_uniform")
    as31 = next(x for x in as_read_by(POLICIES[31]) if x.name == lv.name)
    assert lv.applies_to(final, causal=False, head_dim=128, seqlen=8192, dtype="float16")
    assert lv.apply(final).diff(Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot_pr_pk_dm_wu"])) == {
        "ws_producer_regs": (0, 40), "p_pack": ("after", "with_exp"), "kv_l2_hint": ("evict_last", "none")}
    assert lv.apply(final).smem_bytes(128) == 196_704 and as31.apply(final).smem_bytes(128) == 245_856 > 232_448
    assert as31.sets == {k: x for k, x in lv.sets.items() if k != "bc"} and "bc" not in as31.requires
    here = RESULTS / "2026-12-07_cpu_policy32"
    r32, r31 = ((here / f).read_text().splitlines() for f in ("first_choices.txt", "first_choices_policy31.txt"))
    # offered at asks 11-13 by both; from 176 keys (ask 14 on) by policy 32 alone, first at ask 15
    assert r32[6].startswith("  ask 15: ws_persistent_warp_uniform, ") and r31[6].startswith("  ask 15: lazy_rescale, ")
    assert all("ws_persistent_warp_uniform" in x for x in r31[2:5]) and not any("persistent" in x for x in r31[5:12])
    def strip(line: str) -> list[str]:  # the names that are not the lever (or a compound of it)
        head, _, names = re.sub(r" \(first measured .*\)$", "", line).partition(": ")
        return [head, *[n for n in names.split(", ") if "ws_persistent_warp_uniform" not in n]]

    # the rest of each ask's first five as policy 31 ranked them
    assert len(r32) == len(r31) and all(strip(b)[:len(strip(a))] == strip(a) for a, b in zip(r32, r31))
