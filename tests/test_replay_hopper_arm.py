"""The Hopper arm's H200 records, read or replayed without a GPU: the wgmma probe and the arm's first battery,
the wgmma-seeded run that had no lever to try, the tier with TMA and the arm's pipeline, the arm's kernels past
SDPA flash, the agent's plateau short of the TMA tile, the tier with kv_release, the arm against SDPA flash and
cuDNN, the margin table of the arm's levers, and the producer's wait with ping-pong. The replays reuse each
recording's own options (the agent version it ran)."""
import json

from recorded import RESULTS, opened, outcomes, recorded, recordings_fixture, read_record
from recorded import replay as _replay

from agent.levers import CATALOG
from agent.strategies.base import State
from agent.strategies.limiter import LimiterAgent
from kernel_src.arch import limits
from kernel_src.covering import hopper_set
from kernel_src.knobs import Knobs
from store import queries as q
from store.db import open_db

FIRST_ARM = RESULTS / "2026-11-30_h200_wgmma_first_battery"  # the wgmma probe, the arm's first battery, the wgmma-seeded run
TMA_ARM = RESULTS / "2026-11-30_h200_tma_pipeline_tier"  # TMA and the arm's pipeline: the tier, the runs past SDPA flash
RELEASE_ARM = RESULTS / "2026-11-30_h200_kv_release_ws"  # kv_release, the arm against cuDNN, its margin table, call2/
first_arm_recordings = recordings_fixture(FIRST_ARM)
tma_arm_recordings = recordings_fixture(TMA_ARM)
release_arm_recordings = recordings_fixture(RELEASE_ARM)
ARM = ("compute=wgmma layout=sw128 staging=tma exp=ex2 q_in=smem br=128 warps=8 bc=64 kv_stages=2 "
       "rescale_skip=on rescale_lazy=on").split()  # the 1.743x kernel (TMA_ARM/tma_t128_n8192)


def _first_comparator(rows) -> dict:
    return next(r for r in rows if r["kind"] == "comparator")


def _comparator(rows, lever="sdpa_flash") -> dict:
    return next(r for r in rows if r["kind"] == "comparator" and r["lever"] == lever)


def _rows(path) -> list[dict]:
    db = open_db(path, read_only=True)
    try:
        return q.history(db, 1)
    finally:
        db.close()


def test_the_wgmma_arm_passed_the_tier_and_the_probe_settled_mn_major():
    """scripts/device_ladder.py --hopper: the 20 configurations of kernel_src.covering.hopper_set on
    96 shapes with 9 bitwise pairs, 0 failures. The probe on hashed data: MN-major B at N 128 reads
    LBO as the next 64-wide N tile and SBO as the next 8 K-rows (variant 8 exact, 9 wrong)."""
    s = read_record(FIRST_ARM / "hopper_correctness.json")
    assert s["failures"] == [] and len(s["libraries"]) == 20 and len(s["pairs"]) == 9 and len(s["configs"]) == 96
    ran = [k for k in hopper_set() if k.staging.value != "tma" and k.pipeline.value == "off"]  # TMA, pipeline came after
    assert len(ran) == 20 and {k.key() for k in ran} <= set(s["libraries"])
    assert all(label.startswith("wgmma/sw128/") for label in s["libraries"].values())
    probe = {}
    for line in (FIRST_ARM / "wgmma_probe.txt").read_text().splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            probe[d["variant"]] = d
    assert probe[8]["ok"] and not probe[9]["ok"] and all(probe[v]["ok"] for v in (0, 1, 2, 4, 5, 6))


def test_the_wgmma_seeded_v2_run_had_no_lever_to_try(first_arm_recordings, tmp_path):
    """The defect this run found: seeded on the wgmma arm (t64x64, two stages; 279.8 TFLOP/s to SDPA
    flash's 337.9, 0.818x), agent version 2's catalog had no lever that applies to compute=wgmma, so it
    stopped with all 10 experiments unspent. The replay of that v2 recording keeps doing so."""
    out, rows = _replay(first_arm_recordings / "wgmma_n8192_artifacts/run-1/recording.jsonl", tmp_path / "w.db")
    assert "10 of 10 experiments unspent" in out and not outcomes(rows)
    assert round(next(r for r in rows if r["kind"] == "comparator")["margin"], 4) == 1.223


def test_the_hopper_tier_with_tma_and_the_pipeline_passed():
    """scripts/device_ladder.py --hopper: all 33 configurations of hopper_set (12 TMA, 3 with the arm's
    pipeline) and the two seeds, 35 libraries on 96 shapes (fp16/bf16, D 64/128, causal or not, odd N,
    GQA/MQA) with 22 bitwise pairs (each TMA build against its cp.async build, each pipeline build
    against pipeline off): 0 failures, worst correct error 0.413 of the bound."""
    s = read_record(TMA_ARM / "hopper_correctness.json")
    assert s["failures"] == [] and len(s["libraries"]) == 35 and len(s["pairs"]) == 22 and len(s["configs"]) == 96
    ran = [k for k in hopper_set() if k.kv_release.value == "barrier"]  # kv_release came after this run
    assert len(ran) == 33 and {k.key() for k in ran} <= set(s["libraries"])
    assert sum("/tma/" in label for label in s["libraries"].values()) == 12
    assert round(s["worst_fraction_of_bound"], 3) == 0.413


def test_the_tma_two_warpgroup_kernel_runs_1_74x_sdpa_flash_non_causal(tma_arm_recordings, tmp_path):
    """The arm's bar (>= 1.25x SDPA flash, paired, B2 H16 N8192 D128 fp16 non-causal): from the seed
    wgmma/sw128/tma/ex2/t128x64w8/kv_stages=2/q_in=smem (508 TFLOP/s), lazy_rescale kept 1.0382; the
    final kernel against SDPA flash 563.6 vs 319.6 TFLOP/s in its comparator row (margin 0.5737, AB
    0.5823 / BA 0.5547: 1.743x). Warp specialisation is not in it: one synchronous kernel per
    warpgroup, TMA loads by one thread."""
    _, rows = _replay(tma_arm_recordings / "tma_t128_n8192_artifacts/run-1/recording.jsonl", tmp_path / "t.db")
    assert outcomes(rows) == outcomes(recorded(TMA_ARM, "tma_t128_n8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["lazy_rescale"]
    c = _first_comparator(rows)
    assert round(c["margin"], 4) == 0.5737 and 1 / c["margin"] >= 1.25
    assert round(c["tflops_base"], 1) == 563.6 and round(c["tflops_cand"], 1) == 319.6


def test_tma_against_cp_async_on_the_two_warpgroup_tile(tma_arm_recordings, tmp_path):
    """The same tile from cp.async: narrow_kv_tile kept 1.0837, then tma kept 1.2526 (C2 bitwise); the
    final kernel 399.3 vs SDPA flash 337.7 TFLOP/s (1.187x). TMA at BC 64 (the run above) is faster
    still: the seeds read 309.7 (cp.async) and 508.3 (TMA) TFLOP/s, in different runs."""
    _, rows = _replay(tma_arm_recordings / "cpa_t128_n8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db")
    assert outcomes(rows) == [("narrow_kv_tile", "KEPT", 1.0837), ("tma", "KEPT", 1.2526)]
    assert round(_first_comparator(rows)["margin"], 4) == 0.8422


def test_the_tma_seed_at_causal_n8192_keeps_the_two_warpgroup_tile(tma_arm_recordings, tmp_path):
    """Causal N8192 from the TMA seed t64x64: tall_q_tile (two consumer warpgroups) kept 1.1437 and
    heaviest_first 1.0875; every compound back to cp.async lost (0.55-0.58). Final 512.9 vs SDPA flash
    277.3 TFLOP/s (1.833x)."""
    _, rows = _replay(tma_arm_recordings / "tma_c8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db")
    assert outcomes(rows) == outcomes(recorded(TMA_ARM, "tma_c8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["tall_q_tile", "heaviest_first"]
    assert round(_first_comparator(rows)["margin"], 4) == 0.5457


def test_agent_v3_from_the_wgmma_seed_stopped_on_the_plateau_short_of_the_tma_tile(tma_arm_recordings, tmp_path):
    """The defect of this run: after kv_overlap was kept (1.1100) the diagnosis read `unknown` (tensor
    pipe 34.4%, not_selected 27%, wait 21%, dispatch_stall 17%), tma no longer applied (it needs
    kv_overlap off) and tall_q_tile was predicted 0.995 for its CTAs/SM 3 -> 1, so the plateau stopped
    it at 0.906x SDPA flash with 8 of 14 unspent. The v3 replay keeps doing so."""
    out, rows = _replay(tma_arm_recordings / "wgmma_n8192_artifacts/run-1/recording.jsonl", tmp_path / "w.db")
    assert outcomes(rows) == outcomes(recorded(TMA_ARM, "wgmma_n8192"))
    assert [r["lever"] for r in rows if r["outcome"] == "KEPT"] == ["kv_overlap"]
    assert "8 of 14 experiments unspent" in out and "tall_q_tile: predicted 0.995" in out
    assert round(_first_comparator(rows)["margin"], 4) == 1.1035


def test_the_hopper_tier_with_kv_release_passed():
    """scripts/device_ladder.py --hopper: the 40 configurations of hopper_set (7 new: kv_release
    last_warp x4, producer x3, each paired bitwise with its barrier build) and the seeds, 43 libraries
    on 96 shapes with 29 bitwise pairs: 0 failures, worst correct error 0.413 of the bound."""
    s = read_record(RELEASE_ARM / "hopper_correctness.json")
    assert s["failures"] == [] and len(s["libraries"]) == 43 and len(s["pairs"]) == 29 and len(s["configs"]) == 96
    ran = [k for k in hopper_set() if getattr(getattr(k, "pingpong", None), "value", "off") == "off"]
    assert len(ran) == 40 and {k.key() for k in ran} <= set(s["libraries"])
    released = [label for label in s["libraries"].values() if "kv_release=" in label]
    assert sum("kv_release=last_warp" in x for x in released) == 4 and sum("kv_release=producer" in x for x in released) == 3
    assert round(s["worst_fraction_of_bound"], 3) == 0.413


def test_the_arm_against_sdpa_flash_and_cudnn_paired_in_three_processes():
    """The arm's bar and stretch (>= 0.9x cuDNN), `baseline --backend flash --backend cudnn` in the same process, three
    fresh processes on one H200 (device_call_cudnn.sh.as_run): the kernel of release_t128_n8192 (the
    1.743x kernel plus softmax_ffma, kept 1.0567) against SDPA flash margin 0.5392-0.5414 (1.85x)
    and SDPA cuDNN 1.0627-1.0658 (0.938-0.941x cuDNN, stretch >= 0.9x). The 1.743x kernel alone in
    the first call: cuDNN 1.1169 (0.895x), AB 1.172 / BA 1.051."""
    got = []
    for i in (1, 2, 3):
        db = open_db(opened(RELEASE_ARM / f"baseline_release_{i}.db.gz"), read_only=True)
        try:
            rows = q.history(db, 1)
        finally:
            db.close()
        flash = _comparator(rows, "flash@B2-H16-N8192-D128-float16-noncausal")
        cudnn = _comparator(rows, "cudnn@B2-H16-N8192-D128-float16-noncausal")
        assert 1 / flash["margin"] >= 1.25 and 1 / cudnn["margin"] >= 0.9
        got.append((round(flash["margin"], 4), round(cudnn["margin"], 4)))
        assert "best wgmma/sw128/tma/ex2/t128x64w8/kv_stages=2/q_in=smem/rescale_skip=on/softmax=fused/rescale_lazy=on" \
            in (RELEASE_ARM / f"baseline_release_{i}.txt").read_text()
    assert got == [(0.5397, 1.0634), (0.5392, 1.0658), (0.5414, 1.0627)]
    db = open_db(RELEASE_ARM / "baseline_tma_t128.db.gz", read_only=True)
    try:
        first = _comparator(q.history(db, 1), "cudnn@B2-H16-N8192-D128-float16-noncausal")
    finally:
        db.close()
    assert round(first["margin"], 4) == 1.1169 and 1 / first["margin"] < 0.9


def test_the_arm_kernel_that_reaches_0_94x_cudnn_and_its_run(release_arm_recordings, tmp_path):
    """release_t128_n8192, agent version 4 on the 1.743x kernel, budget 3: the barrier_bound reading
    brought last_warp_refill first (SLOWER 0.9279), softmax_ffma kept 1.0567, last_warp_refill
    re-screened SLOWER 0.8953. Final 592.1 vs SDPA flash 318.6 TFLOP/s (1.842x)."""
    _, rows = _replay(release_arm_recordings / "release_t128_n8192_artifacts/run-1/recording.jsonl", tmp_path / "r.db")
    assert outcomes(rows) == [("last_warp_refill", "SLOWER", 0.9279), ("softmax_ffma", "KEPT", 1.0567),
                               ("last_warp_refill", "SLOWER", 0.8953)]
    c = _comparator(rows)
    assert round(c["margin"], 4) == 0.5428 and round(c["tflops_base"], 1) == 592.1


def test_the_margin_table_of_the_arms_levers(release_arm_recordings, tmp_path):
    """Every single lever that applies to the arm's kernel (14, agent version 4's singles at that seed on
    sm_90), screened against it at N8192 fp16: softmax_ffma KEPT 1.0439; store_streaming and
    store_write_through NULL; the rest SLOWER, warp specialisation included (last_warp_refill 0.9181,
    producer_warpgroup 0.7226), min_ctas_3 0.1328 (it spills)."""
    _, rows = _replay(release_arm_recordings / "arm_screen_artifacts/run-1/recording.jsonl", tmp_path / "a.db")
    got = outcomes(rows)
    assert got == outcomes(recorded(RELEASE_ARM, "arm_screen"))
    seed = Knobs.parse_assignments(ARM)
    state = State(best=seed, seed=seed, levers=tuple(CATALOG), limits=limits("sm_90"), causal=False, head_dim=128)
    singles = {lv.name for lv, _ in LimiterAgent(version=4)._singles(state)}
    assert {lever for lever, _, _ in got} == singles and len(got) == 14
    table = {lever: (outcome, m) for lever, outcome, m in got}
    assert table["softmax_ffma"] == ("KEPT", 1.0439)
    assert {n for n, (o, _) in table.items() if o == "NULL"} == {"store_streaming", "store_write_through"}
    assert table["last_warp_refill"] == ("SLOWER", 0.9181) and table["producer_warpgroup"] == ("SLOWER", 0.7226)
    assert table["min_ctas_3"] == ("SLOWER", 0.1328)


def test_the_producer_wait_and_pingpong_pass_the_tier_and_what_they_measured():
    """call2/ (one nvidia-h200 call at 381108a): the kv_release tier with the producer's
    empty-mbarrier wait and knob pingpong, 11 configurations, 19 libraries, 15 bitwise pairs, 0
    failures. Against kv_release=barrier on the 0.94x-cuDNN kernel the producer warpgroup is SLOWER
    0.7322 (the spinning form: 0.7226, 0.8042); on the producer kernel pingpong is KEPT 1.0336
    (replicate 1.0407). The release_arm_recordings did not come back, so these are read from the databases."""
    call2 = RELEASE_ARM / "call2"
    tier = (call2 / "hopper_tier.txt").read_text()
    assert "--only kv_release=: 11 configurations" in tier and "96 configurations x 19 libraries + 15 bitwise pairs" in tier
    assert "failures: 0" in tier.splitlines()
    assert sum("kv_release=producer" in k.label() and k.pingpong.value == "on" for k in hopper_set()) >= 1
    prod = [r for r in _rows(call2 / "producer_screen.db.gz") if r["seq"] is not None]
    assert [(r["lever"], r["outcome"], round(r["margin"], 4)) for r in prod] == [("producer_warpgroup", "SLOWER", 0.7322)]
    assert prod[0]["base_knobs"]["softmax"] == "fused" and prod[0]["base_knobs"]["kv_release"] == "barrier"
    ping = [r for r in _rows(call2 / "pingpong_screen.db.gz") if r["seq"] is not None]
    assert [(r["lever"], r["outcome"], round(r["margin"], 4)) for r in ping] == [("pingpong", "KEPT", 1.0336)]
    assert "replicate 1.0407" in ping[0]["detail"] and "C2 passed twice, bitwise equal" in ping[0]["detail"]
    assert ping[0]["base_knobs"]["kv_release"] == "producer" and ping[0]["knobs"]["pingpong"] == "on"
