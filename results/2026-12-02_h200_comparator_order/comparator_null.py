#!/usr/bin/env python3
"""The comparator's own noise: SDPA cuDNN against itself and SDPA flash against itself, paired by the
tool's timer exactly as a run's closing pair times our kernel against them (one warm-up pair first, then
the measured pairs, AB/BA halves), each in several fresh processes, at each problem given.

A run's final row reads ours / cuDNN from one such pair; its AB and BA halves have differed by 5-46%
against cuDNN (results/2026-12-02_h200_fast_run). If a library against itself shows the same spread, the
order effect is the timer's and the pair's median stands; if it does not, the spread belongs to ours
against theirs.

    python3 results/2026-12-02_h200_comparator_order/comparator_null.py --problem B2-H16-N2048-D128-float16-noncausal ... --out null.json

--lead-ms 0 --lead-ms 0.3 times every pair under each lead (experiments.timing.paired: the GPU busy that long
before each pair's first block); --knobs LABEL adds that kernel against itself (a run's own A/A null).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.campaign import read_shapes  # noqa: E402
from agent.commands.common import _cache_dir  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problem", action="append", required=True, help="a problem key, as `history` prints it")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per problem")
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of alternations per pair (a run's closing pair: 2)")
    ap.add_argument("--backend", action="append", default=[], help="cudnn, flash (default: both)")
    ap.add_argument("--lead-ms", type=float, action="append", default=[], help="a lead to time under (repeatable; default 0)")
    ap.add_argument("--knobs", help="a kernel as NAME=VALUE assignments, space-separated: its A/A null beside the libraries'")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    leads = a.lead_ms or [0.0]
    tmp = Path("/tmp/comparator_null_shapes.txt")
    tmp.write_text("\n".join(a.problem) + "\n")
    shapes = read_shapes(tmp)
    backends = a.backend or ["cudnn", "flash"]
    dev = probe()
    out = {"gpu": dev.name, "arch": dev.arch, "budget_s": a.budget, "leads_ms": leads, "knobs": a.knobs, "rows": []}
    for sh in shapes:
        lab = Lab(sh, dev.limits, _cache_dir(), budget_s=a.budget)
        arms = {b: {"sdpa": b} for b in backends}
        if a.knobs:
            spec = BuildSpec(knobs=Knobs.parse_assignments(a.knobs.split()), arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,), causals=(sh.causal,))
            built = build([spec], lab.cache_dir / "build")[spec.key()]
            if not built.ok:
                print(built.log[-1500:])
                return 1
            arms["ours"] = {"lib": built.library}
        for i in range(a.repeats):
            steps = [{"do": "paired", "tag": "warmup", "base": {"sdpa": backends[0]}, "cand": {"sdpa": backends[0]},
                      "shape": sh.model_dump(), "budget_s": 1.0, "l2": "warm"}]
            steps += [{"do": "paired", "tag": f"{name}@{lead:g}", "base": arm, "cand": arm, "shape": sh.model_dump(),
                       "budget_s": a.budget, "l2": "warm", "lead_ms": lead} for name, arm in arms.items() for lead in leads]
            t0 = time.time()
            job = lab.run_job(steps, timeout=120 + 3 * len(steps) * (a.budget + 1))
            for st in job.steps:
                r = st.model_dump().get("result") or {}
                if st.tag == "warmup" or not r:
                    continue
                arm, lead = st.tag.split("@")
                row = {"problem": sh.key(), "process": i, "backend": arm, "lead_ms": float(lead), "wall_s": round(time.time() - t0, 1),
                       **{k: r.get(k) for k in ("margin", "margin_ab", "margin_ba", "margin_lo", "margin_hi",
                                                "alternations", "tflops_base", "tflops_cand")}}
                out["rows"].append(row)
                print(json.dumps(row), flush=True)
            if job.status != "ok":
                print(f"{sh.key()} process {i}: {job.status}: {job.stderr[-600:]}", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    for r in out["rows"]:
        print(f"{r['problem']} {r['backend']} vs itself, lead {r['lead_ms']:g} ms, process {r['process']}: {r['margin']:.4f} "
              f"(AB {r['margin_ab']:.4f} / BA {r['margin_ba']:.4f}, {r['alternations']} alternations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
