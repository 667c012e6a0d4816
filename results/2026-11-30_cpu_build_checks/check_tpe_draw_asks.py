"""How many TPE asks the first draw takes from the mma seed with the whole catalog, with `pingpong` as a
dimension of its own (before 724cb81) and as one more value of kv_release (agent.strategies.base.space
now): the figure behind the samplers' space change. No GPU needed.
    python3 results/2026-11-30_cpu_build_checks/check_tpe_draw_asks.py > results/2026-11-30_cpu_build_checks/tpe_draw_asks.txt"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from agent.levers import CATALOG  # noqa: E402
from agent.strategies import base, tpe  # noqa: E402
from agent.strategies.base import State  # noqa: E402
from kernel_src.arch import limits  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

SEED = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])
joined = base.space


def split(levers, seed, causal):
    """The space before the change: pingpong a dimension of its own."""
    dims = joined(levers, seed, causal)
    if base.PRODUCER_PINGPONG in dims.get("kv_release", ()):
        dims["kv_release"] = [v for v in dims["kv_release"] if v != base.PRODUCER_PINGPONG]
        dims["pingpong"] = ["off", "on"]
    return dims


import random  # noqa: E402

print("# 1) the share of the space's points that are valid, launchable configurations (20000 uniform points, Random(0);")
print("#    mma/pad/cp_async/ex2, whole catalog, sm_90 limits, D 128, non-causal)")
for name, fn in (("pingpong its own dimension", split), ("pingpong a value of kv_release", joined)):
    dims, rng, ok = fn(tuple(CATALOG), SEED, False), random.Random(0), 0
    for _ in range(20000):
        try:
            k = base.knobs_of({d: rng.choice(v) for d, v in dims.items()})
        except Exception:  # noqa: BLE001 - an invalid combination
            continue
        ok += base.launchable(k, limits("sm_90"), 128)
    print(f"{name}: {ok / 20000:.4f} valid")
print("# 2) TPE (TPESampler seed 0), asks until its first valid draw, same setting")
for name, fn in (("pingpong its own dimension", split), ("pingpong a value of kv_release", joined)):
    tpe.space = fn
    s = tpe.TpeSearch(seed=0)
    state = State(best=SEED, seed=SEED, levers=tuple(CATALOG), limits=limits("sm_90"), causal=False, head_dim=128)
    m = s._draw(state)
    print(f"{name}: {len(s.study.trials)} asks ({m.knobs.label() if m else 'none'})")
