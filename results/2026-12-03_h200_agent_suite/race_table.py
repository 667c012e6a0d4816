"""The race table (agent vs random vs TPE from the naive seed, budget 20, the same timer and keep gate): for each
problem, each run's final against SDPA cuDNN and flash in its own comparator rows, its wall time and prediction hit
rate, read from what the device printed (<record>/callN/<name>.txt, `race.sh` and `call.sh` write them); random and TPE as
the median (min-max) of their RNG seeds, TPE's by how its draws were made (SearchOptions.tpe_draw, read from each run's
database: uniform before the setting, constructive since). A run not yet made reads "not run".
CPU only: python3 results/2026-12-03_h200_agent_suite/race_table.py"""
import json
import re
import sqlite3
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
# problem -> strategy -> [record/callN/name, ...] under results/: the agent's run is the newest policy's at the problem,
# policy 20's at all three (the race's calls 16-17, source a932646); the earlier policies' runs are in EARLIER. race.sh names
# its runs <problem>_<strategy>_<seed>, and a sweep <problem>_sweep_<N>, whose rows are in <name>.json. A run
# interrupted before its last experiment is not listed (2026-12-04_h200_race/call3/d128_tpe_2, run again whole in call
# 6); one interrupted after it and resumed is (RESUMED).
RACE_04 = "2026-12-04_h200_race"
RACE = {
    "B2 H16 N2048 D128 fp16": {
        "agent": [f"{RACE_04}/call17/d128_agent_3"],
        "random": [f"{RACE_04}/call1/d128_random_{i}" for i in (1, 2, 3)],
        "tpe": [f"{RACE_04}/call3/d128_tpe_1", f"{RACE_04}/call6/d128_tpe_2", f"{RACE_04}/call4/d128_tpe_3"],
        "sweep": [f"{RACE_04}/call7/d128_sweep_30"]},
    "B2 H16 N8192 D64 fp16": {"agent": [f"{RACE_04}/call17/d64_agent_3"],
                              "random": [f"{RACE_04}/call5/d64_random_{i}" for i in (1, 2, 3)],
                              "tpe": [f"{RACE_04}/call13/d64_tpe_1", f"{RACE_04}/call13/d64_tpe_2",
                                      f"{RACE_04}/call14/d64_tpe_3"],
                              "sweep": [f"{RACE_04}/call15/d64_sweep_25"]},
    "B8 H32/8 N1024 D128 bf16 causal": {"agent": [f"{RACE_04}/call16/gqa_agent_3"],
                                        "random": [f"{RACE_04}/call8/gqa_random_1", f"{RACE_04}/call9/gqa_random_2",
                                                   f"{RACE_04}/call9/gqa_random_3"],
                                        "tpe": [f"{RACE_04}/call10/gqa_tpe_{i}" for i in (1, 2, 3)],
                                        "sweep": [f"{RACE_04}/call12/gqa_sweep_30"]},
}
# the agent's runs of earlier policies at the same problems, from the same seed and budget: problem -> (run, policy)
EARLIER = {"B2 H16 N2048 D128 fp16": [("2026-12-03_h200_agent_suite/call10/d128_beside", 16),
                                      (f"{RACE_04}/call12/d128_agent_2", 19)],
           "B2 H16 N8192 D64 fp16": [("2026-12-03_h200_agent_suite/call11/d64_beside", 16)],
           "B8 H32/8 N1024 D128 bf16 causal": [(f"{RACE_04}/call8/gqa_agent_1", 18),
                                               (f"{RACE_04}/call11/gqa_agent_2", 19)]}
# a run interrupted by its call's limit after its last experiment and finished by `run --resume` in the next call:
# the finished run (its database, the resume's output <name>_resume.txt with the closing line) -> the interrupted
# call's output; its wall time is the two together
RESUMED = {f"{RACE_04}/call10/gqa_tpe_1": f"{RACE_04}/call9/gqa_tpe_1",
           f"{RACE_04}/call12/d128_agent_2": f"{RACE_04}/call11/d128_agent_2"}


def sweep_best(run: str) -> float:
    """The sweep's fastest configuration against SDPA flash (ours over theirs)."""
    return max(r["vs_sdpa"] for r in json.loads((RESULTS / f"{run}.json").read_text()) if r.get("vs_sdpa"))


def read(run: str) -> dict:
    """One run's closing figures as the device printed them."""
    parts = [RESUMED[run], f"{run}_resume"] if run in RESUMED else [run]
    text = "\n".join((RESULTS / f"{p}.txt").read_text() for p in parts)
    s = re.search(r"^summary: .*final ([0-9.]+)x SDPA flash, ([0-9.]+)x SDPA cuDNN", text, re.M)
    wall = sum(int(m) * 60 + float(sec) for m, sec in re.findall(r"^real\t(\d+)m([\d.]+)s", text, re.M))
    hit = re.search(r"^predictions: (\d+) of (\d+) measured margins inside their band", text, re.M)
    return {"flash": float(s.group(1)), "cudnn": float(s.group(2)), "wall_s": round(wall),
            "hits": f"{hit.group(1)}/{hit.group(2)}" if hit else "-"}


def tpe_draw(run: str) -> str:
    """How a TPE run drew (its database's search options; runs recorded before the setting drew uniformly)."""
    with tempfile.TemporaryDirectory() as d:
        xz = RESULTS / f"{run}_db.tar.xz"  # as committed (recompressed to xz, results/README.md), else the device's .tgz
        with tarfile.open(xz if xz.exists() else RESULTS / f"{run}_db.tgz") as t:
            t.extractall(d, members=[t.getmember("fa5090.db")], filter="data")
        con = sqlite3.connect(Path(d) / "fa5090.db")
        (options,) = con.execute("SELECT options FROM runs ORDER BY id LIMIT 1").fetchone()
        con.close()
    return json.loads(options)["search"].get("tpe_draw", "uniform")


def tpe_cell(runs: list[str]) -> str:
    """TPE's runs, one median (min-max) per way of drawing."""
    by: dict[str, list[str]] = {}
    for r in runs:
        by.setdefault(tpe_draw(r), []).append(r)
    return "; ".join(f"{cell(rs, 'cudnn')} {draw}" for draw, rs in sorted(by.items())) or "not run"


def cell(runs: list[str], key: str) -> str:
    if not runs:
        return "not run"
    vals = [read(r)[key] for r in runs]
    if len(vals) == 1:
        return f"{vals[0]:.3f}"
    return f"{statistics.median(vals):.3f} ({min(vals):.3f}-{max(vals):.3f}, {len(vals)} seeds)"


def main() -> int:
    print("| problem | agent x cuDNN | random x cuDNN | TPE x cuDNN | agent x flash | sweep best x flash | "
          "agent / sweep best | agent wall, predictions in band |")
    print("|---|---|---|---|---|---|---|---|")
    for prob, by in RACE.items():
        a = read(by["agent"][0]) if by["agent"] else None
        wall = f"{a['wall_s']} s, {a['hits']}" if a else "not run"
        top = max((sweep_best(r) for r in by["sweep"]), default=None)
        ceiling = f"{top:.3f}" if top else "not run"
        share = f"{a['flash'] / top:.3f}" if a and top else "-"
        print(f"| {prob} | {cell(by['agent'], 'cudnn')} | {cell(by['random'], 'cudnn')} | {tpe_cell(by['tpe'])} | "
              f"{cell(by['agent'], 'flash')} | {ceiling} | {share} | {wall} |")
    print("\nThe agent of earlier policies at the same problems:\n")
    print("| problem | policy | agent x cuDNN | agent x flash | wall, predictions in band |")
    print("|---|---|---|---|---|")
    for prob, runs in EARLIER.items():
        for run, policy in runs:
            a = read(run)
            print(f"| {prob} | {policy} | {a['cudnn']:.3f} | {a['flash']:.3f} | {a['wall_s']} s, {a['hits']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
