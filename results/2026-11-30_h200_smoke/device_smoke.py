"""First contact with a GPU machine: build the ladder's rungs with the real build path, run the
correctness tier on each (every dtype/D/mask mode), time each rung paired against the one
before, and run ncu once with the profiler's metric list. Writes JSON lines to argv[1]."""

import json
import sys
import time
from pathlib import Path

from experiments.device import probe
from experiments.lab import Lab
from experiments.problem import Shape, c1_shapes
from kernel_src.knobs import Knobs

out = open(sys.argv[1], "w")
cache = Path(sys.argv[2])


def emit(**kw):
    print(json.dumps(kw), flush=True)
    out.write(json.dumps(kw) + "\n")
    out.flush()


dev = probe()
emit(what="device", **dev.model_dump(mode="json"))
ladder = [
    Knobs(),
    Knobs(compute="mma"),
    Knobs(compute="mma", layout="swizzle"),
    Knobs(compute="mma", layout="swizzle", staging="cp_async"),
    Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2"),
    Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2"),
    Knobs(compute="scalar", layout="swizzle", staging="cp_async", exp="ex2"),
    Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", br=128, warps=8),
    Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", bc=128),
    Knobs(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", bc=32),
]
for dtype in ("float16", "bfloat16"):
    for D in (64, 128):
        target = Shape(B=2, H=16, N=2048, D=D, dtype=dtype)
        lab = Lab(target, dev.limits, cache, budget_s=1.0)
        t0 = time.time()
        built = lab.build(ladder)
        emit(what="build", dtype=dtype, D=D, seconds=time.time() - t0,
             ok={k.label(): built[k.key()].ok for k in ladder},
             logs={k.label(): built[k.key()].log[-1500:] for k in ladder if not built[k.key()].ok})
        shapes = c1_shapes(target) + [Shape(B=1, H=2, N=1000, D=D, dtype=dtype, causal=True)]
        for k in ladder:
            if not built[k.key()].ok:
                continue
            job = lab.check(k, shapes)
            res = job.value("check") or {}
            emit(what="check", dtype=dtype, D=D, knobs=k.label(), status=job.status, ok=res.get("ok"),
                 worst=[(c["shape"]["N"], c["shape"]["causal"], c["max_abs"], c["bound"], c["lse_max_abs"], c["reason"]) for c in res.get("checks", [])],
                 stderr=job.stderr[-600:] if job.status != "ok" else "")
# timing ladder at the target shape, each rung paired against the previous
target = Shape(B=2, H=16, N=2048, D=128, dtype="float16")
lab = Lab(target, dev.limits, cache, budget_s=2.0)
for a, b in zip(ladder[:5], ladder[1:5]):
    job = lab.paired({"knobs": a}, {"knobs": b})
    p = job.value("paired") or {}
    emit(what="paired", base=a.label(), cand=b.label(), status=job.status, margin=p.get("margin"),
         ab=p.get("margin_ab"), ba=p.get("margin_ba"), tflops_base=p.get("tflops_base"), tflops_cand=p.get("tflops_cand"),
         alternations=p.get("alternations"), stderr=job.stderr[-600:] if job.status != "ok" else "")
for k in ladder[4:]:
    job = lab.attributes(k)
    emit(what="attributes", knobs=k.label(), attrs=job)
job = lab.paired({"knobs": ladder[4]}, {"sdpa": "flash"})
p = job.value("paired") or {}
emit(what="sdpa", margin=p.get("margin"), tflops_best=p.get("tflops_base"), tflops_sdpa=p.get("tflops_cand"), status=job.status, stderr=job.stderr[-600:])
# ncu: does the metric list exist on this GPU, do counters read, what do seed and best look like
from profiler.diagnosis import diagnose, metrics_from_row
from profiler.ncu import run_ncu

outdir = Path(sys.argv[1]).parent
for name, k in (("seed", ladder[0]), ("mma", ladder[1]), ("best", ladder[4])):
    lib = lab.library(k)
    try:
        t0 = time.time()
        res = run_ncu([sys.executable, "-m", "profiler.launch", lib, target.model_dump_json()], dev.limits.arch, timeout=300)
        (outdir / f"ncu_{name}.csv").write_text(res.csv)
        rows = res.rows()
        diag = diagnose(metrics_from_row(rows[0], dev.limits.arch))
        emit(what="ncu", name=name, seconds=time.time() - t0, diagnosis=diag.model_dump(mode="json"))
    except Exception as e:
        emit(what="ncu", name=name, error=f"{type(e).__name__}: {e}")
