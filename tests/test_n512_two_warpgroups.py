"""The two-warpgroup kernels at B16 H16 N512 D64 on the H200 (results/2026-12-04_h200_n512_two_warpgroups): the call
that results/2026-12-04_cpu_n512_bound wrote, as run. Its tier had no failure, the two-warpgroup kernels read
0.86-0.88x cuDNN (the prediction was 0.95-1.02x), their busiest SM sits within 1.04 of the average (as predicted), and
an item costs more than the bound allows; summary.py reads that back from the recorded files."""
import re
import subprocess
import sys

from recorded import RESULTS

HERE = RESULTS / "2026-12-04_h200_n512_two_warpgroups"


def test_the_call_is_the_one_the_bound_wrote_and_its_tier_passed():
    assert (HERE / "gpu.txt").read_text().startswith("source a932646\n")
    assert "NVIDIA H200" in (HERE / "gpu.txt").read_text()
    tier = (HERE / "tier.txt").read_text()
    assert "136 configurations x 6 kernels + 4 bitwise pairs" in tier and "failures 0: []" in tier
    assert "failed: []" in tier and "exit 0" in tier
    called = [ln[2:] for ln in (HERE / "margins.txt").read_text().splitlines() if ln.startswith("$ ")]
    script = (RESULTS / "2026-12-04_cpu_n512_bound" / "device_call.sh").read_text()
    assert called and "--plan margins" in called[0] and "--plan margins" in script


def test_the_summary_reads_the_recorded_figures():
    out = subprocess.run([sys.executable, str(HERE / "summary.py")], capture_output=True, text=True,
                         check=True).stdout
    assert out == (HERE / "summary.txt").read_text()
    margins = dict(re.findall(r"^  cudnn -> (\S+)\s+(\d\.\d{4})", out, re.M))
    assert margins == {"ws3_lazy_qp_hf_ot_pm_ts_s3": "0.9857", "ws_op_qp_ot_pr": "0.8709",
                       "ws_op_lazy_qp_ot_pr": "0.8648", "ws_op_lazy_qp_ot_pr_pm": "0.8784",
                       "ws_op_lazy_qp_ot_pr_pk": "0.8608"}
    # the prediction: 0.95-1.02x cuDNN (failed) and the busiest SM within 1.04 of the average (held)
    assert all(float(v) < 0.95 for k, v in margins.items() if k.startswith("ws_op"))
    two = re.search(r"^  ws_op_lazy_qp_ot_pr_pm .*$", out, re.M).group(0)
    assert "busiest/average 1.037" in two
    # an item of 128 rows against the bound's 10.1 k cycles and 1.035x the three-warpgroup kernel's cost per row
    assert "busiest / 8 = 11455 (bound 10.1 k)" in two and "per row 89.0 = 1.167x" in two


def test_the_readme_quotes_the_summary():
    readme = (HERE / "README.md").read_text()
    for figure in ("**0.8709**", "**0.8784**", "0.8949 (0.8940 / 0.8962)", "**91,639**", "**1.037**",
                   "**11.5 k cycles an item**", "**1.167x**", "1.66 against 0.86", "0.33 against 0.05"):
        assert figure in readme
