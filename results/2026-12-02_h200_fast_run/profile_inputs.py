#!/usr/bin/env python3
"""The profiled program's two input paths on one GPU: torch's (the default) against the torch-free one
(FA5090_PROFILE_INPUTS=driver: numpy inputs copied through libcuda, no torch import). Each kernel is profiled
`--repeats` times each way, alternately, through the tool's own ncu command (profiler.ncu.run_ncu on
`python -m profiler.launch`); the record: each profile's wall seconds, the diagnosis label and the metrics the
diagnosis reads (profiler.diagnosis.Diagnosis), so the two paths can be compared against the spread of one path
with itself.

    python3 results/2026-12-02_h200_fast_run/profile_inputs.py --out DIR [--repeats 2]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent.commands.common import _cache_dir  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.problem import Shape  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.diagnosis import diagnose, metrics_from_row  # noqa: E402
from profiler.ncu import parse_raw_csv, run_ncu  # noqa: E402

_spec = importlib.util.spec_from_file_location("device_suite", ROOT / "scripts" / "device_suite.py")
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)

# the rungs a run from the naive seed keeps at the default problem, then the Hopper kernels it reaches
MMA = dict(compute="mma")
KERNELS = {"seed": {}, "mma": MMA, "mma_swizzle": {**MMA, "layout": "swizzle"},
           "mma_swizzle_cp_async": {**MMA, "layout": "swizzle", "staging": "cp_async"},
           "arm": suite.KERNELS["arm"], "ws_op_lazy_w": suite.KERNELS["ws_op_lazy_w"],
           "ws_op_lazy_hf_w_oq": suite.KERNELS["ws_op_lazy_hf_w_oq"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args()
    dev = probe()
    shape = Shape(B=2, H=16, N=2048, D=128, dtype="float16", causal=False)
    specs = {}
    for n, kv in KERNELS.items():
        try:
            specs[n] = BuildSpec(knobs=Knobs.parse(kv), arch=dev.arch, dtypes=(shape.dtype,), dims=(shape.D,),
                                 causals=(False, True))
        except Exception as e:  # a combination the schema refuses: named, not fatal
            print(f"{n}: {e}", flush=True)
    t0 = time.time()
    built = build(list(specs.values()), _cache_dir() / "build")
    out = {"gpu": dev.name, "problem": shape.key(), "build_s": round(time.time() - t0, 1), "kernels": {}}
    for n, spec in specs.items():
        b = built[spec.key()]
        if not b.ok:
            out["kernels"][n] = {"build": b.log[-800:]}
            continue
        rec = out["kernels"][n] = {"knobs": spec.knobs.label(), "torch": [], "driver": []}
        for _ in range(a.repeats):
            for how in ("torch", "driver"):
                env = {**os.environ, "FA5090_PROFILE_INPUTS": how}
                argv = [sys.executable, "-m", "profiler.launch", b.library, shape.model_dump_json()]
                t = time.perf_counter()
                res = run_ncu(argv, dev.arch, timeout=300, env=env, cwd=str(ROOT))
                secs = time.perf_counter() - t
                rows = parse_raw_csv(res.csv)
                if not rows:
                    rec[how].append({"seconds": secs, "error": res.stderr[-600:]})
                    continue
                d = diagnose(metrics_from_row(rows[0], dev.arch),
                             tiles_per_warp=max(1, spec.knobs.br // (16 * spec.knobs.warps)))
                rec[how].append({"seconds": round(secs, 2), "label": d.label, "diagnosis": d.model_dump(mode="json"),
                                 "duration_ns": rows[0].get("gpu__time_duration.sum"), "stderr": res.stderr[-300:]})
        def med(xs):
            xs = sorted(xs)
            return xs[len(xs) // 2] if xs else None
        rec["summary"] = {how: {"seconds": med([r["seconds"] for r in rec[how]]),
                                "labels": sorted({r.get("label") for r in rec[how]}, key=str)} for how in ("torch", "driver")}
        print(n, json.dumps(rec["summary"]), flush=True)
        # after every kernel: a call cut by its time limit keeps what it measured (call 5's lost its file so)
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "profile_inputs.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
