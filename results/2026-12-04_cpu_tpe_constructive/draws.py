"""What a TPE draw costs on the CPU, drawn constructively (SearchOptions.tpe_draw="constructive", the default now)
against the uniform draw the recorded runs made: `run --budget 20 --strategy tpe` from the naive seed at B2 H16 N2048
D128 on the simulated H200 of the tests (tests/fakes.SimBench: a synthetic rate model, no builds, no GPU: its rates
say nothing of the kernels), three RNG seeds each way, counting Optuna's asks and timing the whole run.
CPU only: PYTHONPATH=. python3 results/2026-12-04_cpu_tpe_constructive/draws.py > .../draws.txt"""
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import optuna  # noqa: E402
from fakes import SimBench  # noqa: E402

from agent.loop import run_search  # noqa: E402
from agent.state import SearchOptions  # noqa: E402
from experiments.problem import Shape  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from store import queries as q  # noqa: E402
from store.db import open_db  # noqa: E402

ASKS = {"n": 0}
_ask = optuna.Study.ask


def counted(self, *a, **kw):
    ASKS["n"] += 1
    return _ask(self, *a, **kw)


def main() -> None:
    optuna.Study.ask = counted
    print(f"optuna {optuna.__version__}")
    print("| draw | RNG seed | asks for 20 draws | asks a draw (median) | run wall on this CPU | distinct configurations | "
          "with mainloop=ws | compute of the final kernel |")
    print("|---|---|---|---|---|---|---|---|")
    for draw in ("uniform", "constructive"):
        for seed in (1, 2, 3):
            ASKS["n"] = 0
            with tempfile.TemporaryDirectory() as d:
                db = open_db(Path(d) / "t.db")
                t0 = time.perf_counter()
                per = []
                orig = SimBench.evaluate

                def evaluate(self, *a, **kw):  # the asks between two measured candidates: one draw's
                    per.append(ASKS["n"])
                    return orig(self, *a, **kw)

                SimBench.evaluate = evaluate
                try:
                    rid = run_search(SimBench(), db, shape=Shape(B=2, H=16, N=2048, D=128), seed=Knobs(),
                                     artifacts=Path(d) / "art",
                                     options=SearchOptions(strategy="tpe", rng_seed=seed, budget=20, tpe_draw=draw))
                finally:
                    SimBench.evaluate = orig
                wall = time.perf_counter() - t0
                rows = [e for e in q.history(db, rid) if e["kind"] == "sample"]
                db.close()
            steps = sorted(b - a for a, b in zip([0] + per, per) if b > a)
            knobs = [e["knobs"] if isinstance(e["knobs"], dict) else json.loads(e["knobs"]) for e in rows]
            ws = sum(k.get("mainloop") == "ws" for k in knobs)
            kept = [k for k, e in zip(knobs, rows) if e["outcome"] == "KEPT"]
            print(f"| {draw} | {seed} | {ASKS['n']} | {steps[len(steps) // 2] if steps else '-'} | {wall:.1f} s | "
                  f"{len({e['knob_key'] for e in rows})} of {len(rows)} | {ws} | {kept[-1]['compute'] if kept else 'scalar (the seed)'} |")


def points(n: int = 1000) -> None:
    """Constructive points drawn with a uniform pick at each step (no Optuna): the share valid, and of dead ends."""
    import random

    from agent.levers import CATALOG
    from agent.strategies.base import Constructive, knobs_of, space
    from kernel_src.knobs import KnobError

    build, rng = Constructive(space(tuple(CATALOG), Knobs(), False)), random.Random(0)
    valid = dead = 0
    for _ in range(n):
        p = build.draw(lambda d, ok: rng.choice(ok))
        if p is None:
            dead += 1
            continue
        try:
            knobs_of(p)
            valid += 1
        except KnobError:
            pass
    print(f"\nconstructive points from the naive seed's space, a uniform pick at each step: {valid / n:.1%} valid, "
          f"{dead / n:.1%} dead ends, of {n}")


if __name__ == "__main__":
    main()
    points()
