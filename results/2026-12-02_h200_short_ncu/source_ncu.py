#!/usr/bin/env python3
"""A source-level ncu at N512 D64 (B16 H16 fp16, non-causal): per SASS instruction, the warp-state samples of our
two-consumer kernel (ws_op_lazy_qp_w_ot, cuDNN's launch and 1.2x its time: README) and of ws3_lazy_qp_ot, to find
which waits carry the `wait` stall. ncu --section SourceCounters --section WarpStateStats, --clock-control none, into
a report; then its source page as CSV (SASS).

    python3 results/2026-12-02_h200_short_ncu/source_ncu.py OUT_DIR [KERNEL ...]
Writes OUT_DIR/<name>.ncu-rep, OUT_DIR/<name>_source.csv and OUT_DIR/<name>_details.txt."""
import json
import subprocess
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

SHAPE = {"B": 16, "H": 16, "N": 512, "D": 64, "dtype": "float16", "causal": False}


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or ["ws_op_lazy_qp_w_ot", "ws3_lazy_qp_ot"]
    dev = probe()
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch=dev.arch, dtypes=("float16",), dims=(64,),
                          causals=(False, True)) for n in names}
    built = build(list(specs.values()), Path("/tmp/ncucache") / "build")
    for n, s in specs.items():
        b = built[s.key()]
        if not b.ok:
            print(f"{n}: build failed", flush=True)
            continue
        rep = out / n
        t0 = time.time()
        cmd = ["ncu", "--clock-control", "none", "--kernel-name", "regex:fa_fwd", "--launch-skip", "1", "--launch-count",
               "1", "--section", "SourceCounters", "--section", "WarpStateStats", "--import-source", "no", "-f", "-o",
               str(rep), sys.executable, "-m", "profiler.launch", b.library, json.dumps(SHAPE), "3"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=150, cwd=str(ROOT))
        print(f"{n}: profile rc {r.returncode} in {time.time() - t0:.0f} s; {r.stderr[-300:]}", flush=True)
        for page, suffix, extra in (("source", "_source.csv", ["--csv", "--print-source", "sass"]),
                                    ("details", "_details.txt", [])):
            q = subprocess.run(["ncu", "-i", f"{rep}.ncu-rep", "--page", page, *extra], capture_output=True, text=True,
                               timeout=120)
            (out / f"{n}{suffix}").write_text(q.stdout + ("\n# stderr\n" + q.stderr if q.stderr else ""))
            print(f"  {page}: rc {q.returncode}, {len(q.stdout)} chars; {q.stderr[-200:]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
