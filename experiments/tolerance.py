"""Deriving the tolerance's constants from data (seed 2.1: over 3,904 configurations the worst
correct kernel sat at 0.96 of the bound and the smallest injected defect at 22.3x it).

Over an envelope of configurations (dtype, D, causal, N with odd tails, B, H), every correct
kernel's error is reported as a fraction of the bound, every defect's as a multiple of it. The
bound is the tier's own rule (experiments.tier), so the report judges exactly what the search uses.
"""

from __future__ import annotations

import itertools
import math
import statistics

from .job import EnvelopeStep
from .problem import Shape

ENVELOPE_N = (1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 64, 65, 96, 127, 128, 129, 191, 200, 255, 256, 257, 333, 384,
              511, 512, 513, 640, 777, 1000, 1023, 1024, 1500)
# (B, H, Hkv): MHA, grouped-query (2 query heads per K/V head) and multi-query
ENVELOPE_BHK = ((1, 1, None), (1, 4, 2), (2, 3, 1), (3, 2, None))


def envelope() -> list[Shape]:
    """2 dtypes x 2 head dims x 2 mask modes x 32 N x 4 (B, H, Hkv) = 1,024 configurations, MHA,
    GQA and MQA among the four (B, H, Hkv). (The first H200 report, now
    results/2026-11-30_h200_instrument/b_derive_tolerance_mha_only.txt, predates grouped K/V heads.)"""
    return [Shape(B=b, H=h, Hkv=kv, N=n, D=d, dtype=dt, causal=c)
            for dt, d, c, n, (b, h, kv) in itertools.product(("float16", "bfloat16"), (64, 128), (False, True),
                                                              ENVELOPE_N, ENVELOPE_BHK)]


def run_envelope(step: EnvelopeStep) -> dict:
    """Worker side: every library of step.libs (name -> path) on every configuration, fresh
    inputs per configuration, outputs NaN-poisoned, read after a sync of the caller's stream only."""
    import torch

    from kernel_src.binding import KernelError, KernelLib

    from .tier import LSE_TOL, TOL_ABS, TOL_FACTOR, _run_poisoned, max_abs, random_inputs, reference

    libs = {name: KernelLib(path) for name, path in step.libs.items()}
    pairs = step.bitwise_pairs  # (a, b): a lever that promises the same bits as its off setting
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for i, shape in enumerate(step.configs):
        q, k, v = random_inputs(shape, "cuda", step.seed + i)
        oracle, olse = reference(q, k, v, shape.causal, torch.float32)
        floor, _ = reference(q, k, v, shape.causal, q.dtype)
        bound = TOL_FACTOR * max_abs(floor, oracle) + TOL_ABS
        outs = {}
        for name, lib in libs.items():
            qc, kc, vc = q.clone(), k.clone(), v.clone()
            run = lambda q_, k_, v_, o_, l_: lib.forward(q_, k_, v_, o_, l_, shape.causal, stream)
            try:
                o, lse = _run_poisoned(run, qc, kc, vc, shape)
            except KernelError as e:  # a launch refused (or a sticky error from an earlier one): name it, go on
                rows.append({"config": i, "kernel": name, "ratio": math.inf, "lse_err": math.inf,
                             "reason": f"launch: {e}"[:200]})
                continue
            intact = torch.equal(qc, q) and torch.equal(kc, k) and torch.equal(vc, v)
            finite = bool(torch.isfinite(o).all() and torch.isfinite(lse).all())
            err = max_abs(o, oracle) if finite else math.inf
            lerr = max_abs(lse, olse) if finite else math.inf
            reason = ("nonfinite" if not finite else "inputs_modified" if not intact else
                      "error" if err > bound else "lse" if lerr > LSE_TOL else "")
            rows.append({"config": i, "kernel": name, "ratio": err / bound, "lse_err": lerr, "reason": reason})
            if pairs:
                outs[name] = (o, lse)
        for a, b in pairs:
            if a not in outs or b not in outs:
                continue  # a launch failure, already a row of its own
            same = torch.equal(outs[a][0].nan_to_num(7.0), outs[b][0].nan_to_num(7.0)) and \
                torch.equal(outs[a][1].nan_to_num(7.0), outs[b][1].nan_to_num(7.0))
            rows.append({"config": i, "kernel": f"{a}=={b}", "ratio": 0.0, "lse_err": 0.0, "reason": "" if same else "not_bitwise"})
        torch.cuda.synchronize()
    return {"rows": rows, "n_configs": len(step.configs)}


def summarize(rows: list[dict], correct: list[str], defects: list[str]) -> dict:
    """Worst correct kernel as a fraction of the bound; each defect as a multiple of it."""
    by = {}
    for r in rows:
        by.setdefault(r["kernel"], []).append(r)
    out = {"correct": {}, "defects": {}}
    for name in correct:
        rs = by.get(name, [])
        ratios = [r["ratio"] for r in rs]
        out["correct"][name] = {"configs": len(rs), "failures": sum(bool(r["reason"]) for r in rs),
                                "worst_fraction_of_bound": max(ratios) if ratios else None,
                                "median_fraction_of_bound": statistics.median(ratios) if ratios else None,
                                "reasons": sorted({r["reason"] for r in rs if r["reason"]})}
    for name in defects:
        rs = by.get(name, [])
        caught = [r for r in rs if r["reason"]]
        # multiples only where the error itself was the catch: an unwritten output (NaN) or a
        # modified input is caught by other means and its error says nothing about the bound
        finite = [r["ratio"] for r in caught if r["reason"] == "error" and math.isfinite(r["ratio"])]
        out["defects"][name] = {"configs": len(rs), "caught": len(caught),
                                "reasons": {k: sum(r["reason"] == k for r in caught) for k in sorted({r["reason"] for r in caught})},
                                "min_multiple": min(finite) if finite else None,
                                "median_multiple": statistics.median(finite) if finite else None}
    worst = [v["worst_fraction_of_bound"] for v in out["correct"].values() if v["worst_fraction_of_bound"] is not None]
    out["worst_correct_fraction"] = max(worst) if worst else None
    medians = [v["median_multiple"] for v in out["defects"].values() if v["median_multiple"] is not None]
    out["smallest_defect_median_multiple"] = min(medians) if medians else None
    mins = [v["min_multiple"] for v in out["defects"].values() if v["min_multiple"] is not None]
    out["smallest_defect_error_multiple"] = min(mins) if mins else None
    return out
