#!/usr/bin/env python3
"""Two runs' final kernels paired against each other on this GPU, at the first run's problem: each
kernel checked by the tier at that problem's reduced shapes, then timed paired (AB/BA halves) in
several fresh processes, with each kernel's A/A null in the same processes for scale.

    python3 results/2026-12-02_h200_fast_run/pair_finals.py A.db B.db [--run-a N] [--run-b N] [--repeats 3] [--budget 2] --out pair.json

A run's final kernel is its best (agent.summary.best_of_run: its last KEPT, else its seed). margin > 1:
B's final is faster than A's.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.commands.common import _cache_dir  # noqa: E402
from agent.summary import best_of_run  # noqa: E402
from experiments.build import build  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from experiments.problem import Shape, c1_shapes  # noqa: E402
from store import queries as q  # noqa: E402
from store.db import open_db  # noqa: E402


def final_of(path: Path, run_id: int | None):
    db = open_db(path, read_only=True)
    run = q.get_run(db, run_id) if run_id else q.latest_run(db)
    return run, best_of_run(db, run["id"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--run-a", type=int)
    ap.add_argument("--run-b", type=int)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    (run_a, ka), (run_b, kb) = final_of(a.a, a.run_a), final_of(a.b, a.run_b)
    shape = Shape(**run_a["problem"])
    dev = probe()
    lab = Lab(shape, dev.limits, _cache_dir(), budget_s=a.budget)  # the tool's build cache: a run's finals are there
    # the tool's own spec: both mask modes, since the tier's reduced shapes check both (a build of the problem's
    # mode alone fails the check with FA_NOT_BUILT, as this script's first run on the H200 did)
    specs = [lab.spec(k) for k in (ka, kb)]
    t0 = time.time()
    built = build(specs, lab.cache_dir / "build")
    la, lb = (built[s.key()].library for s in specs)
    if not (la and lb):
        print("build failed:", [built[s.key()].log[-1500:] for s in specs if not built[s.key()].library])
        return 1
    out = {"gpu": dev.name, "problem": shape.key(), "a": {"db": str(a.a), "run": run_a["id"], "knobs": ka.label()},
           "b": {"db": str(a.b), "run": run_b["id"], "knobs": kb.label()}, "build_s": round(time.time() - t0, 1),
           "processes": []}
    for i in range(a.repeats):
        steps = [{"do": "check", "tag": f"check:{n}", "lib": lib, "shapes": [s.model_dump() for s in c1_shapes(shape, k)]}
                 for n, lib, k in (("a", la, ka), ("b", lb, kb))]
        steps += [{"do": "paired", "tag": tag, "base": {"lib": base}, "cand": {"lib": cand}, "shape": shape.model_dump(),
                   "budget_s": a.budget, "l2": "warm"}
                  for tag, base, cand in (("warmup", la, lb), ("a_vs_b", la, lb), ("aa_a", la, la), ("aa_b", lb, lb))]
        job = lab.run_job(steps, timeout=120 + 4 * 3 * a.budget)
        rec = {"status": job.status, "steps": {}}
        for st in job.steps:
            r = st.model_dump().get("result") or {}
            if st.tag.startswith("check:"):
                rec["steps"][st.tag] = bool(r.get("ok"))
            elif r:
                rec["steps"][st.tag] = {k: r.get(k) for k in ("margin", "margin_ab", "margin_ba", "alternations",
                                                              "tflops_base", "tflops_cand")}
        out["processes"].append(rec)
        print(json.dumps(rec), flush=True)
    ms = [p["steps"].get("a_vs_b", {}).get("margin") for p in out["processes"]]
    out["margins_b_over_a"] = ms
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    print(f"{shape.key()}: B ({kb.label()}) over A ({ka.label()}): {ms}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
