"""What a run came to, read from the store alone: its summary line, its current best, its last diagnosis."""
from __future__ import annotations

import statistics
from datetime import datetime

from kernel_src.knobs import Knobs
from store import queries as q


def run_summary(db, run_id: int) -> dict:
    """What a run came to, for its last lines, `compare` and `report`: seed -> final TFLOP/s (the last
    re-anchor's pair), the final kernel against SDPA flash (the comparator's pair), how well it
    predicted (measured margins inside the band written before measuring), and what an experiment
    cost (median seconds from start to outcome; whole-run wall time per counted experiment)."""
    run = q.get_run(db, run_id)
    hist = q.history(db, run_id)
    rows = [e for e in hist if e["seq"] is not None and e["outcome"] is not None]  # finished, counted
    banded = [e for e in rows if e["margin"] is not None and e["predicted_lo"] is not None]
    inside = sum(e["predicted_lo"] <= e["margin"] <= e["predicted_hi"] for e in banded)
    secs = [(datetime.fromisoformat(e["finished_at"]) - datetime.fromisoformat(e["started_at"])).total_seconds()
            for e in rows if e["finished_at"] and e["started_at"]]
    anchor = next((e for e in reversed(hist) if e["kind"] == "reanchor" and e["margin"]), None)
    comp = closing_pair(hist, "flash")
    comp = comp if comp and comp["margin"] else None
    wall = None
    if run.get("finished_at") and rows:
        wall = (datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])).total_seconds() / len(rows)
    best = best_of_run(db, run_id)
    return {"run_id": run_id, "strategy": run.get("strategy") or "ladder", "status": run["status"],
            "stop_reason": run["stop_reason"], "gpu": run["gpu_name"], "problem": run["problem_key"],
            "experiments": len(rows), "kept": sum(e["outcome"] == "KEPT" for e in rows), "banded": len(banded),
            "inside_band": inside, "median_seconds": statistics.median(secs) if secs else None,
            "wall_seconds_per_experiment": wall, "final_knobs": best.label(),
            "seed_tflops": anchor and anchor["tflops_base"], "final_tflops": anchor and anchor["tflops_cand"],
            "vs_seed": anchor and anchor["margin"], "sdpa_flash_tflops": comp and comp["tflops_cand"], "final_tflops_vs_sdpa": comp and comp["tflops_base"],
            "vs_sdpa_flash": comp and 1 / comp["margin"], "nulls": len(run.get("noise") or []) or None,
            "speculation": (run.get("options") or {}).get("speculation")}


def closing_pair(hist: list[dict], backend: str) -> dict | None:
    """The run's own closing pair against SDPA `backend` (its comparator row, lever sdpa_<backend>), or None.
    A later `baseline` row (lever <backend>@<shape>) is another command's measurement: it never stands in
    for it (results/2026-11-30_h200_session8/stacked_n8192.db holds flash 335.7 TFLOP/s in the run's pair
    and cuDNN 617.5 in a baseline row after it; reading the last comparator row showed cuDNN as flash)."""
    return next((e for e in reversed(hist) if e["kind"] == "comparator" and e["lever"] == f"sdpa_{backend}"), None)


def best_of_run(db, run_id: int) -> Knobs:
    """The run's current best: the last kept candidate, else the seed."""
    run = q.get_run(db, run_id)
    kept = [e for e in q.history(db, run_id) if e["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"] if kept else run["seed_knobs"])


def run_label(db, run_id: int) -> str | None:
    ds = q.diagnoses(db, run_id)
    return ds[-1]["label"] if ds else None
