"""The commands that read the database and the catalog: history, show, shelf, levers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from store import queries as q
from store.errors import StoreError

from .common import (
    DB_OPT,
    JSON_OPT,
    RUN_OPT,
    _fail,
    _fmt,
    _open,
    _print_history,
    _run_id,
    app,
    console,
)


@app.command()
def history(
    run_id: Optional[int] = RUN_OPT,
    all_runs: bool = typer.Option(False, "--all", help="Every run in the database."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """One row per experiment: lever, outcome, margin (with AB/BA halves), predicted band, TFLOP/s."""
    db = _open(db_path, create=False)
    try:
        rid = None if all_runs else _run_id(db, run_id)
        rows = q.history(db, rid)
    except StoreError as e:
        _fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    _print_history(rows, q.get_run(db, rid) if rid else None)


@app.command()
def show(experiment_id: int = typer.Argument(..., help="Experiment id (first column of `history`)."),
         as_json: bool = JSON_OPT, db_path: Path = DB_OPT):
    """One experiment in full: knobs and what changed, prediction, outcome, margin, correctness, diagnosis."""
    db = _open(db_path, create=False)
    try:
        e = q.experiment(db, experiment_id)
    except StoreError as ex:
        _fail(str(ex))
    if as_json:
        print(json.dumps(e, indent=1, default=str))
        return
    from agent.progress import render_experiment

    render_experiment(console, e)


@app.command()
def shelf(
    run_id: Optional[int] = RUN_OPT,
    status: Optional[str] = typer.Option(None, help="shelved, rescreened or resurrected (default: all)."),
    as_json: bool = JSON_OPT,
    db_path: Path = DB_OPT,
):
    """Rejected levers and the conditions they lost under (registers, smem/CTA, CTAs/SM, warps/SM, diagnosis)."""
    db = _open(db_path, create=False)
    if status is not None and status not in q.SHELF_STATUSES:
        _fail(f"--status must be one of {', '.join(q.SHELF_STATUSES)}, not '{status}'", 2)
    try:
        rows = q.shelf(db, _run_id(db, run_id), status=status)
    except StoreError as e:
        _fail(str(e))
    if as_json:
        print(json.dumps(rows, indent=1, default=str))
        return
    t = Table(title="shelf")
    for c in ("id", "lever", "outcome", "margin", "status", "regs", "smem/CTA", "CTAs/SM", "warps/SM", "diagnosis", "exp"):
        t.add_column(c)
    for r in rows:
        c = r["conditions"] or {}
        t.add_row(str(r["id"]), r["lever"], r["outcome"], _fmt(r["margin"]), r["status"], str(c.get("registers")),
                  str(c.get("smem_per_cta")), str(c.get("ctas_per_sm")), str(c.get("warps_per_sm")),
                  str(c.get("diagnosis")), str(r["experiment_id"]))
    console.print(t)



@app.command()
def levers(as_json: bool = JSON_OPT):
    """The lever catalog: knob values each sets, diagnoses it targets, precondition, predicted band."""
    from agent.levers import CATALOG

    if as_json:
        print(json.dumps([lv.model_dump(mode="json") for lv in CATALOG], indent=1))
        return
    t = Table(title="levers")
    for c in ("lever", "sets", "targets", "requires", "predicted", "hypothesis"):
        t.add_column(c, overflow="fold")
    for lv in CATALOG:
        t.add_row(lv.name, json.dumps(lv.sets), ", ".join(lv.targets), json.dumps(lv.requires) if lv.requires else "",
                  f"{lv.predicted[0]:.2f}-{lv.predicted[1]:.2f}", lv.hypothesis)
    console.print(t)

