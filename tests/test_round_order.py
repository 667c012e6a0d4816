"""The order of the persistent schedule's rounds (round_order, kernel_src/fa_fwd.cu): the schedule as a model of it
states it (each item once, in place, turned and snake; with a grid that a head's query tiles divide, a CTA in place
takes one tile of every head, turned all of them; under a causal mask snake evens heaviest first out), and the CPU
record of why (results/2026-12-03_cpu_round_order: the recorded ncu counters at N512 D64 and the predictions), which
this machine computes again."""
import subprocess
import sys
from pathlib import Path

import pytest

from recorded import load_script

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-03_cpu_round_order"
model = load_script(REC / "schedule_model.py")


@pytest.mark.parametrize("total", [1, 131, 132, 133, 768, 1408, 1376, 5000])
@pytest.mark.parametrize("grid", [1, 7, 78, 132])  # the grid is min(items, CTAs resident): any SM count
def test_every_item_is_run_once_in_each_round_order(total, grid):
    grid = min(grid, total)
    for rounds in model.ROUNDS:
        got = sorted(i for c in range(grid) for i in model.items_of(c, total, rounds, grid))
        assert got == list(range(total)), rounds
        for c in range(grid):  # a CTA's items, one a round
            its = model.items_of(c, total, rounds, grid)
            assert all(b // grid == a // grid + 1 for a, b in zip(its, its[1:]))


def test_in_place_a_cta_takes_one_tile_of_every_head_and_turned_every_tile():
    tiles, bh = 3, 256  # B16 H16 N512, 192 rows a tile
    total = tiles * bh
    for c in range(model.G):
        tiles_of = lambda rounds: {model.decode(i, tiles, bh, "launch")[0] for i in model.items_of(c, total, rounds)}
        assert tiles_of("in_place") == {c % tiles} and tiles_of("turned") == {0, 1, 2}
        # turned, neighbouring CTAs still take neighbouring items within a round (a head's tiles at once)
        assert model.items_of(c, total, "turned")[1] == model.G + (c + 1) % model.G
        # snake: the CTA that takes the first item of a round takes the last of the next
        assert model.items_of(c, total, "snake")[:2] == [c, 2 * model.G - 1 - c]


def test_the_record_computes_again_on_this_machine():
    out = subprocess.run([sys.executable, str(REC / "schedule_model.py")], capture_output=True, text=True, check=True).stdout
    assert out == (REC / "schedule_model.txt").read_text()
    # what the README states from it
    assert "tail_rows=skip     busiest   87865 (recorded 87865)  idlest   60088 (recorded 60088)" in out
    assert "launch          turned   skip         82612           1.064                      0.980" in out
    assert "heaviest_first  in_place skip         82612           1.064" in out
    assert "heaviest_first  snake    skip         82612           1.064" in out
    assert "launch          in_place skip         87865           1.000" in out
    rows = {line.split("  ")[1].strip(): line.split()[-9:] for line in out.splitlines() if line.startswith("  B") and "items" not in line
            and len(line.split()) > 12}
    assert rows["B2 H16 N8192 D128 (128 x 128)"][1] == "1.062" and rows["B2 H16 N8192 D128 (128 x 128)"][7] == "1.001"
    assert rows["B2 H16 N4096 D64 (192 x 128)"][1] == "1.149" and rows["B2 H16 N4096 D64 (192 x 128)"][7] == "1.018"
    assert rows["B8 H32/8 N1024 D128 (128 x 128)"][1] == "1.031"  # in place, beside the one recorded causal kernel:
    assert "ws_op_lazy_qp_hf_w_ot_pk at B8 H32/8 N1024 D128 causal: busiest SM / average 1.034" in out


def test_the_diagnosis_notes_uneven_sms_in_the_recorded_profiles(tmp_path):
    """The recorded ncu rows at N512 D64 (../2026-12-03_h200_tail_rows/call1/an.tgz), read as a run reads a profile:
    the kernel with the idle tail warpgroup, whose static schedule gives a third of the CTAs every short item, is
    noted uneven (0.113); the same kernel without it (0.046) and cuDNN beside each (0.034-0.035) are not. A profile
    without the counters (every one recorded before them) reads None and no note."""
    import tarfile

    from profiler.diagnosis import IMBALANCE_NOTE, diagnose, metrics_from_row
    from profiler.ncu import parse_raw_csv

    with tarfile.open(REC.parent / "2026-12-03_h200_tail_rows" / "call1" / "an.tgz") as tf:
        tf.extractall(tmp_path, filter="data")
    read = lambda name: [diagnose(metrics_from_row(r, "sm_90")) for r in
                         parse_raw_csv((tmp_path / "an" / f"B16_H16_N512_D64_fp16__{name}.csv").read_text())]
    cudnn, skip = read("ws3_lazy_qp_ot_pm_ts")
    cudnn2, plain = read("ws3_lazy_qp_ot_pm")
    assert round(skip.sm_imbalance, 3) == 0.113 and skip.sm_imbalance >= IMBALANCE_NOTE
    assert "the SMs' work is uneven: the busiest SM active 96.9% of the kernel's cycles, the average 85.6%" in skip.summary
    assert round(plain.sm_imbalance, 3) == 0.046 and all(round(d.sm_imbalance, 3) in (0.034, 0.035) for d in (cudnn, cudnn2))
    assert all("uneven" not in d.summary for d in (cudnn, cudnn2, plain))
    assert skip.label == plain.label  # a note, not a label
    row = parse_raw_csv((tmp_path / "an" / "B16_H16_N512_D64_fp16__ws3_lazy_qp_ot_pm.csv").read_text())[1]
    old = {k: v for k, v in row.items() if not k.startswith(("sm__cycles_active", "gpc__cycles_elapsed"))}
    assert diagnose(metrics_from_row(old, "sm_90")).sm_imbalance is None


def test_the_survey_of_the_recorded_sm_balance_computes_again():
    """The figures behind profiler.diagnosis.IMBALANCE_NOTE: every recorded row with the counters, ours 0.030-0.071
    but the idle-tail kernel's 0.113, cuDNN 0.031-0.067."""
    out = subprocess.run([sys.executable, str(REC / "sm_balance_survey.py")], capture_output=True, text=True,
                         check=True).stdout
    recorded = (REC / "sm_balance_survey.txt").read_text()
    # the rows of the records there were when it was written compute again; a later record adds its own rows
    assert set(recorded.splitlines()) <= set(out.splitlines())
    imb = {}
    for line in recorded.splitlines():
        f = line.split()
        imb.setdefault(f[2], []).append(float(f[f.index("imbalance") + 1]))
    assert sorted(imb["ours"])[-2:] == [0.071, 0.113] and min(imb["ours"]) == 0.030
    assert min(imb["cuDNN"]) == 0.031 and max(imb["cuDNN"]) == 0.067
