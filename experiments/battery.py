"""The defect battery and the tolerance envelope, run on a GPU through the search's own path."""

from __future__ import annotations


from kernel_src.knobs import Knobs

from .build import BuildSpec, build
from .defects import BASE, DEFECTS, NUMERICS, cut_from, describe
from .lab import Lab
from .outcome import Outcome
from .tolerance import envelope, summarize

# correct kernels the envelope holds to the bound: the ladder's rungs
CORRECT = {
    "seed": Knobs(),
    "mma": Knobs(compute="mma"),
    "mma_swizzle_cpasync_ex2": BASE,
    "mma_pad_cpasync_ex2": Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2"),
}
REJECTED = (Outcome.WRONG, Outcome.SUSPICIOUS, Outcome.CRASH, Outcome.TIMEOUT, Outcome.RESOURCE_FAIL)


def _specs(arch: str) -> dict[str, BuildSpec]:
    every = dict(dtypes=("float16", "bfloat16"), dims=(64, 128), causals=(False, True))
    specs = {name: BuildSpec(knobs=k, arch=arch, **every) for name, k in CORRECT.items()}
    specs.update({name: BuildSpec(knobs=BASE, arch=arch, defect=code, **every) for name, (code, _) in DEFECTS.items()})
    return specs


def tolerance_report(lab: Lab, *, limit: int | None = None, seed: int = 20261130) -> dict:
    specs = _specs(lab.limits.arch)
    built = build(list(specs.values()), lab.cache_dir / "build", jobs=lab.jobs)
    broken = [n for n, s in specs.items() if not built[s.key()].ok]
    if broken:
        raise RuntimeError(f"these kernels did not build: {', '.join(broken)}")
    configs = envelope()[:limit] if limit else envelope()
    job = lab.run_job([{"do": "envelope", "tag": "envelope", "seed": seed,
                        "libs": {n: built[s.key()].library for n, s in specs.items()},
                        "configs": [c.model_dump() for c in configs]}], timeout=590)
    res = job.value("envelope")
    if res is None:
        raise RuntimeError(f"the envelope job failed ({job.status}): {job.stderr[-1500:]}")
    report = summarize(res["rows"], list(CORRECT), list(DEFECTS))
    report["n_configs"] = res["n_configs"]
    report["rows"] = res["rows"]
    return report


def defect_battery(lab: Lab, *, t_keep: float, t_noise: float, bcs: tuple[int, ...] = (BASE.bc,),
                   names: tuple[str, ...] | None = None, control: bool = False,
                   base: Knobs | None = None) -> list[dict]:
    """Each defect evaluated against the correct kernel it was cut from, exactly as the search
    evaluates a candidate (C1 on that candidate's own tile tails and every input pattern, the hostile
    ones included; paired timing with the re-check; C2 twice), at each key-block width in `bcs` (an edge
    test late by one is where the tile's tails are). Every defect of DEFECTS and NUMERICS unless `names`;
    each cut from its own correct kernel (experiments.defects.cut_from), or from `base` when given (a found
    kernel whose code the defects' hooks reach). `control`: a row per BC and correct kernel evaluating it
    against itself, which must not be rejected (the inputs must not fail correct kernels)."""
    names = tuple(names or (*DEFECTS, *NUMERICS))
    every = dict(arch=lab.limits.arch, dtypes=(lab.shape.dtype,), dims=(lab.shape.D,), causals=(False, True))
    plan = []  # (bc, name, base spec, candidate spec)
    for bc in bcs:
        controlled = set()
        for n in names:
            knobs = (base or cut_from(n)).replace(bc=bc)
            ref = BuildSpec(knobs=knobs, **every)
            if control and ref.key() not in controlled:
                controlled.add(ref.key())
                plan.append((bc, "control", ref, ref))
            plan.append((bc, n, ref, BuildSpec(knobs=knobs, defect=describe(n)[0], **every)))
    built = build(list({s.key(): s for _, _, b, c in plan for s in (b, c)}.values()), lab.cache_dir / "build", jobs=lab.jobs)
    out = []
    for bc, name, ref, spec in plan:
        ev = lab.evaluate_libraries(built[ref.key()], built[spec.key()], t_keep=t_keep, t_noise=t_noise, knobs=spec.knobs)
        failed = next((c for tag in ("c1", "c2") for c in ((getattr(ev, tag) or {}).get("checks") or []) if not c["ok"]), None)
        out.append({"defect": name, "bc": bc, "knobs": spec.knobs.label(),
                    "what": describe(name)[1] if name != "control" else "the correct kernel against itself",
                    "outcome": ev.outcome.value, "rejected": ev.outcome in REJECTED, "detail": ev.detail,
                    "margin": (ev.paired or {}).get("margin"),
                    "caught_by": failed and {"N": failed["shape"]["N"], "causal": failed["shape"]["causal"],
                                             "pattern": failed.get("pattern", "normal"), "reason": failed["reason"]}})
    return out
