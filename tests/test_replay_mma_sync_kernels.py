"""The mma.sync kernels at and past SDPA flash (FlashAttention-2) on the H200, read or replayed without a GPU: the
FA2-era winners stacked, unrolled K/V copies (copies=unrolled) with their tier, margin table and compiler
figures, the kernels at N8192, causal and D=64 against SDPA flash in fresh processes, and exp_poly's tiers and
margin table. The replays reuse each recording's own options."""
import re

import pytest
from recorded import RESULTS, outcomes, recorded, recordings_fixture, read_record
from recorded import replay as _replay

from kernel_src.covering import covering_set
from kernel_src.knobs import Knobs

STACKED_RUNS = RESULTS / "2026-11-30_h200_wgmma_first_battery"  # the FA2-era winners stacked on the agent's N8192 kernel
UNROLLED_RUNS = RESULTS / "2026-11-30_h200_mma_reaches_flash"  # copies=unrolled; call2/ exp_poly and more processes
stacked_recordings = recordings_fixture(STACKED_RUNS)
unrolled_recordings = recordings_fixture(UNROLLED_RUNS)
poly_recordings = recordings_fixture(UNROLLED_RUNS / "call2")
S5 = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
           q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on")  # 0.902x (naive seed, version 2)
S5U = S5.replace(copies="unrolled")
B64 = S5U.replace(bc=64, persistent="on")  # FlashAttention-2's 128 x 64 on 4 warps, on a persistent grid


def _flash(rows) -> list[float]:
    """Every SDPA flash margin (theirs / ours) a run database holds: the run's own comparator row and each later
    `baseline` process's row."""
    return [r["margin"] for r in rows if r["kind"] == "comparator" and (r["lever"] == "sdpa_flash" or (r["lever"] or "").startswith("flash@"))]


def _final(rows) -> Knobs:
    kept = [r for r in rows if r["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"]) if kept else None


@pytest.mark.parametrize("name, extra, margin", [("stacked_n8192", (), 1.116), ("stacked_c8192", ("--causal",), 0.9837)])
def test_the_stacked_mma_sync_winners_against_sdpa_flash(stacked_recordings, tmp_path, name, extra, margin):
    """The N8192 agent's final kernel (results/2026-11-30_h200_agent_vs_random) with lazy_rescale and softmax_ffma stacked, budget 6,
    wgmma excluded: at N8192 no lever helps and it stays at 0.896x SDPA flash (>= 1.0x not
    reached on mma.sync there); at causal N8192 heaviest_first and smem_epilogue are kept and the final
    kernel runs 301.0 TFLOP/s to SDPA flash's 292.9 (1.017x; the bar there is >= 0.95x)."""
    _, rows = _replay(stacked_recordings / f"{name}_artifacts/run-1/recording.jsonl", tmp_path / f"{name}.db")
    assert outcomes(rows) == outcomes(recorded(STACKED_RUNS, name))
    comparator = next(r for r in rows if r["kind"] == "comparator")
    assert round(comparator["margin"], 4) == margin


def test_the_covering_set_with_unrolled_copies_passed_bitwise_against_loop():
    """scripts/device_ladder.py --copies unrolled: the 60 covering configurations with copies=unrolled and their
    bitwise partners (every bitwise knob off, copies=loop): 120 libraries on 96 shapes, 60 bitwise pairs, 0 failures."""
    s = read_record(UNROLLED_RUNS / "covering_correctness.json")
    assert s["failures"] == [] and len(s["libraries"]) == 120 and len(s["pairs"]) == 60 and len(s["configs"]) == 96
    assert {k.key() for k in covering_set("unrolled")} <= set(s["libraries"])
    assert all("copies=unrolled" in a and "copies=unrolled" not in b for a, b in s["pairs"])
    assert round(s["worst_fraction_of_bound"], 3) == 0.413


@pytest.mark.parametrize("name, libs, pairs, worst", [("poly_half", 17, 8, 0.4532), ("poly_quarter", 17, 8, 0.413),
                                                      ("hopper_poly_half", 48, 37, 0.4532)])
def test_the_tiers_with_exp_poly_passed(name, libs, pairs, worst):
    """--move exp_poly=half / quarter on the covering set (the 9 of 60 configurations with exp=ex2) and --hopper
    --move exp_poly=half: every library on 96 shapes within the tier's bound, the other bitwise knobs paired."""
    s = read_record(UNROLLED_RUNS / "call2" / f"{name}_correctness.json")
    assert s["failures"] == [] and len(s["libraries"]) == libs and len(s["pairs"]) == pairs and len(s["configs"]) == 96
    assert round(s["worst_fraction_of_bound"], 4) == worst
    want = "exp_poly=half" if "half" in name else "exp_poly=quarter"
    assert sum(want in label for label in s["libraries"].values()) >= pairs


def test_unrolled_copies_margin_table(unrolled_recordings, tmp_path):
    """The lever alone against S5 (budget 1, every other lever excluded): KEPT 1.1234 at N8192 fp16 and 1.1188 at
    causal N32768 bf16; the N8192 recording replays to the same outcome. Predicted 1.00-1.15 from the SASS count."""
    for name, margin in (("copies_n8192", 1.1234), ("copies_c32768", 1.1188)):
        rows = recorded(UNROLLED_RUNS, name)
        assert outcomes(rows) == [("unrolled_copies", "KEPT", margin)]
        assert _final(rows) == S5U and Knobs.parse(rows[0]["knobs"]) == S5
    _, rows = _replay(unrolled_recordings / "copies_n8192_artifacts/run-1/recording.jsonl", tmp_path / "c.db", "--seqlen", "8192")
    assert outcomes(rows) == [("unrolled_copies", "KEPT", 1.1234)]


def test_exp_poly_margin_table(poly_recordings, tmp_path):
    """`run --screen` of the two exp_poly levers against S5 unrolled: SLOWER at both problems, more so at half (the
    H200's kernel is issue-bound; the MUFU relief it is for was not measured: no RTX 5090 here)."""
    assert outcomes(recorded(UNROLLED_RUNS, "call2/poly_n8192")) == [("exp_poly_quarter", "SLOWER", 0.9551), ("exp_poly_half", "SLOWER", 0.9242)]
    assert outcomes(recorded(UNROLLED_RUNS, "call2/poly_c32768")) == [("exp_poly_quarter", "SLOWER", 0.9658), ("exp_poly_half", "SLOWER", 0.9031)]
    _, rows = _replay(poly_recordings / "poly_n8192_artifacts/run-1/recording.jsonl", tmp_path / "p.db", "--seqlen", "8192")
    assert outcomes(rows) == [("exp_poly_quarter", "SLOWER", 0.9551), ("exp_poly_half", "SLOWER", 0.9242)]


def test_mma_sync_at_and_past_sdpa_flash_at_n8192(unrolled_recordings, tmp_path):
    """At and past FlashAttention-2, B2 H16 N8192 D128 fp16 non-causal, each margin from its own fresh process:
    S5 unrolled in six (three runs' comparator rows, three `baseline` processes), 1.006-1.012x SDPA flash;
    S5 unrolled on BC 64 with the persistent grid (the BC-64 run's keep) in four, 1.017-1.021x. The 1.05x goal
    is not reached. cuDNN stays 1.94-1.97x ahead (0.51x)."""
    s5u = []
    for name in ("copies_n8192", "stacked_n8192", "call2/poly_n8192", "call2/copies_n8192_b1", "call2/copies_n8192_b2"):
        rows = recorded(UNROLLED_RUNS, name)
        assert (_final(rows) or Knobs.parse(rows[0]["knobs"])) == S5U or name.startswith("call2/copies")
        s5u += _flash(rows) if not name.startswith("call2/copies") else _flash(rows)[1:]  # b1/b2: the baseline row
    b64 = []
    for name in ("stacked64_n8192", "call2/b64_more", "call2/stacked64_n8192_b1", "call2/stacked64_n8192_b2"):
        rows = recorded(UNROLLED_RUNS, name)
        b64 += _flash(rows)[1:] if name.startswith("call2/stacked") else _flash(rows)
    assert _final(recorded(UNROLLED_RUNS, "stacked64_n8192")) == B64 and _final(recorded(UNROLLED_RUNS, "call2/b64_more")) is None
    assert len(s5u) == 6 and len(b64) == 4
    assert all(m < 1 for m in s5u + b64)  # theirs / ours: ours faster in every process
    assert round(1 / max(s5u), 3) == 1.006 and round(1 / min(s5u), 3) == 1.012
    assert round(1 / max(b64), 3) == 1.017 and round(1 / min(b64), 3) == 1.021
    cudnn = [r["margin"] for n in ("stacked_n8192", "call2/stacked64_n8192_b1", "call2/stacked64_n8192_b2", "call2/copies_n8192_b1",
                                   "call2/copies_n8192_b2") for r in recorded(UNROLLED_RUNS, n) if (r["lever"] or "").startswith("cudnn@")]
    assert len(cudnn) == 5 and all(1.94 < m < 1.97 for m in cudnn)
    # the BC-64 kernel's run replays (its persistent grid kept at 1.0621)
    _, rows = _replay(unrolled_recordings / "stacked64_n8192_artifacts/run-1/recording.jsonl", tmp_path / "b.db", "--seqlen", "8192")
    assert ("persistent_grid", "KEPT", 1.0621) in outcomes(rows) and round(_flash(rows)[0], 4) == 0.9814


def test_causal_and_d64():
    """The bar at causal N8192 and at D=64 is >= 0.95x. Causal N8192 fp16 from S5 unrolled: heaviest_first KEPT
    1.1214, 1.116x SDPA flash (one process). D=64 N8192 from S5 unrolled: nothing kept, 0.968x, 0.972x, 0.973x in
    three processes; the BC-64 kernel at D=64: 1.000x (one process). Causal N32768 bf16 (S5 unrolled): 1.003x, 1.002x."""
    c = recorded(UNROLLED_RUNS, "mma_c8192")
    assert ("heaviest_first", "KEPT", 1.1214) in outcomes(c) and round(1 / _flash(c)[0], 3) == 1.116
    d64 = _flash(recorded(UNROLLED_RUNS, "mma_d64")) + _flash(recorded(UNROLLED_RUNS, "call2/mma_d64_b1"))[1:] + _flash(recorded(UNROLLED_RUNS, "call2/mma_d64_b2"))[1:]
    assert [round(1 / m, 3) for m in d64] == [0.968, 0.972, 0.973] and all(1 / m >= 0.95 for m in d64)
    assert round(1 / _flash(recorded(UNROLLED_RUNS, "call2/b64_d64"))[0], 3) == 1.0
    c32 = _flash(recorded(UNROLLED_RUNS, "copies_c32768")) + _flash(recorded(UNROLLED_RUNS, "call2/poly_c32768"))
    assert [round(1 / m, 3) for m in c32] == [1.003, 1.002]


def test_the_recorded_build_checks_of_unrolled_copies():
    """results/2026-11-30_cpu_build_checks: copies=loop compiles to the PTX of the source before the knob (4
    configurations, 3 archs); the key loop of S5 (the 0.902x kernel) on sm_90, loop -> unrolled."""
    same = (RESULTS / "2026-11-30_cpu_build_checks/copies_off_identical.txt").read_text()
    assert same.count(" 0 lines differ") == 4
    text = (RESULTS / "2026-11-30_cpu_build_checks/unrolled_copies.txt").read_text()
    loop = re.search(r"s5_best_t128x32w4\s+sm_90\s+loop\s+(\d+)\s+(\d+)\s+(\d+)", text).groups()
    unrolled = re.search(r"s5_best_t128x32w4\s+sm_90\s+unrolled\s+(\d+)\s+(\d+)\s+(\d+)", text).groups()
    assert loop == ("242", "0", "1033") and unrolled == ("234", "0", "844")
    assert re.search(r"s5_best_t128x64w4\s+sm_90\s+loop\s+255\s+116", text) and re.search(r"s5_best_t128x64w4\s+sm_90\s+unrolled\s+255\s+16", text)
