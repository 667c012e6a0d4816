"""Read from two databases: the same screen on one GPU and with --gpus N, side by
side: wall time of each run, and each lever's outcome and paired margin, with the worker (GPU) that
measured it and the A/A null it was judged with there.

    python3 scripts/dask_side_by_side.py ONE.db MANY.db OUT_DIR    (writes side_by_side.md and .json)
"""
from __future__ import annotations

import json
import sqlite3
import sys
from datetime import datetime
from pathlib import Path


def _run(path: str) -> dict:
    c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    c.row_factory = sqlite3.Row
    run = dict(c.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone())
    rows = {}
    for e in c.execute("SELECT * FROM experiments WHERE run_id = ? AND kind IN ('lever', 'compound') ORDER BY id",
                       [run["id"]]):
        device = None
        for (payload,) in c.execute("SELECT payload FROM measurements WHERE experiment_id = ? AND kind = 'paired'", [e["id"]]):
            device = (json.loads(payload) or {}).get("device") or device
        rows[e["lever"]] = {"seq": e["seq"], "outcome": e["outcome"], "margin": e["margin"], "detail": e["detail"],
                            "device": device}
    wall = None
    if run["finished_at"]:
        wall = (datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])).total_seconds()
    return {"command": run["command"], "gpu": run["gpu_name"], "problem": run["problem_key"], "status": run["status"],
            "stop_reason": run["stop_reason"], "t_noise": run["t_noise"], "wall_seconds": wall, "levers": rows}


def _cell(r: dict | None) -> str:
    if r is None:
        return "-"
    m = f"{r['margin']:.4f} " if r["margin"] is not None else ""
    return f"{m}{r['outcome']}"


def main(one: str, many: str, out: str) -> None:
    a, b = _run(one), _run(many)
    levers = list(dict.fromkeys([*a["levers"], *b["levers"]]))
    same = [n for n in levers if n in a["levers"] and n in b["levers"]
            and a["levers"][n]["outcome"] == b["levers"][n]["outcome"]]
    workers = sorted({(r["device"] or {}).get("worker") for r in b["levers"].values()} - {None})
    lines = [f"# The same screen on one GPU and on Dask workers ({', '.join(workers)} measured), {a['problem']}", "",
             "| | one GPU | Dask workers |", "|---|---|---|",
             f"| command | `{a['command']}` | `{b['command']}` |",
             f"| GPU | {a['gpu']} | {b['gpu']} |",
             f"| wall time, whole run (s) | {a['wall_seconds']:.0f} | {b['wall_seconds']:.0f} |"
             if a["wall_seconds"] is not None and b["wall_seconds"] is not None else "| wall time | unfinished | |",
             f"| status | {a['status']}: {a['stop_reason']} | {b['status']}: {b['stop_reason']} |",
             f"| run's t_noise (home GPU) | {a['t_noise']:.4%} | {b['t_noise']:.4%} |" if a["t_noise"] and b["t_noise"] else "",
             "", f"Same outcome for {len(same)} of {len(levers)} levers. Each row is two separate measurements "
             "(different processes, and in the second run possibly another GPU), not one measurement read twice.", "",
             "| lever | one GPU | Dask | measured on | that worker's t_noise | note |", "|---|---|---|---|---|---|"]
    for n in levers:
        ra, rb = a["levers"].get(n), b["levers"].get(n)
        d = (rb or {}).get("device") or {}
        where = f"{d.get('worker')} (CUDA_VISIBLE_DEVICES={d.get('cuda_visible_devices')})" if d else ""
        tn = f"{d['t_noise']:.4%}" if "t_noise" in d else ""
        note = d.get("requeued", "") + ("" if n in same else " differs")
        lines.append(f"| {n} | {_cell(ra)} | {_cell(rb)} | {where} | {tn} | {note.strip()} |")
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "side_by_side.md").write_text("\n".join(x for x in lines if x is not None) + "\n")
    (Path(out) / "side_by_side.json").write_text(json.dumps({"one_gpu": a, "dask": b, "same_outcome": same}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:4])
