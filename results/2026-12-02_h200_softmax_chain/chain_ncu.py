#!/usr/bin/env python3
"""A source-level ncu at N512 D64 (B16 H16 fp16, non-causal) of SDPA's cuDNN kernel and of kernels of
scripts/device_suite.py: per SASS instruction, the warp-state samples and the executed counts (SourceCounters,
WarpStateStats, --clock-control none), each report's source page exported as CSV. The same ncu command as
../2026-12-02_h200_short_ncu/source_ncu.py, with SDPA's cuDNN kernel profiled beside ours (its SASS says how it
spends its instructions per score: MUFU, FMNMX, FADD, FFMA).

    python3 results/2026-12-02_h200_softmax_chain/chain_ncu.py OUT_DIR [NAME ...]   (NAME: a kernel, or sdpa_cudnn)
Writes OUT_DIR/<name>.ncu-rep and OUT_DIR/<name>_source.csv."""
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "results" / "2026-12-02_h200_short_ncu"))

from device_suite import KERNELS  # noqa: E402
from short_ncu import SDPA, SHAPE  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or ["sdpa_cudnn", "ws_op_lazy_qp_w_ot_rt_pr"]
    dev = probe()
    ours = [n for n in names if n != "sdpa_cudnn"]
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch=dev.arch, dtypes=("float16",), dims=(64,),
                          causals=(False, True)) for n in ours}
    built = build(list(specs.values()), Path("/tmp/ncucache") / "build")
    (out / "sdpa_cudnn.py").write_text(SDPA)
    for n in names:
        if n == "sdpa_cudnn":
            argv, regex, skip = [sys.executable, str(out / "sdpa_cudnn.py")], "regex:cudnn|fmha|sdpa|flash|attn", "2"
        else:
            b = built[specs[n].key()]
            if not b.ok:
                print(f"{n}: build failed", flush=True)
                continue
            argv, regex, skip = [sys.executable, "-m", "profiler.launch", b.library, json.dumps(SHAPE), "3"], "regex:fa_fwd", "1"
        rep = out / n
        t0 = time.time()
        cmd = ["ncu", "--clock-control", "none", "--kernel-name", regex, "--launch-skip", skip, "--launch-count", "1",
               "--section", "SourceCounters", "--section", "WarpStateStats", "--import-source", "no", "-f", "-o",
               str(rep), *argv]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=150, cwd=str(ROOT))
        print(f"{n}: profile rc {r.returncode} in {time.time() - t0:.0f} s; {r.stderr[-300:]}", flush=True)
        q = subprocess.run(["ncu", "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", "sass"],
                           capture_output=True, text=True, timeout=120)
        (out / f"{n}_source.csv").write_text(q.stdout + ("\n# stderr\n" + q.stderr if q.stderr else ""))
        print(f"  source: rc {q.returncode}, {len(q.stdout)} chars; {q.stderr[-200:]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
