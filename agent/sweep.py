"""`fa5090-search sweep`: the best-of-N reference a search is judged against.

N configurations drawn uniformly from the valid, launchable configurations of the search's own
space (agent.strategies.base.space), all built in one ninja call, each checked by the C1 tier and
then timed paired against SDPA flash in its own fresh process. No keeps, no A/A null: every row is
one paired ratio against the same comparator, so the rows rank against each other only as well as
the noise of that comparison allows (about 0.2-0.6% on the H200 at these sizes)."""
from __future__ import annotations

import random
from functools import partial

from experiments.problem import Shape, c1_shapes

from . import levers as catalog
from .events import Phase, Say, quiet
from .strategies.base import sample_valid, space


def draw(n: int, rng_seed: int, shape: Shape, limits, seed_knobs) -> list:
    rng, seen, out = random.Random(rng_seed), set(), []
    dims = space(catalog.CATALOG, seed_knobs, shape.causal)
    for _ in range(n):
        k = sample_valid(rng, dims, limits, shape.D, exclude=seen)
        if k is None:
            break
        seen.add(k.key())
        out.append(k)
    return out


def sweep(bench, shape: Shape, configs: list, say: Say = quiet) -> list[dict]:
    """One row per configuration, fastest first: its compiler figures, C1 verdict, and its rate
    against SDPA flash's in one paired measurement (`vs_sdpa` > 1: faster than SDPA). A cluster
    bench (agent.distributed, `--gpus`) times the configurations on all its GPUs at once."""
    say(Phase(text=f"building {len(configs)} configurations in one ninja call"))
    figs = bench.static(configs)
    rows, todo = {}, []  # config index -> row, so untimed rows keep the draw order as before
    for i, k in enumerate(configs):
        f = figs.get(k.key())
        row = {"label": k.label(), "knobs": k.model_dump(mode="json"), "static": f.model_dump() if f else None}
        if f is None:
            rows[i] = {**row, "status": "COMPILE_FAIL"}
        elif f.refusal:
            rows[i] = {**row, "status": "BLOCKED_BY_ARITHMETIC", "detail": f.refusal}
        else:
            todo.append((i, (k, row)))
    timed = partial(timed_row, shape=shape)
    fan = bench.fan_out()
    if fan is not None:
        say(Phase(text=f"timing {len(todo)} configurations on {len(fan.workers)} GPUs: {', '.join(fan.workers)}"))
        got = fan.map(timed, [it for _, it in todo], knobs_of=lambda it: [it[0]],
                        on_death=lambda it, why: {**it[1], "status": "CRASH", "detail": f"its worker died twice: {why}"})
        rows.update(zip([i for i, _ in todo], got))
    else:
        for n, (i, item) in enumerate(todo):
            say(Phase(text=f"{n + 1}/{len(todo)} {item[0].label()}"))
            rows[i] = timed(bench, item)
    return sorted((rows[i] for i in sorted(rows)), key=lambda r: -(r.get("vs_sdpa") or 0))


def timed_row(bench, item: tuple, shape: Shape) -> dict:
    """One configuration on one GPU: the C1 tier, then paired against SDPA flash (both arms on the
    same device, in one fresh process)."""
    k, row = item
    job = bench.check(k, c1_shapes(shape, k))
    res = job.value("check")
    if job.status != "ok" or not res or not res["ok"]:
        return {**row, "status": "WRONG" if job.status == "ok" else job.status.upper()}
    p = bench.paired({"knobs": k}, {"sdpa": "flash"}).value("paired")
    if p is None:
        return {**row, "status": "CRASH"}
    return {**row, "status": "timed", "vs_sdpa": 1 / p["margin"], "tflops": p["tflops_base"],
            "sdpa_tflops": p["tflops_cand"], "margin_ab": p["margin_ab"], "margin_ba": p["margin_ba"]}
