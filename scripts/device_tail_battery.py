"""On a GPU: the planted edge-test defects behind FA_DEFECT (no_tail_mask: keys past N not
masked; causal_off_by_one: each row sees one key past the diagonal), each evaluated exactly as the
search evaluates a candidate (C1 on the candidate's own tile tails, N(0,1) and masked-dominant
inputs; paired timing with the re-check; C2 twice), at every key-block width BC in {16, 32, 64,
128}, each beside a control (the correct kernel at that BC against itself, which must not be
rejected: the new inputs must not fail correct kernels). Also checks the correct kernel at each BC
on the C1 plan of both mask modes at fp16/bf16 x D64/D128.

Usage: python3 scripts/device_tail_battery.py OUT_DIR [--all]   (--all: every planted defect)
Writes OUT_DIR/tail_battery.json and prints one line per row; exits 1 when a defect is not
rejected or a control is."""

import json
import sys
from pathlib import Path

from experiments.battery import BASE, defect_battery
from experiments.build import BuildSpec, build
from experiments.defects import DEFECTS
from experiments.device import probe
from experiments.lab import Lab
from experiments.problem import Shape, c1_patterns, c1_shapes

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
names = tuple(DEFECTS) if "--all" in sys.argv else ("no_tail_mask", "causal_off_by_one")
BCS = (16, 32, 64, 128)
dev = probe()
lab = Lab(Shape(B=2, H=16, N=2048, D=128), dev.limits, Path("/tmp/facache"), budget_s=1.0)
# t_noise as the instrument's H200 calibration measured it (results/2026-11-30_h200_instrument)
rows = defect_battery(lab, t_keep=1.0029, t_noise=0.0029, bcs=BCS, names=names, control=True)
for r in rows:
    print(f"BC {r['bc']:3d}  {r['defect']:18s} {r['outcome']:12s} rejected={r['rejected']!s:5s} "
          f"caught by {r['caught_by']}  {r['detail'][:120]}", flush=True)

# the correct kernel at each BC across dtypes, head dims and both mask modes, on the C1 plan
every = dict(arch=dev.arch, dtypes=("float16", "bfloat16"), dims=(64, 128), causals=(False, True))
specs = {bc: BuildSpec(knobs=BASE.replace(bc=bc), **every) for bc in BCS}
built = build(list(specs.values()), lab.cache_dir / "build")
correct = []
for bc, spec in specs.items():
    for dtype in ("float16", "bfloat16"):
        for d in (64, 128):
            shapes, patterns = c1_patterns(c1_shapes(Shape(B=2, H=16, N=4096, D=d, dtype=dtype), spec.knobs))
            job = lab.run_job([{"do": "check", "tag": "c1", "lib": built[spec.key()].library,
                                "shapes": [s.model_dump() for s in shapes], "inputs": patterns}], timeout=300)
            res = job.value("c1") or {"ok": False, "checks": []}
            worst = max((c["max_abs"] / c["bound"] for c in res["checks"] if c["bound"]), default=None)
            correct.append({"bc": bc, "dtype": dtype, "D": d, "ok": res["ok"], "status": job.status,
                            "n_checks": len(res["checks"]), "worst_fraction_of_bound": worst,
                            "failed": [c for c in res["checks"] if not c["ok"]][:3]})
            print(f"correct BC {bc:3d} {dtype} D{d}: ok={res['ok']} {len(res['checks'])} checks, "
                  f"worst {worst if worst is None else round(worst, 3)} of the bound", flush=True)

(out / "tail_battery.json").write_text(json.dumps({"device": dev.model_dump(mode="json"), "battery": rows,
                                                    "correct": correct}, indent=1))
bad = [r for r in rows if r["rejected"] != (r["defect"] != "control")] + [c for c in correct if not c["ok"]]
print(f"{len(rows)} battery rows, {len(correct)} correct-kernel plans; {len(bad)} wrong")
sys.exit(1 if bad else 0)
