"""`fa5090-search calibrate`: the instrument measured against itself before any result exists.

Environment (GPU, driver, toolchain, clocks read while loaded), ceilings for the dtype (torch
GEMM, mma.sync register loop), the A/A null through the keep path (each repeat a fresh
process), and optionally N full A/A keep decisions to count false keeps. The result is a row
in `calibrations` plus a JSON artifact; every later keep decision reads t_keep from it.
"""

from __future__ import annotations

import json
from pathlib import Path

from experiments.calibration import read_clocks
from experiments.outcome import Outcome
from experiments.timing import t_noise as noise_of
from kernel_src.knobs import Knobs
from store import queries as q

from .events import Line, NullMeasured, Phase, Say, quiet


def provisional(env_clocks: list[dict], claimed_locked: bool) -> bool:
    """Numbers are provisional unless the user says clocks were locked AND the SM clock read
    under load did not move (we never lock or set clocks ourselves)."""
    if not claimed_locked:
        return True
    sm = [c.get("clocks.sm") for c in env_clocks if isinstance(c.get("clocks.sm"), float)]
    return not sm or (max(sm) - min(sm)) > 0.01 * max(sm)


def calibrate(bench, db, *, shape, knobs: Knobs, repeats: int, keep_trials: int, clocks_locked: bool,
              artifacts: Path, command: str, say: Say = quiet) -> dict:
    dev = bench.device()
    idle = read_clocks()
    say(Phase(text=f"ceilings for {shape.dtype}: torch GEMM 8192^3 and the mma.sync register loop"))
    ceilings = bench.ceilings(shape.dtype)
    say(Line(text=f"ceilings: GEMM {ceilings['gemm_tflops']:.1f} TFLOP/s, mma.sync {ceilings['mma_sync_tflops']:.1f} TFLOP/s"))
    say(Phase(text=f"A/A null: {knobs.label()} against itself, {repeats} fresh processes"))
    aa = bench.aa_null(knobs, repeats)
    margins = [a["margin"] for a in aa]
    tn = noise_of(margins)
    clocks = [idle, ceilings.get("clocks_under_gemm", {}), ceilings.get("clocks_under_mma", {})]
    env = {"gpu": dev.name, "arch": dev.arch, "sm_count": dev.sm_count, "driver": dev.driver, "torch": dev.torch,
           "cuda": dev.torch_cuda, "cudnn": ceilings.get("cudnn"), "clocks_idle": idle,
           "clocks_under_gemm": ceilings.get("clocks_under_gemm"), "clocks_under_mma": ceilings.get("clocks_under_mma"),
           "clocks_locked_claimed": clocks_locked}
    prov = provisional(clocks, clocks_locked)
    cal_id = q.record_calibration(
        db, gpu_name=dev.name, arch=dev.arch, problem_key=shape.key(), knob_key=knobs.key(), knobs=knobs,
        environment=env, ceilings=ceilings, protocol={"budget_s": bench.budget_s, "l2": bench.l2, "repeats": repeats},
        aa_margins=margins, t_noise=tn, t_keep=1 + tn, provisional=int(prov), command=command,
        aa_runs=[{k: a.get(k) for k in ("margin", "margin_ab", "margin_ba", "margin_lo", "margin_hi", "alternations",
                                         "ms_base", "ms_cand", "tflops_base", "tflops_cand", "l2")} for a in aa])
    say(NullMeasured(margins=margins, t_noise=tn, t_keep=1 + tn, source=f"calibration {cal_id}", ceiling=None))

    trials = []
    for i in range(keep_trials):
        say(Phase(text=f"A/A keep decision {i + 1}/{keep_trials}"))
        ev = bench.evaluate(knobs, knobs, t_keep=1 + tn, t_noise=tn,
                            ceiling=max(ceilings["gemm_tflops"], ceilings["mma_sync_tflops"]))
        p = ev.paired or {}
        trials.append({"outcome": ev.outcome.value, "margin": p.get("margin"), "ab": p.get("margin_ab"),
                       "ba": p.get("margin_ba"), "confirm": (ev.confirm or {}).get("margin"), "detail": ev.detail})
        say(Line(text=f"  A/A decision {i + 1}: {ev.outcome.value} ({ev.detail})"))
    false_keeps = sum(t["outcome"] == Outcome.KEPT.value for t in trials)
    # the other error a gate makes on A/A: a SLOWER sends an equal kernel to the shelf
    false_slower = sum(t["outcome"] == Outcome.SLOWER.value for t in trials)
    if keep_trials:
        say(Line(text=f"A/A decisions on {knobs.label()}: {false_keeps} false KEPT and {false_slower} false SLOWER "
                       f"in {keep_trials} (t_keep {1 + tn:.5f})"))
    q.update_calibration(db, cal_id, false_keeps=false_keeps, keep_trials=keep_trials, trials=trials)
    cal = q.get_calibration(db, cal_id)
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / f"calibration-{cal_id}.json").write_text(json.dumps(cal, indent=1, default=str))
    return cal
