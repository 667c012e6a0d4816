#!/usr/bin/env python3
"""Why the packing levers stay out of random search's and TPE's space (agent.levers.Lever.sampled), on this CPU machine:
the share of valid points among uniform draws from the samplers' space from the naive seed, with today's catalog as if
both levers entered it (their values joined to mainloop=ws) and as it is. Fixed RNG seed.

    python3 results/2026-12-03_h200_p_pack/sampler_valid_share.py > results/2026-12-03_h200_p_pack/sampler_valid_share.txt"""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent.levers import CATALOG  # noqa: E402
from agent.strategies.base import knobs_of, space  # noqa: E402
from kernel_src.knobs import SEED, KnobError  # noqa: E402

DRAWS = 200_000


def share(levers) -> tuple[float, list]:
    dims = space(levers, SEED, False)
    rng, ok = random.Random(0), 0
    for _ in range(DRAWS):
        try:
            knobs_of({k: rng.choice(v) for k, v in dims.items()})
            ok += 1
        except KnobError:
            pass
    return 100 * ok / DRAWS, dims["mainloop"]


def main() -> int:
    entered = tuple(lv.model_copy(update={"sampled": True}) for lv in CATALOG)
    for label, levers in (("with the packing levers sampled", entered), ("as the catalog is (not sampled)", CATALOG)):
        pct, mainloop = share(levers)
        print(f"{label}: {pct:.4f}% of {DRAWS} uniform draws valid; mainloop values {mainloop}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
