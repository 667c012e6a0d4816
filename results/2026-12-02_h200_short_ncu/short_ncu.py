#!/usr/bin/env python3
"""ncu of our best N512 D64 kernel beside SDPA cuDNN's at the same shape (B16 H16 N512 D64 fp16, non-causal), with the
profiler's own metrics (profiler.ncu.ncu_command, --clock-control none): where each spends its time, to direct the
kernel work on the shape where ours is 0.936x cuDNN (results/2026-12-02_h200_suite_lead).

    python3 results/2026-12-02_h200_short_ncu/short_ncu.py OUT_DIR [KERNEL ...]   (default: ws2c_ot ws3_lazy_qp_ot)
Writes OUT_DIR/<name>.csv (ncu's raw CSV) and OUT_DIR/short_ncu.json (each one's metrics and diagnosis)."""
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.diagnosis import diagnose, metrics_from_row  # noqa: E402
from profiler.ncu import run_ncu  # noqa: E402

SHAPE = {"B": 16, "H": 16, "N": 512, "D": 64, "dtype": "float16", "causal": False}
SDPA = """
import sys, torch
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = (torch.randn(16, 16, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(4):
        torch.nn.functional.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
"""


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or ["ws2c_ot", "ws3_lazy_qp_ot"]
    dev = probe()
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch=dev.arch, dtypes=("float16",), dims=(64,),
                          causals=(False, True)) for n in names}
    t0 = time.time()
    built = build(list(specs.values()), Path("/tmp/ncucache") / "build")
    print(f"built {sum(built[s.key()].ok for s in specs.values())} of {len(specs)} in {time.time() - t0:.0f} s", flush=True)
    report = {"device": dev.name, "shape": SHAPE, "kernels": {}}
    shape_json = json.dumps(SHAPE)
    runs = {n: ([sys.executable, "-m", "profiler.launch", built[s.key()].library, shape_json, "3"], "fa_fwd", 1)
            for n, s in specs.items() if built[s.key()].ok}
    (out / "sdpa_cudnn.py").write_text(SDPA)
    runs["sdpa_cudnn"] = ([sys.executable, str(out / "sdpa_cudnn.py")], "cudnn|fmha|sdpa|flash|attn", 2)
    for name, (argv, regex, skip) in runs.items():
        t0 = time.time()
        res = run_ncu(argv, dev.arch, timeout=120, kernel_regex=regex, launch_skip=skip, cwd=str(ROOT))
        (out / f"{name}.csv").write_text(res.csv)
        entry = {"returncode": res.returncode, "seconds": round(time.time() - t0, 1), "stderr": res.stderr[-800:]}
        try:
            rows = res.rows()
            row = rows[-1]
            m = metrics_from_row(row, dev.arch)
            d = diagnose(m)
            entry.update(kernel=row.get("Kernel Name"), metrics=m.model_dump(mode="json"),
                         diagnosis=d.model_dump(mode="json"))
            print(f"{name}: {row.get('Kernel Name', '')[:80]}: {d.label} - {d.summary}", flush=True)
        except Exception as e:  # noqa: BLE001 - the CSV is kept whatever the parse says
            entry["parse_error"] = f"{type(e).__name__}: {e}"
            print(f"{name}: rc {res.returncode}, parse error {entry['parse_error']}; {res.stderr[-300:]}", flush=True)
        report["kernels"][name] = entry
        (out / "short_ncu.json").write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
