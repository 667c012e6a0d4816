"""ncu on the levers whose H200 margins the screen left unexplained: at B2 H16 N32768 D128 bf16
causal, the final kernel against .cs/.wt stores, heaviest-first CTA order and the split mask
loop, through the tool's own profiler and diagnosis. Usage (from the repository root): PYTHONPATH=. python3 results/2026-11-30_h200_profile_n32768_causal/device_profile.py OUT_DIR"""

import json
import sys
from pathlib import Path

from agent.bench import GpuBench
from agent.trial import diagnose_profile
from profiler.diagnosis import metrics_from_row
from profiler.ncu import parse_raw_csv
from experiments.problem import Shape
from kernel_src.knobs import Knobs

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
shape = Shape(B=2, H=16, N=32768, D=128, dtype="bfloat16", causal=True)
bench = GpuBench(shape, Path("/tmp/facache"))
best = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])
cands = {"final": best, "store_streaming": best.replace(store="cs"), "store_write_through": best.replace(store="wt"),
         "heaviest_first": best.replace(cta_order="heaviest_first"), "mask_split": best.replace(causal_mask="split")}
bench.prefetch(list(cands.values()))
rows = {}
for name, k in cands.items():
    d, row, why = diagnose_profile(bench, k, bench.device().arch, out, name)
    if d is None:
        print(f"{name}: no profile: {why}", flush=True)
        continue
    m = metrics_from_row(parse_raw_csv((out.parent / row["ncu_csv"]).read_text())[0], bench.device().arch)
    row["raw"] = m.model_dump(mode="json")
    rows[name] = row
    print(f"{name:20s} {k.label()}: regs {m.registers_per_thread}, warps/SM {m.achieved_warps_per_sm}, tensor pipe "
          f"{m.tensor_pipe_pct}%, L2 hit {m.l2_hit_pct}%, DRAM {m.dram_throughput_pct}%\n    {d.label}: {d.summary}",
          flush=True)
(out / "profiles.json").write_text(json.dumps(rows, indent=1, default=str))
