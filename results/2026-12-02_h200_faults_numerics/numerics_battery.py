"""On a GPU: the numerics defect (experiments.defects.NUMERICS: a lazy rescale that lets P reach 2^20, past
fp16's range) evaluated exactly as the search evaluates a candidate (C1 with its hostile patterns, paired timing
with the re-check, C2 twice), cut from three correct kernels whose code its hook reaches: the battery's own
(mma.sync, lazy rescale), the wgmma arm the issue planted it in, and the warp-specialised kernel the tune record
serves. Each beside a control (the correct kernel against itself, which must not be rejected), at fp16
B2 H16 N2048 D128 (the defect is harmless in bf16, which holds 2^20). Also the full battery (every planted defect)
on its own base, so the new hostile inputs are shown not to have loosened anything else.

Usage: python3 numerics_battery.py OUT_DIR
Writes OUT_DIR/numerics_battery.json (after each part) and prints one line per row; exits 1 when a defect is not
rejected or a control is."""

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS  # noqa: E402

from experiments.battery import defect_battery  # noqa: E402
from experiments.defects import LAZY_BASE  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from experiments.problem import Shape  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
dev = probe()
lab = Lab(Shape(B=2, H=16, N=2048, D=128), dev.limits, Path("/tmp/facache"), budget_s=1.0)
T_NOISE = 0.0029  # the instrument's H200 calibration (results/2026-11-30_h200_instrument), as device_tail_battery.py
bases = {"battery (mma.sync)": (LAZY_BASE, LAZY_BASE.bc),
         "wgmma arm": (Knobs.parse(KERNELS["arm"]), KERNELS["arm"]["bc"]),
         "ws_op_lazy_hf_w_oq": (Knobs.parse(KERNELS["ws_op_lazy_hf_w_oq"]), KERNELS["ws_op_lazy_hf_w_oq"]["bc"])}
report = {"device": dev.model_dump(mode="json"), "shape": lab.shape.model_dump(), "t_noise": T_NOISE, "parts": {}}
bad = 0


def record(part: str, rows: list[dict], seconds: float) -> None:
    global bad
    report["parts"][part] = {"seconds": round(seconds, 1), "rows": rows}
    for r in rows:
        ok = r["rejected"] == (r["defect"] != "control")
        bad += not ok
        print(f"{part:22s} BC {r['bc']:3d} {r['defect']:18s} {r['outcome']:11s} rejected={r['rejected']!s:5s} "
              f"{'ok' if ok else 'FAIL'}  caught by {r['caught_by']}  {r['detail'][:110]}", flush=True)
    (out / "numerics_battery.json").write_text(json.dumps(report, indent=1, default=str))


for part, (knobs, bc) in bases.items():
    t0 = time.time()
    record(part, defect_battery(lab, t_keep=1 + T_NOISE, t_noise=T_NOISE, bcs=(bc,), names=("lazy_overflow",),
                                control=True, base=knobs), time.time() - t0)
t0 = time.time()
record("every planted defect", defect_battery(lab, t_keep=1 + T_NOISE, t_noise=T_NOISE, control=True), time.time() - t0)
print(f"{bad} row(s) wrong", flush=True)
sys.exit(1 if bad else 0)
