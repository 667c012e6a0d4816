"""Where the N512 D64 kernel with the decoded slot waits (ncu's samples per SASS instruction on an H100,
results/2026-12-06_h100_n512_epilogue) and the prefetch aimed at its wait for an item's Q, a negative
(knob next_prefetch, results/2026-12-06_h100_next_prefetch)."""
import json
import re
import subprocess
import sys
import tarfile

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, device_pairs, suite_margins

NCU = RESULTS / "2026-12-06_h100_n512_epilogue"
NP = RESULTS / "2026-12-06_h100_next_prefetch"
B = "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw"


def test_the_waits_by_barrier_read_again_from_the_committed_source_page():
    csv_gz = next(NCU.glob("*_sass.csv.gz"))
    out = subprocess.run([sys.executable, str(NCU / "waits.py"), str(csv_gz)], capture_output=True, text=True,
                         check=True).stdout
    assert out == (NCU / "waits.txt").read_text()
    shares = dict(re.findall(r"^  (0x[0-9a-f]+): +\d+ samples \( ?([\d.]+)%\)", out, re.M))
    assert shares["0x24460"] == "5.3" and shares["0x24400"] == "4.8" and shares["0x24418"] == "4.2"


def test_our_sms_do_less_than_cudnns_and_idle_more():
    cudnn, ours = json.loads((NCU / "anatomy.json").read_text())
    assert cudnn["kernel"].startswith("cudnn_") and ours["kernel"].startswith("void fa::fa_fwd_kernel")
    assert ours["sm__cycles_active.avg"] < cudnn["sm__cycles_active.avg"]  # 76.5 k against 78.1 k
    assert ours["gpc__cycles_elapsed.max"] > cudnn["gpc__cycles_elapsed.max"]  # 87.0 k against 84.6 k
    idle = [1 - r["sm__cycles_active.avg"] / r["gpc__cycles_elapsed.max"] for r in (cudnn, ours)]
    assert round(idle[0], 3) == 0.077 and round(idle[1], 3) == 0.120


def test_the_next_items_prefetch_is_the_decoded_slots_and_lost_at_n512():
    device_pairs("_sd_np", [f"{B}_el", f"{B}_el_dl"], slot_item="index", next_prefetch="off")
    with pytest.raises(KnobError, match="next_prefetch'=on .* needs slot_item=decoded and q_load=tma"):
        Knobs.parse({**Knobs.parse({}).model_dump(mode="json"), "next_prefetch": "on"})
    m = suite_margins(NP / "json.tgz")
    n512 = "B16-H16-N512-D64"
    assert m[n512, f"{B}_el_sd->{B}_el_sd_np"] == 0.9579 and m[n512, f"cudnn->{B}_el_sd_np"] == 0.9514
    assert m[n512, f"cudnn->{B}_el_sd"] == 1.0016
    with tarfile.open(NP / "json.tgz") as tf:
        tier = json.load(tf.extractfile("tier/tier.json"))
    assert all(s["failures"] == [] for s in tier.values())
    assert "exit 124" in (NP / "margins_gqa.txt").read_text()  # not measured at GQA
