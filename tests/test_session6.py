"""The H200 runs of 2026-11-30's sixth session (results/2026-11-30_h200_session6), read or replayed
without a GPU: the Hopper tier with TMA and the arm's pipeline, the arm's first kernels past SDPA
flash (issue 10), agent v3 from the wgmma seed and the plateau it stopped on (the defect agent v4
answers), the screen of 30 experiments on one GPU and on two (issue 13), and the GPU fault battery
as far as it ran (issue 11). The replays reuse each recording's own options."""
import json
from functools import partial

from recorded import RESULTS, outcomes, recorded, recordings_fixture
from test_strategies import _replay

from kernel_src.covering import hopper_set

RES = RESULTS / "2026-11-30_h200_session6"


recordings = recordings_fixture(RES)
_recorded, _outcomes = partial(recorded, RES), outcomes


def _comparator(rows) -> dict:
    return next(r for r in rows if r["kind"] == "comparator")


def test_the_hopper_tier_with_tma_and_the_pipeline_passed():
    """scripts/device_ladder.py --hopper: all 33 configurations of hopper_set (12 TMA, 3 with the arm's
    pipeline) and the two seeds, 35 libraries on 96 shapes (fp16/bf16, D 64/128, causal or not, odd N,
    GQA/MQA) with 22 bitwise pairs (each TMA build against its cp.async build, each pipeline build
    against pipeline off): 0 failures, worst correct error 0.413 of the bound."""
    s = json.loads((RES / "hopper_correctness.json").read_text())
    assert s["failures"] == [] and len(s["libraries"]) == 35 and len(s["pairs"]) == 22 and len(s["configs"]) == 96
    ran = [k for k in hopper_set() if k.kv_release.value == "barrier"]  # kv_release came after this run
    assert len(ran) == 33 and {k.key() for k in ran} <= set(s["libraries"])
    assert sum("/tma/" in label for label in s["libraries"].values()) == 12
    assert round(s["worst_fraction_of_bound"], 3) == 0.413


def test_the_tma_two_warpgroup_kernel_runs_1_74x_sdpa_flash_non_causal(recordings, tmp_path):
    """Issue 10's bar (>= 1.25x SDPA flash, paired, B2 H16 N8192 D128 fp16 non-causal): from the seed
    wgmma/sw128/tma/ex2/t128x64w8/kv_stages=2/q_in=smem (508 TFLOP/s), lazy_rescale kept 1.0382; the
    final kernel against SDPA flash 563.6 vs 319.6 TFLOP/s in its comparator row (margin 0.5737, AB
    0.5823 / BA 0.5547: 1.743x). Warp specialisation is not in it: one synchronous kernel per
    warpgroup, TMA loads by one thread."""
    _, rows = _replay(recordings / "tma_t128_n8192_artifacts/run-1/recording.jsonl", tmp_path / "t.db")
    assert _outcomes(rows) == _outcomes(_recorded("tma_t128_n8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["lazy_rescale"]
    c = _comparator(rows)
    assert round(c["margin"], 4) == 0.5737 and 1 / c["margin"] >= 1.25
    assert round(c["tflops_base"], 1) == 563.6 and round(c["tflops_cand"], 1) == 319.6


def test_tma_against_cp_async_on_the_two_warpgroup_tile(recordings, tmp_path):
    """The same tile from cp.async: narrow_kv_tile kept 1.0837, then tma kept 1.2526 (C2 bitwise); the
    final kernel 399.3 vs SDPA flash 337.7 TFLOP/s (1.187x). TMA at BC 64 (the run above) is faster
    still: the seeds read 309.7 (cp.async) and 508.3 (TMA) TFLOP/s, in different runs."""
    _, rows = _replay(recordings / "cpa_t128_n8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db")
    assert _outcomes(rows) == [("narrow_kv_tile", "KEPT", 1.0837), ("tma", "KEPT", 1.2526)]
    assert round(_comparator(rows)["margin"], 4) == 0.8422


def test_the_tma_seed_at_causal_n8192_keeps_the_two_warpgroup_tile(recordings, tmp_path):
    """Causal N8192 from the TMA seed t64x64: tall_q_tile (two consumer warpgroups) kept 1.1437 and
    heaviest_first 1.0875; every compound back to cp.async lost (0.55-0.58). Final 512.9 vs SDPA flash
    277.3 TFLOP/s (1.833x)."""
    _, rows = _replay(recordings / "tma_c8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db")
    assert _outcomes(rows) == _outcomes(_recorded("tma_c8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["tall_q_tile", "heaviest_first"]
    assert round(_comparator(rows)["margin"], 4) == 0.5457


def test_agent_v3_from_the_wgmma_seed_stopped_on_the_plateau_short_of_the_tma_tile(recordings, tmp_path):
    """The defect of this run: after kv_overlap was kept (1.1100) the diagnosis read `unknown` (tensor
    pipe 34.4%, not_selected 27%, wait 21%, dispatch_stall 17%), tma no longer applied (it needs
    kv_overlap off) and tall_q_tile was predicted 0.995 for its CTAs/SM 3 -> 1, so the plateau stopped
    it at 0.906x SDPA flash with 8 of 14 unspent. The v3 replay keeps doing so."""
    out, rows = _replay(recordings / "wgmma_n8192_artifacts/run-1/recording.jsonl", tmp_path / "w.db")
    assert _outcomes(rows) == _outcomes(_recorded("wgmma_n8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["kv_overlap"]
    assert "8 of 14 experiments unspent" in out and "tall_q_tile: predicted 0.995" in out
    assert round(_comparator(rows)["margin"], 4) == 1.1035


def test_the_30_experiment_screen_on_two_gpus_has_the_one_gpu_outcomes(recordings, tmp_path):
    """Issue 13: the screen from the mma seed at N8192, budget 30, on one GPU (527 s for the run) and
    with --gpus 2 (335 s): 30 of 30 outcomes equal. Not every lever: 29 of the 30 were compounds, so
    this is not yet the issue's screen of every lever. The two-GPU recording replays in one process."""
    text = (RES / "side_by_side.md").read_text()
    assert "Same outcome for 30 of 30 levers" in text
    one, two = _outcomes(_recorded("dask_one_gpu")), _outcomes(_recorded("dask_two_gpus"))
    assert [(a, b) for a, b, _ in one] == [(a, b) for a, b, _ in two] and len(one) == 30
    assert sum("+" not in lever for lever, _, _ in one) == 1
    _, rows = _replay(recordings / "dask_two_gpus_artifacts/run-1/recording.jsonl", tmp_path / "d.db")
    assert _outcomes(rows) == two


def test_random_search_on_two_gpus_replicated_its_keep_on_the_other_gpu():
    """--strategy random --gpus 2: its first draw kept 1.1092 with the fresh-process replicate run on
    gpu1 and judged by gpu1's own null; the run was cut at the phase's deadline during its second draw."""
    rows = _recorded("random_two_gpus")
    kept = next(r for r in rows if r["kind"] == "sample" and r["outcome"] == "KEPT")
    assert "replicate on gpu1" in kept["detail"] and round(kept["margin"], 4) == 1.1092
    assert "exit 124" in (RES / "random_two_gpus.txt").read_text()


def test_the_gpu_fault_battery_as_far_as_it_ran():
    """Issue 11 on the H200: an illegal address -> CRASH, a side stream -> WRONG, each with the GPU freed
    and the next candidate measured; a hang -> TIMEOUT at a shortened 95.5 s deadline, the GPU freed, the
    next candidate measured (second call). The kill phase made 0 kills: the planning kept 333 s for the
    final resume with 218 s left (a FAIL, recorded as such)."""
    s = (RES / "faults_summary.txt").read_text()
    for fault in ("illegal_address |", "illegal_address: GPU freed", "side_stream |", "side_stream: next candidate"):
        assert any(line.startswith(f"| {fault}") and line.endswith("| PASS |") for line in s.splitlines()), fault
    assert "| SIGKILL x20 at random moments |" in s and "0 kills" in s
    h = (RES / "faults_hang_summary.txt").read_text()
    assert any(line.startswith("| hang |") and "TIMEOUT after 95.7 s" in line and line.endswith("| PASS |")
               for line in h.splitlines())
    assert any(line.startswith("| hang: GPU freed") and line.endswith("| PASS |") for line in h.splitlines())
