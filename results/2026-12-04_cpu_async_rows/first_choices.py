"""Policy 20 (async_rows) against policy 19 on the recorded H200 runs of the agent (from the naive seed, and one seeded
run): each run
replayed on the CPU from its recording (the loop's own states: shelf, figures, diagnoses, t_keep), and at every ask the
first choice of both policies read from that very state and its catalog. Where they differ the line says how each
ranked move was measured in the run (if it was). CPU only, no GPU, no builds:
PYTHONPATH=. python3 results/2026-12-04_cpu_async_rows/first_choices.py > results/2026-12-04_cpu_async_rows/first_choices.txt"""
import json
import re
import sqlite3
import tarfile
import tempfile
from pathlib import Path

from agent import strategies
from agent.bench import Replay, ReplayMiss
from agent.loop import SearchOptions, run_search
from agent.strategies.limiter import LimiterAgent
from experiments.problem import Shape
from kernel_src.knobs import SEED, Knobs
from store.db import open_db

RESULTS = Path(__file__).resolve().parents[1]
RUNS = ["2026-12-03_h200_agent_suite/call10/d128_beside", "2026-12-03_h200_agent_suite/call11/d64_beside",
        "2026-12-03_h200_agent_suite/call8/d128_pipelined", "2026-12-03_h200_agent_suite/call9/causal_p16",
        "2026-12-03_h200_round_order/call2/naive", "2026-12-04_h200_race/call8/gqa_agent_1",
        "2026-12-04_h200_race/call11/gqa_agent_2", "2026-12-04_h200_race/call12/d128_agent_2",
        # seeded at N512 D64 with the naive run's final, the plain mainloop moves left out (policy 18, budget 2)
        "2026-12-03_h200_round_order/call3/short"]


def shape_of(key: str) -> Shape:
    """B2-H16-N2048-D128-float16-noncausal, B8-H32-Hkv8-N1024-D128-bfloat16-causal -> Shape."""
    m = re.fullmatch(r"B(\d+)-H(\d+)(?:-Hkv(\d+))?-N(\d+)-D(\d+)-(\w+)-(causal|noncausal)", key)
    b, h, hkv, n, d, dtype, mask = m.groups()
    return Shape(B=int(b), H=int(h), N=int(n), D=int(d), dtype=dtype, causal=mask == "causal",
                 Hkv=int(hkv) if hkv else None)


def states_of(run: str, work: Path):
    """The State of every ask of the recorded run, replayed with the policy it ran."""
    xz = RESULTS / f"{run}_db.tar.xz"  # the archives as committed, in xz (results/README.md)
    with tarfile.open(xz if xz.exists() else RESULTS / f"{run}_db.tgz") as t:
        t.extractall(work, filter="data")
    con = sqlite3.connect(work / "fa5090.db")
    key, options, command = con.execute("SELECT problem_key, options, command FROM runs WHERE id = 1").fetchone()
    con.close()
    search = json.loads(options)["search"]
    version = search["agent_version"]
    knobs = dict(kv.split("=", 1) for kv in re.findall(r"--seed-knob (\S+)", command or ""))
    seed = Knobs.parse(knobs) if knobs else SEED
    shape = shape_of(key)
    rec = work / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    states = []

    class Spy(LimiterAgent):
        def ask(self, state, n=1):
            states.append(state)
            return super().ask(state, n)

    make = strategies.make
    strategies.make = lambda name, seed=0, agent_version=None, **_: Spy(agent_version)
    bench = Replay(rec)
    bench.explicit = {"agent_version"}
    miss = None
    try:
        run_search(bench, open_db(work / "replay.db"), shape=shape, seed=seed, artifacts=work / "art",
                   options=SearchOptions(budget=search["budget"], exclude=search.get("exclude", []),
                                         agent_version=version), say=lambda e: None)
    except ReplayMiss as e:
        miss = str(e)
    finally:
        strategies.make = make
    return shape, version, states, miss


def measured(states, name):
    for st in states:
        for t in st.trials:
            if t.move.name == name and t.margin is not None:
                return f"{t.outcome} {t.margin:.4f}"
    return "not measured"


def main() -> None:
    old, new = LimiterAgent(19), LimiterAgent(20)
    for run in RUNS:
        with tempfile.TemporaryDirectory() as d:
            shape, version, states, miss = states_of(run, Path(d))
        diffs = []
        for i, st in enumerate(states, 1):
            a, b = old.ranked(st), new.ranked(st)
            a0, b0 = (a[0].move.name if a else None), (b[0].move.name if b else None)
            if a0 != b0:
                diffs.append(f"  ask {i}: policy 19 {a0} ({measured(states, a0)}), policy 20 {b0} "
                             f"({measured(states, b0)}), t_keep {st.t_keep:.4f}")
        print(f"{run} ({shape.key()}, policy {version}): {len(states)} asks replayed{', ' + miss if miss else ''}; "
              f"first choices differ at {len(diffs)}")
        print("\n".join(diffs) if diffs else "  none")


if __name__ == "__main__":
    main()
