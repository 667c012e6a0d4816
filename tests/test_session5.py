"""The H200 runs of 2026-11-30's fifth session (results/2026-11-30_h200_session5), read or replayed
without a GPU: the agent (v2) from the naive seed with the whole catalog, the stacked mma.sync
winners at N8192 and causal N8192 (issue 9), the wgmma arm's probe, tier and seeded run (issue 10),
and the one- and two-GPU screens (issue 13). The replays reuse each recording's own options."""
import json
from functools import partial

import pytest
from recorded import RESULTS, outcomes, recorded, recordings_fixture
from test_strategies import _replay

from kernel_src.covering import hopper_set

RES = RESULTS / "2026-11-30_h200_session5"


recordings = recordings_fixture(RES)
_recorded, _outcomes = partial(recorded, RES), outcomes


def test_agent_v2_from_the_naive_seed_replayed_reaches_0_902x_sdpa_flash(recordings, tmp_path):
    """B2 H16 N8192 D128 fp16, budget 20, the whole catalog (wgmma and the FA2 levers among it): ten
    keeps, the wgmma lever NULL then SLOWER on re-screen, the plateau with 4 unspent; the final kernel
    against SDPA flash 306.8 vs 339.8 TFLOP/s in its comparator row (1/1.1087 = 0.902x; agent v1 in
    session 3 stopped at 0.866x)."""
    out, rows = _replay(recordings / "naive_n8192_artifacts/run-1/recording.jsonl", tmp_path / "a.db")
    assert _outcomes(rows) == _outcomes(_recorded("naive_n8192"))
    kept = [r["lever"] for r in rows if r["outcome"] == "KEPT"]
    assert kept == ["tensor_cores", "swizzle", "tall_q_tile_4_warps+narrow_kv_tile+q_from_smem", "cp_async", "exp2",
                    "kv_double_buffer", "softmax_ffma", "lazy_rescale", "padding", "smem_epilogue"]
    wg = [(r["kind"], r["outcome"], round(r["margin"], 4)) for r in rows if r["lever"] == "wgmma"]
    assert wg == [("lever", "NULL", 0.9955), ("rescreen", "SLOWER", 0.8981)]
    comparator = next(r for r in rows if r["kind"] == "comparator")
    assert round(comparator["margin"], 4) == 1.1087 and round(1 / comparator["margin"], 3) == 0.902
    assert "4 of 20 experiments unspent" in out


@pytest.mark.parametrize("name, extra, margin", [("stacked_n8192", (), 1.116), ("stacked_c8192", ("--causal",), 0.9837)])
def test_the_stacked_mma_sync_winners_against_sdpa_flash(recordings, tmp_path, name, extra, margin):
    """The N8192 agent's final kernel of session 3 with lazy_rescale and softmax_ffma stacked, budget 6,
    wgmma excluded: at N8192 no lever helps and it stays at 0.896x SDPA flash (issue 9's >= 1.0x not
    reached on mma.sync); at causal N8192 heaviest_first and smem_epilogue are kept and the final
    kernel runs 301.0 TFLOP/s to SDPA flash's 292.9 (1.017x; issue 9 asks >= 0.95x there)."""
    _, rows = _replay(recordings / f"{name}_artifacts/run-1/recording.jsonl", tmp_path / f"{name}.db")
    assert _outcomes(rows) == _outcomes(_recorded(name))
    comparator = next(r for r in rows if r["kind"] == "comparator")
    assert round(comparator["margin"], 4) == margin


def test_the_wgmma_seeded_v2_run_had_no_lever_to_try(recordings, tmp_path):
    """The defect this run found: seeded on the wgmma arm (t64x64, two stages; 279.8 TFLOP/s to SDPA
    flash's 337.9, 0.818x), agent v2's catalog had no lever that applies to compute=wgmma, so it
    stopped with all 10 experiments unspent. The replay of that v2 recording keeps doing so."""
    out, rows = _replay(recordings / "wgmma_n8192_artifacts/run-1/recording.jsonl", tmp_path / "w.db")
    assert "10 of 10 experiments unspent" in out and not _outcomes(rows)
    assert round(next(r for r in rows if r["kind"] == "comparator")["margin"], 4) == 1.223


def test_the_two_gpu_screen_has_the_one_gpu_screen_s_outcomes_and_replays_in_one_process(recordings, tmp_path):
    """Issue 13 on two H200s: the same 12-lever screen on one GPU and with --gpus 2, each lever's outcome
    equal (side_by_side.md), 224.6 s against 162.4 s of process wall time; the two-GPU recording, with
    each pair judged by the null of the worker that measured it, replays in one process."""
    s = json.loads((RES / "side_by_side.json").read_text())
    text = (RES / "side_by_side.md").read_text()
    assert "Same outcome for 12 of 12 levers" in text
    one, two = _outcomes(_recorded("dask_one_gpu")), _outcomes(_recorded("dask_two_gpus"))
    assert [(a, b) for a, b, _ in one] == [(a, b) for a, b, _ in two] and len(one) == 12
    assert s  # the table's own data, written by scripts/dask_side_by_side.py
    _, rows = _replay(recordings / "dask_two_gpus_artifacts/run-1/recording.jsonl", tmp_path / "d.db")
    assert _outcomes(rows) == two
    first = (RES / "dask_two_gpus_first_attempt_timeout.txt").read_text()
    assert "TimeoutError" in first  # the first attempt, before the fix in agent/distributed.py


def test_the_wgmma_arm_passed_the_tier_and_the_probe_settled_mn_major():
    """scripts/device_ladder.py --hopper: the 20 configurations of kernel_src.covering.hopper_set on
    96 shapes with 9 bitwise pairs, 0 failures. The probe on hashed data: MN-major B at N 128 reads
    LBO as the next 64-wide N tile and SBO as the next 8 K-rows (variant 8 exact, 9 wrong)."""
    s = json.loads((RES / "hopper_correctness.json").read_text())
    assert s["failures"] == [] and len(s["libraries"]) == 20 and len(s["pairs"]) == 9 and len(s["configs"]) == 96
    ran = [k for k in hopper_set() if k.staging.value != "tma" and k.pipeline.value == "off"]  # TMA, pipeline came after
    assert len(ran) == 20 and {k.key() for k in ran} <= set(s["libraries"])
    assert all(label.startswith("wgmma/sw128/") for label in s["libraries"].values())
    probe = {}
    for line in (RES / "wgmma_probe.txt").read_text().splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            probe[d["variant"]] = d
    assert probe[8]["ok"] and not probe[9]["ok"] and all(probe[v]["ok"] for v in (0, 1, 2, 4, 5, 6))
