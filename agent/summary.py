"""What a run came to, read from the store alone: its summary line, its current best, its last diagnosis."""
from __future__ import annotations

import statistics
from datetime import datetime

from kernel_src.knobs import Knobs
from store import queries as q


def run_summary(db, run_id: int) -> dict:
    """What a run came to, for its last lines, `history`, `compare` and `report`: seed -> final TFLOP/s
    (the last re-anchor's pair), the final kernel against SDPA flash and cuDNN (each its own closing
    pair, or why there is none: `against_sdpa`, `against_sdpa_text`), how well it predicted (measured
    margins inside the band written before measuring), and what an experiment cost (median seconds
    from start to outcome; whole-run wall time per counted experiment)."""
    run = q.get_run(db, run_id)
    hist = q.history(db, run_id)
    rows = [e for e in hist if e["seq"] is not None and e["outcome"] is not None]  # finished, counted
    banded = [e for e in rows if e["margin"] is not None and e["predicted_lo"] is not None]
    inside = sum(e["predicted_lo"] <= e["margin"] <= e["predicted_hi"] for e in banded)
    secs = [(datetime.fromisoformat(e["finished_at"]) - datetime.fromisoformat(e["started_at"])).total_seconds()
            for e in rows if e["finished_at"] and e["started_at"]]
    anchor = next((e for e in reversed(hist) if e["kind"] == "reanchor" and e["margin"]), None)
    against = [against_sdpa(hist, b) for b in YARDSTICK]
    flash, cudnn = against
    wall = total = None
    if run.get("finished_at"):
        total = (datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])).total_seconds()
        wall = total / len(rows) if rows else None
    best = best_of_run(db, run_id)
    return {"run_id": run_id, "strategy": run.get("strategy") or "ladder", "status": run["status"],
            "stop_reason": run["stop_reason"], "gpu": run["gpu_name"], "problem": run["problem_key"],
            "experiments": len(rows), "kept": sum(e["outcome"] == "KEPT" for e in rows), "banded": len(banded),
            "inside_band": inside, "median_seconds": statistics.median(secs) if secs else None,
            "wall_seconds_per_experiment": wall, "final_knobs": best.label(),
            "seed_tflops": anchor and anchor["tflops_base"], "final_tflops": anchor and anchor["tflops_cand"],
            "vs_seed": anchor and anchor["margin"], "sdpa_flash_tflops": flash["theirs_tflops"],
            "final_tflops_vs_sdpa": flash["ours_tflops"], "vs_sdpa_flash": flash["vs"],
            "sdpa_cudnn_tflops": cudnn["theirs_tflops"], "final_tflops_vs_sdpa_cudnn": cudnn["ours_tflops"],
            "vs_sdpa_cudnn": cudnn["vs"], "against_sdpa": against, "against_sdpa_text": against_text(against),
            "nulls": len(run.get("noise") or []) or None,
            # where the time went (a resumed run's wall time holds its pause between the calls)
            "time": {"wall_s": total, **q.time_spent(db, run_id), "replayed": False} if total is not None else None,
            "speculation": (run.get("options") or {}).get("speculation")}


SDPA_LABEL = {"flash": "SDPA flash", "cudnn": "SDPA cuDNN", "efficient": "SDPA efficient", "math": "SDPA math",
              "flash_attn": "flash_attn"}
# the backends every run's summary names: a run recorded before it paired cuDNN shows it as not measured
YARDSTICK = ("flash", "cudnn")


def against_sdpa(hist: list[dict], backend: str) -> dict:
    """The run's closing pair against SDPA `backend` as a summary shows it: `status` measured, unavailable
    (with `why`, experiments.sdpa), failed, or not measured (no such row: the run predates that pair,
    or has not reached it); `vs` ours/theirs in that pair (> 1: ours is faster) and both rates."""
    e = closing_pair(hist, backend)
    out = {"backend": backend, "label": SDPA_LABEL.get(backend, backend), "status": "not measured", "why": None,
           "vs": None, "ours_tflops": None, "theirs_tflops": None}
    if e is None:
        return out
    if e["margin"]:
        return {**out, "status": "measured", "vs": 1 / e["margin"], "ours_tflops": e["tflops_base"],
                "theirs_tflops": e["tflops_cand"]}
    detail = e["detail"] or ""
    if detail.startswith("unavailable: "):
        return {**out, "status": "unavailable", "why": detail.removeprefix("unavailable: ")}
    return {**out, "status": "failed", "why": detail}


def against_phrase(a: dict) -> str:
    """One backend's part of the closing line: "0.866x SDPA flash", "SDPA cuDNN unavailable (why)", ..."""
    if a["status"] == "measured":
        return f"{a['vs']:.3f}x {a['label']}"
    if a["status"] == "unavailable":
        return f"{a['label']} unavailable ({a['why']})"
    return f"{a['label']} {'measurement failed' if a['status'] == 'failed' else 'not measured'}"


def against_text(against: list[dict]) -> str:
    """The closing comparison in one phrase: "final 1.620x SDPA flash, 0.880x SDPA cuDNN"."""
    return "final " + ", ".join(against_phrase(a) for a in against)


def closing_pair(hist: list[dict], backend: str) -> dict | None:
    """The run's own closing pair against SDPA `backend` (its comparator row, lever sdpa_<backend>), or None.
    A later `baseline` row (lever <backend>@<shape>) is another command's measurement: it never stands in
    for it (results/2026-11-30_h200_mma_reaches_flash/stacked_n8192.db holds flash 335.7 TFLOP/s in the run's pair
    and cuDNN 617.5 in a baseline row after it; reading the last comparator row showed cuDNN as flash)."""
    return next((e for e in reversed(hist) if e["kind"] == "comparator" and e["lever"] == f"sdpa_{backend}"), None)


def best_of_run(db, run_id: int) -> Knobs:
    """The run's current best: the last kept candidate, else the seed."""
    run = q.get_run(db, run_id)
    kept = [e for e in q.history(db, run_id) if e["outcome"] == "KEPT"]
    return Knobs.parse(kept[-1]["knobs"] if kept else run["seed_knobs"])


FINISHED = ("plateau", "budget", "exhausted")  # a run's statuses once it stopped by itself


def measured_best(db, run: dict) -> tuple[Knobs, float | None, str] | None:
    """The kernel a run offers for export, its TFLOP/s and where that figure was measured: its last KEPT
    candidate (a --screen run's keeps are single levers against one seed, so its fastest); or, for a run
    that kept nothing, its seed when the seed was chosen (--seed-knob) and the run finished: that seed
    passed the run's seed check, was measured against every lever, and its re-anchor is the figure.
    None for a run that kept nothing from the naive seed (never worth serving) or did not finish."""
    hist = q.history(db, run["id"])
    kept = [e for e in hist if e["outcome"] == "KEPT" and e.get("knobs")]
    if kept:
        screen = "--screen" in (run.get("command") or "")
        e = max(kept, key=lambda x: x["tflops_cand"] or 0.0) if screen else kept[-1]
        return Knobs.parse(e["knobs"]), e["tflops_cand"], f"#{e['seq']}" + (", screen" if screen else "")
    seed = Knobs.parse(run["seed_knobs"])
    if seed == Knobs() or run.get("status") not in FINISHED:
        return None
    anchor = next((e for e in reversed(hist) if e["kind"] == "reanchor" and e["tflops_cand"]), None)
    return seed, anchor["tflops_cand"] if anchor else None, "its seed, nothing kept"


def run_label(db, run_id: int) -> str | None:
    ds = q.diagnoses(db, run_id)
    return ds[-1]["label"] if ds else None


def stop_text(reason: str, done: int, plateau: int, budget: int, strict: bool = False) -> str:
    """Why a search stopped, in the words its run row keeps (`strict`: the ladder's rule and words)."""
    if strict:  # the ladder's rule and words, as its recorded runs printed them
        return {"budget": f"budget of {done} experiments spent",
                "plateau": f"{plateau} consecutive experiments without a keep",
                "exhausted": "no applicable lever left in the catalog"}[reason]
    return {"budget": f"budget of {done} experiments spent",
            "plateau": f"{plateau} consecutive experiments without a keep and no candidate predicted to reach t_keep "
                       f"({budget - done} of {budget} experiments unspent)",
            "exhausted": f"no candidate left ({budget - done} of {budget} experiments unspent)"}[reason]
