"""The commands that read the database and the catalog: history, show, shelf, levers."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from store import queries as q
from store.errors import StoreError

from .common import (
    DB_OPT,
    JSON_OPT,
    RUN_OPT,
    Kind,
    OutcomeName,
    ShelfStatus,
    _artifact_now,
    _fail,
    _print_table,
    _fmt,
    _open,
    _print_history,
    _run_id,
    _some_run,
    app,
    console,
    err,
)


@app.command()
def history(
    run_id: Optional[int] = RUN_OPT,
    all_runs: bool = typer.Option(False, "--all", help="Every run in the database, with a run column; screen runs' rows are labelled `screen`."),
    outcome: Optional[OutcomeName] = typer.Option(None, case_sensitive=False, help="Only this outcome."),
    lever: Optional[str] = typer.Option(None, help="Only moves that include this lever, e.g. q_from_smem."),
    kind: Optional[Kind] = typer.Option(None, help="Only this kind of row."),
    command: bool = typer.Option(False, "--command", help="Print the command line each selected run was started with, instead of its experiments."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """One row per experiment: lever, outcome, margin (with AB/BA halves), predicted band, TFLOP/s; under
    the table, the final kernel against SDPA flash and cuDNN (or why a pair is missing).

    Reads the database read-only (never migrates it). Examples: `history --all --outcome KEPT`,
    `history --lever q_from_smem --json`, `history | cat` (no folding in a pipe)."""
    db = _open(db_path, create=False, read_only=True)
    try:
        _some_run(db, db_path)
        rid = None if all_runs else _run_id(db, run_id)
        rows = q.history(db, rid)
    except StoreError as e:
        _fail(str(e))
    if command:
        picked = q.runs(db) if all_runs else [q.get_run(db, rid)] if rid else []
        if as_json:
            print(json.dumps([{k: r.get(k) for k in ("id", "started_at", "status", "strategy", "problem_key", "command")}
                              for r in picked], indent=1, default=str))
            return
        for r in picked:
            print(f"run {r['id']} ({r['started_at']}, {r['status']}): {r['command'] or 'not recorded'}")
        return
    if lever is not None:
        _known_lever(lever, db)
    rows = [r for r in rows if (outcome is None or r["outcome"] == outcome) and (kind is None or r["kind"] == kind)
            and (lever is None or lever in (r["lever"] or "").split("+"))]
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    from agent.summary import run_summary

    if all_runs:
        _print_history(rows, None, runs={r["id"]: r for r in q.runs(db)})
        for r in q.runs(db):
            console.print(f"run {r['id']}: {escape(run_summary(db, r['id'])['against_sdpa_text'])}")
    else:
        _print_history(rows, q.get_run(db, rid) if rid else None)
        if rid:  # the closing comparison, whatever the filters left in the table
            console.print(escape(run_summary(db, rid)["against_sdpa_text"]))


def _known_lever(name: str, db) -> None:
    """A lever filter names a lever of the catalog or one this database measured (an older catalog's);
    a typo is a usage error with the nearest names, not an empty table."""
    import difflib

    from agent.levers import CATALOG

    known = [lv.name for lv in CATALOG]
    known += sorted({part for (name_,) in db.execute("SELECT DISTINCT lever FROM experiments WHERE lever IS NOT NULL")
                     for part in name_.split("+")} - set(known))
    if name in known:
        return
    near = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    _fail(f"unknown lever '{name}'" + (f" (did you mean {', '.join(near)}?)" if near else "") + f"; known: {', '.join(known)}"
          " (`fa5090-search levers` describes them)", 2)


@app.command()
def show(experiment_id: int = typer.Argument(..., help="Experiment id (first column of `history`)."),
         as_json: bool = JSON_OPT, db_path: Path = DB_OPT):
    """One experiment in full: knobs and what changed, prediction, the move's rationale and compiler
    figures, outcome, margin, correctness, diagnosis (read-only). Missing values print as '-'; the
    ncu CSV is where it is now, beside the database (<db>_artifacts/run-N/), or '(not found)'.
    Example: `show 7 --db results/2026-11-30_h200_run2/fa5090.db`."""
    db = _open(db_path, create=False, read_only=True)
    try:
        e = q.experiment(db, experiment_id)
    except StoreError as ex:
        _fail(str(ex))
    csv_now = _artifact_now(db_path, e["diagnosis"].get("ncu_csv")) if e.get("diagnosis") else None
    if as_json:
        if e.get("diagnosis"):  # beside the stored path, where the file is now (or None)
            e["diagnosis"]["ncu_csv_now"] = None if "(not found" in csv_now or csv_now == "-" else csv_now
        print(json.dumps(e, indent=1, default=str))
        return
    from agent.progress import render_experiment

    render_experiment(console, e, ncu_csv_now=csv_now)


@app.command()
def shelf(
    run_id: Optional[int] = RUN_OPT,
    status: Optional[ShelfStatus] = typer.Option(None, help="Only this status (default: all)."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """Rejected levers and the conditions they lost under (registers, smem/CTA, CTAs/SM, warps/SM, diagnosis); read-only.

    Example: `shelf --status shelved --json`."""
    db = _open(db_path, create=False, read_only=True)
    try:
        _some_run(db, db_path)
        rows = q.shelf(db, _run_id(db, run_id), status=status)
    except StoreError as e:
        _fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title="shelf")
    for c in ("id", "lever", "outcome", "margin", "status", "regs", "smem/CTA", "CTAs/SM", "warps/SM", "diagnosis", "exp"):
        t.add_column(c, overflow="fold")  # never an ellipsis in place of a value
    for r in rows:
        c = r["conditions"] or {}
        t.add_row(str(r["id"]), r["lever"], r["outcome"], _fmt(r["margin"]), r["status"], str(c.get("registers")),
                  str(c.get("smem_per_cta")), str(c.get("ctas_per_sm")), str(c.get("warps_per_sm")),
                  str(c.get("diagnosis")), str(r["experiment_id"]))
    _print_table(t)



@app.command()
def levers(as_json: bool = JSON_OPT):
    """The lever catalog: knob values each sets, diagnoses it targets, precondition, predicted band.

    Example: `levers --json`."""
    from agent.levers import CATALOG
    from agent.replay.catalog import RELIEFS_SINCE, as_listed, since

    if as_json:
        print(json.dumps([as_listed(lv) for lv in CATALOG], indent=1))
        return
    t = Table(title="levers (requires: the current knobs a lever applies to, and in brackets the problems it is "
                    "proposed on where not every one; compute=wgmma, the Hopper arm, from agent version 3; a relief "
                    "(vN): a diagnosis it addresses on that arm from agent version N)")
    for c in ("lever", "sets", "targets", "requires", "predicted", "hypothesis"):
        t.add_column(c, overflow="fold")
    for lv in CATALOG:
        reliefs = [f"{r.label} (v{RELIEFS_SINCE}, {'/'.join(r.compute)}"
                   + (f" {r.predicted[0]:.2f}-{r.predicted[1]:.2f})" if r.predicted else ")") for r in lv.reliefs]
        t.add_row(lv.name + (f" (from v{since(lv)})" if since(lv) > 1 else ""), json.dumps(lv.sets),
                  ", ".join([*lv.targets, *reliefs]), (json.dumps(lv.requires) if lv.requires else "")
                  + "".join(f" ({', '.join(extra)} from v{v})" for v, extra in as_listed(lv)["requires_since"].items())
                  + (escape(f" [{lv.problems()}]") if lv.problems() else ""),
                  f"{lv.predicted[0]:.2f}-{lv.predicted[1]:.2f}",
                  lv.hypothesis + (f" {lv.on_wgmma}" if lv.on_wgmma else ""))
    _print_table(t)


@app.command()
def knobs(as_json: bool = JSON_OPT):
    """The knobs of the kernel's space: each one's values, its default (the naive seed) and the levers
    that move it. Set them with `run --seed-knob NAME=VALUE`, `static --knob`, `export NAME=VALUE`.
    Example: `knobs --json`."""
    from agent.levers import CATALOG
    from kernel_src.knobs import SEED, Knobs

    rows = []
    seed = SEED.model_dump(mode="json")
    for name, field in Knobs.model_fields.items():
        ann = field.annotation
        movers = [lv.name for lv in CATALOG if name in lv.sets]
        # the seed's value and those the levers set: what the agent, random search and TPE can reach
        set_by = [seed[name], *(getattr(lv.sets[name], "value", lv.sets[name]) for lv in CATALOG if name in lv.sets)]
        if isinstance(ann, type) and issubclass(ann, Enum):
            values = [m.value for m in ann]
            reached = [v for v in values if v in set_by]  # in the knob's own order
        else:  # integer knobs: the values the levers set, beside the seed's
            values = reached = sorted(set(set_by))
        rows.append({"knob": name, "values": values, "reached": reached, "default": seed[name], "levers": movers})
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    t = Table(title="knobs (the naive seed is every default; the validator refuses invalid combinations by name; "
                    "a value no lever sets is reached only by `--seed-knob`, `static --knob` or `export`)")
    for c in ("knob", "values", "the search reaches", "default", "moved by"):
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(r["knob"], ", ".join(map(str, r["values"])), ", ".join(map(str, r["reached"])), str(r["default"]),
                  ", ".join(r["levers"]) or "no lever")
    _print_table(t)


@app.command()
def compare(
    runs: list[str] = typer.Argument(..., help="Two or more runs: RUN (an id in --db) or PATH.db[:RUN] (default: that file's latest run)."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """Runs side by side (two strategies, two GPUs, two problems): experiments, keeps, seed -> final
    TFLOP/s, the final kernel against SDPA flash and SDPA cuDNN, each in its own comparator pair (a run
    recorded before the cuDNN pair says "not measured"), predictions inside their band, time per
    experiment and where the run's time went (child processes, replicates, ncu, nulls, waits for builds), final knobs. Read-only. Example:
    `compare results/2026-11-30_h200_agent_vs_random/n8192_agent.db results/2026-11-30_h200_agent_vs_random/n8192_random.db`."""
    from agent.summary import run_summary

    if len(runs) == 1 and not as_json:  # one column is no comparison: said, so the table is not read as one
        err.print(f"compare: one run given ({runs[0]}), so this is its summary alone; give two or more to set them "
                  "side by side, e.g. `compare a.db b.db` or `compare 1 2 --db a.db`", markup=False, soft_wrap=True)
    sums = []
    for ref in runs:
        path, _, rid = ref.rpartition(":") if ref.rpartition(":")[2].isdigit() and ".db" in ref else ("", "", ref)
        if ".db" in ref and not path:
            path, rid = ref, ""
        db = _open(Path(path) if path else db_path, create=False, read_only=True)
        try:
            run_id = int(rid) if rid else _run_id(db, None)
            if run_id is None:
                _fail(f"{path or db_path} holds no run")
            sums.append({"ref": ref, **run_summary(db, run_id)})
        except (StoreError, ValueError) as e:
            _fail(f"{ref}: {e}")
    if as_json:
        print(json.dumps(sums, indent=1, default=str))
        return
    t = Table(title="runs side by side")
    t.add_column("")
    for s in sums:
        t.add_column(s["ref"], overflow="fold")
    fields = [("strategy", "strategy"), ("GPU", "gpu"), ("problem", "problem"), ("stopped", "stop_reason"),
              ("experiments", "experiments"), ("kept", "kept"), ("seed TFLOP/s", "seed_tflops"),
              ("best TFLOP/s at the last re-anchor", "final_tflops"), ("final vs SDPA flash (its pair)", "vs_sdpa_flash"),
              ("SDPA flash TFLOP/s", "sdpa_flash_tflops"), ("final vs SDPA cuDNN (its pair)", "vs_sdpa_cudnn"),
              ("SDPA cuDNN TFLOP/s", "sdpa_cudnn_tflops"), ("margins inside band", "inside_band"),
              ("median s / experiment", "median_seconds"), ("wall s / experiment", "wall_seconds_per_experiment"),
              ("wall s, start to finish", "time.wall_s"), ("s in child processes / replicates / ncu / nulls", "time"),
              ("s waiting for builds", "time.builds_waited_s"), ("A/A nulls", "nulls"), ("final kernel", "final_knobs")]
    for label, key in fields:
        cells = []
        for s in sums:
            v = s.get(key)
            tm = s.get("time") or {}
            if key.startswith("time."):
                v = tm.get(key[5:])
            elif key == "time":  # where the time went (a replay holds the recorded run's seconds)
                v = (" / ".join(f"{tm[k]:.0f}" for k in ("children_s", "replicates_s", "profiles_s", "nulls_s"))
                     if tm.get("children_s") else None)
            if key == "inside_band":
                v = f"{s['inside_band']} of {s['banded']}" if s["banded"] else "no predictions"
            elif key in ("vs_sdpa_flash", "vs_sdpa_cudnn"):  # no pair: why (unavailable, failed, not measured)
                a = next(a for a in s["against_sdpa"] if f"vs_sdpa_{a['backend']}" == key)
                v = f"{v:.3f}" if v is not None else a["status"] + (f": {a['why']}" if a["status"] == "unavailable" else "")
            elif isinstance(v, float):
                v = f"{v:.1f}"
            cells.append("-" if v is None else str(v))
        t.add_row(label, *cells)
    _print_table(t, prose=tuple(s["ref"] for s in sums))


@app.command()
def report(
    run_id: Optional[int] = RUN_OPT,
    out: Optional[Path] = typer.Option(None, "--out", help="Folder for report.html, report.md and the PNGs (default: <db>_report/run-N)."),
    db_path: Path = DB_OPT,
):
    """One run as a page: the ladder, predicted band against measured margin, stalls of each profiled kernel.

    Writes report.html (plots as inline SVG, readable from disk with no network) and a Markdown twin
    with PNGs, then the experiments, the shelf, the re-anchors, the A/A nulls and the environment as
    tables. Read-only; needs matplotlib (`pip install 'fa5090-search[report]'`). Example:
    `report --db results/2026-11-30_h200_agent_vs_random/n8192_agent.db --out /tmp/r`."""
    from agent.report import MatplotlibMissing, write

    db = _open(db_path, create=False, read_only=True)
    try:
        rid = _run_id(db, run_id)
        if rid is None:
            _fail(f"{db_path} holds no run")
        folder = out or db_path.parent / f"{db_path.stem}_report" / f"run-{rid}"
        if folder.exists() and not folder.is_dir():
            _fail(f"{folder} is a file; --out takes a folder", 2)
        write(db, rid, folder)
    except (StoreError, MatplotlibMissing) as e:
        _fail(str(e))
    except OSError as e:  # a read-only folder, a file where a folder should be
        _fail(f"cannot write the report to {folder} ({e.strerror}: {e.filename}); give --out a folder you can write")
    console.print(f"wrote {folder / 'report.html'} and {folder / 'report.md'}")
