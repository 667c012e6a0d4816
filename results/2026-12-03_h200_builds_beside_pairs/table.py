#!/usr/bin/env python3
"""Each pair of call 1 quiet and beside the compile load: its margins in three fresh processes, their mean, and the
largest AB/BA gap. CPU only: python3 results/2026-12-03_h200_builds_beside_pairs/table.py > .../table.txt"""
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(cond: str) -> dict:
    by = {}
    for r in json.loads((HERE / "call1" / f"{cond}.json").read_text())["rows"]:
        by.setdefault((r["shape"], r["base"], r["cand"]), []).append(r)
    return by


def main() -> int:
    quiet, loaded = rows("quiet"), rows("loaded")
    print("pair | quiet margins (mean) | beside the compile load (mean) | loaded - quiet | largest AB-BA gap q/l")
    for key, q in quiet.items():
        ld = loaded[key]
        mq, ml = statistics.mean(r["margin"] for r in q), statistics.mean(r["margin"] for r in ld)
        gap = lambda rs: max(abs(r["margin_ab"] - r["margin_ba"]) for r in rs)
        fmt = lambda rs: " ".join(f"{r['margin']:.4f}" for r in rs)
        print(f"{key[0]} {key[1]}->{key[2]} | {fmt(q)} ({mq:.4f}) | {fmt(ld)} ({ml:.4f}) | {ml - mq:+.4f} | "
              f"{gap(q):.4f}/{gap(ld):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
