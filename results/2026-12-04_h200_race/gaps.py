"""Where a race run's wall time goes, from its database's timestamps (1 s resolution): the sum of its sampled
experiments' own durations (the agent's: its levers, compound moves and re-screens; started_at to finished_at) and of
the gaps between one's finish and the next one's start (the strategy's draw, a build not ready, the bookkeeping); and
how many of them drew the warp-specialised mainloop.
CPU only: python3 results/2026-12-04_h200_race/gaps.py"""
import datetime as dt
import json
import sqlite3
import statistics
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = ["call1/d128_random_1", "call1/d128_random_2", "call1/d128_random_3", "call3/d128_tpe_1", "call6/d128_tpe_2",
        "call4/d128_tpe_3", "call5/d64_random_1", "call5/d64_random_2", "call5/d64_random_3",
        # causal GQA: random, and TPE drawing constructively (tpe_1's database is its resumed run's, call 10)
        "call8/gqa_random_1", "call9/gqa_random_2", "call9/gqa_random_3", "call10/gqa_tpe_1", "call10/gqa_tpe_2",
        "call10/gqa_tpe_3",
        # N8192 D64: TPE drawing constructively
        "call13/d64_tpe_1", "call13/d64_tpe_2", "call14/d64_tpe_3",
        # the agent, policy 20 (the default), at the three problems and at B16 H16 N512 D64
        "call17/d128_agent_3", "call17/d64_agent_3", "call16/gqa_agent_3", "call15/n512_agent_1", "call18/n512_agent_2"]


def at(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def main() -> None:
    print("| run | experiments | their durations (s) | median | gaps between them (s) | largest gap | mainloop=ws |")
    print("|---|---|---|---|---|---|---|")
    for run in RUNS:
        with tempfile.TemporaryDirectory() as d:
            with tarfile.open(HERE / f"{run}_db.tar.xz") as t:
                t.extractall(d, members=[t.getmember("fa5090.db")], filter="data")
            con = sqlite3.connect(Path(d) / "fa5090.db")
            rows = con.execute("SELECT started_at, finished_at, knobs FROM experiments WHERE kind IN "
                               "('sample', 'lever', 'compound', 'rescreen') "
                               "ORDER BY seq").fetchall()
            con.close()
        ws = sum(json.loads(k).get("mainloop") == "ws" for _, _, k in rows)
        dur = [(at(f) - at(s)).total_seconds() for s, f, _ in rows]
        gaps = [(at(rows[i + 1][0]) - at(rows[i][1])).total_seconds() for i in range(len(rows) - 1)]
        print(f"| {run} | {len(rows)} | {sum(dur):.0f} | {statistics.median(dur):.0f} | {sum(gaps):.0f} | {max(gaps):.0f} | {ws} |")


if __name__ == "__main__":
    main()
