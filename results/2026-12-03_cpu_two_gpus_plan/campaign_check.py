#!/usr/bin/env python3
"""Whether a `tune` campaign's database lost or doubled anything: per run, its problem, status, experiments (each
sequence number once), the experiments whose candidate was re-queued after its worker died (their detail says so),
the CRASHes, and the paired measurements an experiment holds (its first pair, and a keep's replicate beside it as a
`replicate` measurement: never two first pairs). Prints one line a run and exits 1 when a sequence number repeats or
an experiment holds more than one first pair.

    python3 results/2026-12-03_cpu_two_gpus_plan/campaign_check.py CAMPAIGN.db
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store import queries as q  # noqa: E402
from store.db import open_db  # noqa: E402


def check(conn) -> list[dict]:
    """One row a run: problem, status, experiments, doubled sequence numbers, re-queued, crashed, extra first pairs."""
    out = []
    for r in q.runs(conn):
        exps = [e for e in q.history(conn, r["id"]) if e["seq"]]
        seqs = Counter(e["seq"] for e in exps)
        pairs = Counter(exp_id for (exp_id,) in conn.execute(
            "select experiment_id from measurements where kind = 'paired' and experiment_id in "
            "(select id from experiments where run_id = ?)", [r["id"]]).fetchall())
        out.append({"run": r["id"], "problem": r["problem_key"], "status": r["status"], "experiments": len(exps),
                    "doubled": sorted(s for s, n in seqs.items() if n > 1),
                    "requeued": [e["seq"] for e in exps if "re-queued once after worker" in (e["detail"] or "")],
                    "crashed": [e["seq"] for e in exps if e["outcome"] == "CRASH"],
                    "two_first_pairs": sorted(i for i, n in pairs.items() if n > 1)})
    return out


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="whether a tune campaign's database lost or doubled anything")
    ap.add_argument("db", type=Path, help="the campaign's database (tune --db)")
    db = ap.parse_args(argv).db
    if not db.is_file():  # open_db would create an empty one
        print(f"no database at {db}", file=sys.stderr)
        return 2
    rows = check(open_db(db))
    for x in rows:
        print(f"run {x['run']} {x['problem']}: {x['status']}, {x['experiments']} experiments; doubled {x['doubled'] or 'none'}; "
              f"re-queued {x['requeued'] or 'none'}; CRASH {x['crashed'] or 'none'}; two first pairs {x['two_first_pairs'] or 'none'}")
    return 1 if any(x["doubled"] or x["two_first_pairs"] for x in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
