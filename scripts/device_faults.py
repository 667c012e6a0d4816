"""The fault battery on a GPU, one phase per call (scripts/device_faults.sh runs them in order):

  build            the run's seed and the fault libraries in one ninja call, into FA5090_CACHE (the cache
                   the runs below use, so their seed is a cache hit)
  illegal_address  DEF_ILLEGAL_ADDRESS (a store to address 64) evaluated as the search evaluates a candidate
                   (Lab.evaluate_libraries: attributes, C1, paired timing with the re-check, C2, in a worker
                   with its deadline), expected CRASH; then the next candidate (the seed against itself)
                   measured in a fresh worker
  side_stream      DEF_SIDE_STREAM the same way, expected WRONG or SUSPICIOUS; then the next candidate
  ref              the uninterrupted run: `python3 -m agent run RUN_ARGS --db W/ref.db`
  kills            the same run in a fresh database, started in its own session (setsid) and killed with
                   SIGKILL (its whole process group) at moments drawn from a seeded RNG (phase_kills says
                   how), then `run --resume`d and killed again until the kills are spent, then resumed to
                   its end. After each kill: PRAGMA integrity_check, the rows (no counted number twice, every
                   row finished before still there unchanged), what `history` shows, and the processes and GPU compute
                   apps the killed run left behind (recorded, then killed so the next resume measures alone).
                   Then the kept levers and the outcomes side by side against the reference.
  hang             DEF_HANG (spins forever) the same way, with the worker deadline the tool itself uses
                   (Lab._timeout) when it fits before the deadline, else shortened (said in the row);
                   expected TIMEOUT, the worker's group killed, the GPU freed; then the next candidate
  summary          W/summary.txt from what the phases wrote: one row per fault (expected, observed, result)

Usage: python3 scripts/device_faults.py PHASE W [--deadline EPOCH_S]
Environment: FAULTS_RUN_ARGS (the run's options), KILLS (20), KILL_SEED (11), KILL_MIN / KILL_MAX (delay
range in s, 0.5 / 8), KILL_AFTER_ROW_P (1/3), HANG_TIMEOUT (`tool`, the default, or seconds), FAULTS_AGENT
(replaces `python3 -m agent`, for a dry run without a GPU), FAULTS_TAG (set by device_faults.sh).
The pure parts (database checks, the comparison, the summary's format, the kill phase's plan) import
nothing of torch and are tested on synthetic inputs in tests/test_device_faults.py.
Run on an H200: results/2026-11-30_h200_tma_pipeline_tier (faults*) and results/2026-11-30_h200_kv_release_ws (faults.tgz).

Time. The kill phase plans before its first kill (`plan_kills`, recorded in
kills.json "plan" and printed): the final resume is reserved what the reference run cost less the time
it spent building candidates (the gaps before its experiments in its `history --json`: the killed run
finds those builds in the cache), for the part of its rows still to do, padded x1.2; each kill costs a
delay, the checks after it (~6 s) and, with probability KILL_AFTER_ROW_P, a resume's start-up (~10 s,
assumed) and one more row. The first battery's kill phase (results/2026-11-30_h200_tma_pipeline_tier) reserved 1.3 x the whole 241 s reference (333 s, builds
included; the final resume took 148 s) and, with 218 s left, made no kill.
Does `PHASES="build ref kills" TOTAL=560` fit 20 kills? With the old run (--budget 6, 5-process nulls:
a 241 s reference, 84 s of it builds, 12 rows) the plan gives 17.6 s a kill and 456 s for 20 kills and
the final resume, against ~285 s left: 6 kills. So the default run is now --budget 2 --aa-repeats 3
(seed, null, two experiments, the null after a keep, the re-anchor and comparator: ~7 rows, a reference
of ~140 s estimated, not yet measured): ~380 s for 20 kills and the final resume against ~385 s left.
That is plausible, not certain: the start-up and check times are estimates. When fewer fit, the plan says
how many and why, and the loop stops killing when the next kill would eat the final resume's reserve
(kills.json "stopped_early").
"""

from __future__ import annotations

import json
import os
import re
import random
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# budget 2 and 3-process nulls since the first battery (was --budget 6 with 5-process nulls: a 241 s reference,
# and 20 kills with their final resume did not fit after it; the module docstring says why)
RUN_ARGS = os.environ.get("FAULTS_RUN_ARGS", "--seqlen 2048 --budget 2 --aa-repeats 3 --no-profile --time-budget 0.5 "
                          "--seed-knob compute=mma --seed-knob staging=cp_async")
SEED_KNOBS = ["compute=mma", "staging=cp_async"]  # the faults' base: the run's seed, so its build is shared
FAULT_SHAPE = dict(B=2, H=16, N=2048, D=128, dtype="float16")
FAULT_BUDGET_S = 0.5  # the run's --time-budget: the worker deadline is the run's own
# t_noise as the instrument's H200 calibration measured it (results/2026-11-30_h200_instrument), as
# scripts/device_tail_battery.py uses; the faults are judged by what ends their worker, not by a margin
T_KEEP, T_NOISE = 1.0029, 0.0029
EXPECTED = {"illegal_address": ("CRASH",), "side_stream": ("WRONG", "SUSPICIOUS"), "hang": ("TIMEOUT",)}
MEASURED = ("NULL", "SLOWER", "KEPT")  # the next candidate was measured: a margin, not a fault
FINISHED = ("budget", "plateau", "exhausted")  # a run's status once it has ended by itself
MIN_HANG_S = 45  # below this the hang is not run: too close to the control's own time
WORKER_WORDS = ("experiments.worker", "profiler.launch", "-m agent")


# ---- pure parts (no torch) -------------------------------------------------------------------------
def db_state(path: Path) -> dict:
    """What a database holds right now, read-only as the tool's own read-only commands open it: through
    WAL when a -wal is beside it, else immutable. Rows as (id, run_id, seq, kind, lever, knob_key,
    outcome, margin, finished)."""
    path = Path(path)
    if not path.exists():
        return {"exists": False}
    live = path.with_name(path.name + "-wal").exists()
    try:
        c = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro" + ("" if live else "&immutable=1"), uri=True)
        c.execute("PRAGMA busy_timeout = 10000")
        integrity = [r[0] for r in c.execute("PRAGMA integrity_check")]
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        runs, rows = [], []
        if "runs" in tables:
            runs = [dict(zip(("id", "status", "stop_reason", "t_keep", "t_noise", "resumes"), r)) for r in
                    c.execute("SELECT id, status, stop_reason, t_keep, t_noise, resumes FROM runs ORDER BY id")]
        if "experiments" in tables:
            rows = [list(r[:8]) + [r[8] is not None] for r in c.execute(
                "SELECT id, run_id, seq, kind, lever, knob_key, outcome, margin, finished_at FROM experiments ORDER BY id")]
        c.close()
    except sqlite3.Error as e:
        return {"exists": True, "error": f"{type(e).__name__}: {e}"}
    return {"exists": True, "integrity": integrity, "runs": runs, "rows": rows}


def row_checks(state: dict, before: dict | None) -> dict:
    """Nothing doubled: no counted number (seq) twice in a run, and the finished ones 1..k. Nothing lost:
    every row finished in `before` is still there with the same seq, kind, lever, knobs, outcome and margin."""
    rows = state.get("rows") or []
    doubled, gaps = [], []
    for rid in sorted({r[1] for r in rows}):
        seqs = [r[2] for r in rows if r[1] == rid and r[2] is not None]
        doubled += [(rid, s) for s in sorted(set(seqs)) if seqs.count(s) > 1]
        done = sorted(r[2] for r in rows if r[1] == rid and r[2] is not None and r[8])
        if done != list(range(1, len(done) + 1)):
            gaps.append((rid, done))
    now = {r[0]: r for r in rows}
    lost = [r for r in ((before or {}).get("rows") or []) if r[8] and now.get(r[0]) != r]
    in_flight = [r for r in rows if not r[8]]
    return {"doubled": doubled, "gaps": gaps, "lost": lost, "in_flight": in_flight,
            "finished": sum(1 for r in rows if r[8]), "counted": sum(1 for r in rows if r[2] is not None and r[8])}


def counted(history: list[dict]) -> list[dict]:
    """A run's counted experiments (a `history --json` listing), in order; rows cut off in flight left out."""
    return sorted((r for r in history if r.get("seq") is not None and r.get("outcome") not in (None, "INTERRUPTED")),
                  key=lambda r: r["seq"])


def kept(history: list[dict]) -> list[tuple[str, str]]:
    """The kept moves in order, as (lever, knob key of the kernel kept)."""
    return [(r["lever"], r["knob_key"]) for r in counted(history) if r["outcome"] == "KEPT"]


def compare_runs(ref: list[dict], cut: list[dict]) -> dict:
    """The uninterrupted run against the killed-and-resumed one: their kept levers, and each counted
    experiment side by side (decisions on a borderline margin may differ: the GPU measures anew)."""
    a, b = kept(ref), kept(cut)
    ra, rb = counted(ref), counted(cut)
    side = []
    for i in range(max(len(ra), len(rb))):
        x = ra[i] if i < len(ra) else None
        y = rb[i] if i < len(rb) else None
        side.append({"seq": i + 1,
                     "ref": x and [x["kind"], x["lever"], x["outcome"], x["margin"]],
                     "cut": y and [y["kind"], y["lever"], y["outcome"], y["margin"]],
                     "same_move": bool(x and y and (x["lever"], x["knob_key"]) == (y["lever"], y["knob_key"])),
                     "same_outcome": bool(x and y and x["outcome"] == y["outcome"])})
    first = next((i for i, s in enumerate(side) if not (s["same_move"] and s["same_outcome"])), None)
    return {"same_keeps": a == b, "ref_kept": [lv for lv, _ in a], "cut_kept": [lv for lv, _ in b],
            "ref_final": a[-1][1] if a else None, "cut_final": b[-1][1] if b else None,
            "n_ref": len(ra), "n_cut": len(rb), "moves_equal": sum(s["same_move"] for s in side),
            "outcomes_equal": sum(s["same_move"] and s["same_outcome"] for s in side),
            "first_difference": None if first is None else side[first]["seq"], "side_by_side": side}


def verdict_line(c: dict) -> str:
    return (f"same keeps: {'yes' if c['same_keeps'] else 'no'} (uninterrupted: {', '.join(c['ref_kept']) or 'none'}; "
            f"killed and resumed: {', '.join(c['cut_kept']) or 'none'})")


def compare_text(c: dict) -> str:
    m = lambda v: "-" if v is None else f"{v:.4f}"
    lines = [verdict_line(c),
             f"kept, uninterrupted:        {c['ref_kept']}", f"kept, killed and resumed:   {c['cut_kept']}",
             f"final kernel: {c['ref_final']} vs {c['cut_final']}",
             (f"counted experiments {c['n_ref']} vs {c['n_cut']}; same move {c['moves_equal']}, same move and "
              f"outcome {c['outcomes_equal']}; first difference at #{c['first_difference'] or '-'}"),
             f"{'#':>3}  {'uninterrupted':<48} {'killed and resumed':<48} same"]
    for s in c["side_by_side"]:
        f = lambda r: "-" if r is None else f"{r[0]} {r[1]} {r[2]} {m(r[3])}"
        lines.append(f"{s['seq']:>3}  {f(s['ref']):<48} {f(s['cut']):<48} "
                     f"{'yes' if s['same_move'] and s['same_outcome'] else 'move' if s['same_move'] else 'no'}")
    return "\n".join(lines) + "\n"


SUMMARY_HEAD = ("fault", "expected", "observed", "result")
RESULTS = ("PASS", "FAIL", "NOT RUN", "INFO")


def _cell(s) -> str:
    return " ".join(str(s).replace("|", "/").split())


def format_summary(rows: list[dict], header: list[str]) -> str:
    """`# ` lines, then a markdown table: one row per fault."""
    out = [f"# {_cell(h)}" for h in header]
    out += ["| " + " | ".join(SUMMARY_HEAD) + " |", "|" + "---|" * len(SUMMARY_HEAD)]
    for r in rows:
        assert r["result"] in RESULTS, r
        out.append("| " + " | ".join(_cell(r[k]) for k in SUMMARY_HEAD) + " |")
    return "\n".join(out) + "\n"


def parse_summary(text: str) -> list[dict]:
    """The rows of a summary written by format_summary."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| fault |"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != len(SUMMARY_HEAD) or cells[3] not in RESULTS:
            raise ValueError(f"not a summary row: {line!r}")
        rows.append(dict(zip(SUMMARY_HEAD, cells)))
    return rows


def fault_rows(name: str, rec: dict | None) -> list[dict]:
    """The rows of one fault phase's record: the fault, the GPU freed after it, the next candidate."""
    want = " or ".join(EXPECTED[name])
    if not rec or "outcome" not in rec:
        why = (rec or {}).get("not_run", "phase not run or cut off")
        return [{"fault": name, "expected": want, "observed": why, "result": "NOT RUN"}]
    if name == "hang":
        why = (f" (shorter than the tool's own {rec['tool_timeout_s']:.1f} s: HANG_TIMEOUT, or the time left in the "
               f"call)" if rec["shortened"] else " (the tool's own, Lab._timeout)")
        want += f" at the worker deadline {rec['timeout_s']:.1f} s{why}"
    rows = [{"fault": name, "expected": want,
             "observed": f"{rec['outcome']} after {rec['seconds']:.1f} s: {rec['detail'][:160]}",
             "result": "PASS" if rec["outcome"] in EXPECTED[name] else "FAIL"}]
    left = rec.get("left_behind") or {}
    rows.append({"fault": f"{name}: GPU freed", "expected": "no worker process, no compute app not there before",
                 "observed": f"workers {left.get('procs') or 'none'}; new compute apps {left.get('gpu_new') or 'none'}",
                 "result": "PASS" if not left.get("procs") and not left.get("gpu_new") else "FAIL"})
    ctl = rec.get("control")
    rows.append({"fault": f"{name}: next candidate", "expected": "measured in a fresh worker (NULL, SLOWER or KEPT)",
                 "observed": "not run" if not ctl else
                 f"{ctl['outcome']} margin {ctl['margin'] if ctl['margin'] is None else round(ctl['margin'], 4)} "
                 f"after {ctl['seconds']:.1f} s",
                 "result": "NOT RUN" if not ctl else "PASS" if ctl["outcome"] in MEASURED else "FAIL"})
    return rows


def kill_rows(ref: dict | None, kills: dict | None, cmp: dict | None, want_kills: int) -> list[dict]:
    """The rows of the uninterrupted run, the kills and the comparison of the two runs."""
    ended = "ends by itself (budget, plateau or exhausted)"
    rows = []
    if not ref or "status" not in ref:
        rows.append({"fault": "uninterrupted run", "expected": ended,
                     "observed": (ref or {}).get("not_run", "phase not run or cut off"), "result": "NOT RUN"})
    else:
        rows.append({"fault": "uninterrupted run", "expected": ended,
                     "observed": f"{ref['status']} after {ref['wall_s']:.0f} s, {ref['counted']} counted experiments",
                     "result": "PASS" if ref["status"] in FINISHED else "FAIL"})
    if not kills or "cycles" not in kills:
        why = (kills or {}).get("not_run", "phase not run or cut off")
        return rows + [{"fault": f"SIGKILL x{want_kills} + resume", "expected": f"{want_kills} kills", "observed": why,
                        "result": "NOT RUN"}]
    ks = [c for c in kills["cycles"] if c.get("killed")]
    n = len(ks)
    judged = lambda ok: "NOT RUN" if not n else "PASS" if ok else "FAIL"  # a check after no kill proves nothing
    where = ", ".join(sorted({c["at"] for c in ks}))
    alive = ", ".join(f"{c['alive_s']:.1f}" for c in ks)
    rows.append({"fault": f"SIGKILL x{want_kills} at random moments",
                 "expected": f"{want_kills} kills of the whole process group at seeded random moments",
                 "observed": f"{n} kills" + (f" after {alive} s; in: {where}" if n else "") +
                             (f"; planned {kills['plan']['fit']} of {kills['plan']['wanted']}" if kills.get("plan") else "") +
                             (f"; {kills['stopped_early']}" if kills.get("stopped_early") else ""),
                 "result": "PASS" if n == want_kills else "FAIL"})
    bad = [c["n"] for c in ks if c["db"].get("integrity") not in (None, ["ok"]) or c["db"].get("error")]
    final_ok = kills.get("final_integrity") in (None, ["ok"])
    rows.append({"fault": "integrity after each kill", "expected": "PRAGMA integrity_check ok after every kill and at the end",
                 "observed": f"ok after {n - len(bad)} of {n}" + (f"; not after kills {bad}" if bad else "") +
                             f"; at the end: {kills.get('final_integrity')}",
                 "result": judged(not bad and final_ok)})
    dl = [c["n"] for c in ks if c["rows"]["doubled"] or c["rows"]["lost"] or c["rows"]["gaps"]]
    fr = kills.get("final_rows") or {}
    rows.append({"fault": "nothing doubled, nothing lost",
                 "expected": "counted numbers unique and 1..k; every finished row kept unchanged",
                 "observed": f"held after {n - len(dl)} of {n} kills" + (f"; broken after kills {dl}" if dl else "") +
                             f"; at the end: {fr.get('counted', '?')} counted, doubled {fr.get('doubled') or 'none'}, "
                             f"lost {len(fr.get('lost') or [])}",
                 "result": judged(not dl and not fr.get("doubled") and not fr.get("lost") and not fr.get("gaps"))})
    left = [c["n"] for c in ks if c["left_behind"]["procs"] or c["left_behind"]["gpu_new"]]
    rows.append({"fault": "no process of ours left after a kill",
                 "expected": "no worker alive and no new GPU compute app 2 s after each kill",
                 "observed": "none left" if not left else
                 f"left after kills {left} (then killed by this script: "
                 f"{sum(len(ks[i - 1]['cleanup']['killed']) for i in left)} processes)",
                 "result": judged(not left)})
    fin = kills.get("final") or {}
    how = (f"by itself during cycle {fin['ended_in_cycle']}, before its kill" if fin.get("ended_in_cycle") else
           f"in the final resume (rc {fin.get('rc')}, {fin.get('wall_s') or 0:.0f} s)")
    rows.append({"fault": "resumed run finishes", "expected": f"ends by itself as the reference did ({(ref or {}).get('status')})",
                 "observed": f"{fin.get('status')}, {how}; {kills.get('resumes', '?')} resumes recorded in the run",
                 "result": judged(fin.get("status") in FINISHED)})
    keeps = {"fault": "same keeps", "expected": "the kept levers of the uninterrupted run, in order"}
    if not cmp or (ref or {}).get("status") not in FINISHED or fin.get("status") not in FINISHED:
        rows.append({**keeps, "observed": "no comparison: a run did not end by itself", "result": "NOT RUN"})
    else:
        rows.append({**keeps, "observed": verdict_line(cmp), "result": "PASS" if cmp["same_keeps"] else "FAIL"})
        rows.append({"fault": "outcomes side by side", "expected": "reported, not required (margins are measured anew)",
                     "observed": f"{cmp['outcomes_equal']} of {max(cmp['n_ref'], cmp['n_cut'])} counted experiments with "
                                 f"the same move and outcome; first difference at #{cmp['first_difference'] or '-'}",
                     "result": "INFO"})
    return rows


# ---- the kill phase's plan (pure: times in, seconds out) ---------------------------------------------
# A `run --resume` from its exec to its first measurement (python, torch, the device probe, the restore):
# the reference's run row came ~5 s after its start and its seed row ~10 s later (the first battery); a resume
# skips the seed check. Assumed, not yet measured on a resume.
STARTUP_S = 10.0
# The script's own work after each kill: the 2 s wait, two `history` calls (~1.5 s each on the H200: the
# ref phase took 244 s around a 241 s run), the integrity check, nvidia-smi and /proc twice.
BOOK_S = 6.0
FINAL_SLACK_S = 15.0  # after the final resume: `history`, the comparison, the record
RESERVE_FACTOR = 1.2  # the final resume's share of the warm run, padded (the first battery: 148 s measured, 157 s warm)
MIN_LEFT = 0.25  # even a run past its last experiment has its closing pairs (re-anchor, comparator) left
EXPERIMENT_KINDS = ("lever", "compound", "rescreen", "sample")


def _t(stamp: str | None) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(stamp).timestamp() if stamp else None
    except ValueError:
        return None


def ref_timing(rows: list[dict], wall_s: float) -> dict:
    """What the uninterrupted run spent building, from its `history --json` timestamps (1 s resolution):
    the gap between a row's end and the next experiment's start is the loop building the candidates'
    compiler figures (one ninja call after the null and after each keep). The killed run builds on the
    same cache, so its cost is the reference's less that: `warm_s`. The first battery: 84 s of 241 s, and the
    final resume from scratch took 148 s."""
    rows = sorted((r for r in rows if r.get("finished_at")), key=lambda r: r["id"])
    build, prev = 0.0, None
    for r in rows:
        start = _t(r.get("started_at"))
        if r["kind"] in EXPERIMENT_KINDS and prev is not None and start is not None:
            build += max(0.0, start - prev)
        prev = _t(r.get("finished_at")) or prev
    build = min(build, max(0.0, wall_s - STARTUP_S))
    return {"rows": len(rows), "build_s": build, "warm_s": wall_s - build}


def reserve_s(warm_s: float, frac_done: float) -> float:
    """Seconds kept for the final resume when the killed run has `frac_done` of the reference's rows:
    its start-up, then what is left of the warm run (at least MIN_LEFT of it), padded, and the record."""
    rest = max(MIN_LEFT, 1.0 - min(1.0, max(0.0, frac_done)))
    return STARTUP_S + RESERVE_FACTOR * max(0.0, warm_s - STARTUP_S) * rest + FINAL_SLACK_S


def cycle_costs(warm_s: float, ref_rows: int, lo: float, hi: float, p_row: float) -> dict:
    """A kill cycle's expected seconds: a delay alone (killed in the resume's start-up or its first row,
    then the record), or with probability p_row a resume's start-up and one more row first."""
    row_s = max(0.0, warm_s - STARTUP_S) / max(1, ref_rows)
    delay = (lo + hi) / 2
    plain, row = delay + BOOK_S, STARTUP_S + row_s + delay + BOOK_S
    return {"row_s": row_s, "plain_cycle_s": plain, "row_cycle_s": row, "per_kill_s": p_row * row + (1 - p_row) * plain}


def plan_kills(left_s: float, ref_s: float, build_s: float, n_kills: int, ref_rows: int, *, lo: float = 0.5,
               hi: float = 8.0, p_row: float = 0.33, rows_done: int = 0) -> dict:
    """How many of `n_kills` fit in `left_s` with the final resume after them. The k-th kill leaves the run
    about k x p_row rows further on (a row cycle finishes one row), so the final resume costs less the more
    kills come first. Returns the counts, the seconds, and a sentence that says why."""
    warm = max(0.0, ref_s - build_s)
    c = cycle_costs(warm, ref_rows, lo, hi, p_row)
    rows = max(1, ref_rows)

    def need(k: int) -> float:
        return k * c["per_kill_s"] + reserve_s(warm, (rows_done + k * p_row) / rows)

    fit = 0
    while fit < n_kills and need(fit + 1) <= left_s:
        fit += 1
    why = (f"{left_s:.0f} s left; the reference took {ref_s:.0f} s, {build_s:.0f} s of it building candidates that "
           f"the killed run finds in the cache: {warm:.0f} s warm over {ref_rows} rows ({c['row_s']:.1f} s a row). "
           f"A kill costs {c['per_kill_s']:.1f} s expected (a delay {lo}-{hi} s and {BOOK_S:.0f} s of checks; with "
           f"p {p_row:.2f} a {STARTUP_S:.0f} s start-up and a row first), the final resume "
           f"{reserve_s(warm, (rows_done + fit * p_row) / rows):.0f} s after {fit} kills: "
           f"{fit} of {n_kills} kills fit ({need(n_kills):.0f} s needed for all {n_kills})")
    return {"fit": fit, "wanted": n_kills, "left_s": round(left_s, 1), "ref_s": round(ref_s, 1),
            "build_s": round(build_s, 1), "warm_s": round(warm, 1), "ref_rows": ref_rows,
            "need_all_s": round(need(n_kills), 1), "reserve_now_s": round(reserve_s(warm, rows_done / rows), 1),
            **{k: round(v, 2) for k, v in c.items()}, "why": why}


# ---- processes, the GPU, the tool's commands ---------------------------------------------------------
def _stat(pid: int) -> tuple[int, int, int] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), int(fields[2]), int(fields[3])  # ppid, pgrp, session
    except (OSError, IndexError, ValueError):
        return None


def our_procs() -> list[dict]:
    """Processes of the tool (a run, a worker, ncu's target) started by this battery, other than this one.
    Every process the battery starts carries FAULTS_TAG in its environment (main sets it), and so does
    everything those start (a run's workers, in sessions of their own, orphaned when the run is killed):
    that, not a name, is what makes a process ours."""
    out = []
    if not os.environ.get("FAULTS_TAG"):
        return out
    mark = f"FAULTS_TAG={os.environ['FAULTS_TAG']}".encode()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if mark not in (d / "environ").read_bytes().split(b"\0"):
                continue
            args = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        st = _stat(int(d.name))
        if st and any(w in args for w in WORKER_WORDS) and "device_faults" not in args:
            out.append({"pid": int(d.name), "ppid": st[0], "pgid": st[1], "sid": st[2], "args": args[:200]})
    return out


def gpu_apps() -> list[str] | str:
    """nvidia-smi's compute apps, one `pid, name, memory` string each (or why there is no answer)."""
    # only the GPUs this battery was given: on a machine of several, another queue's processes on the
    # other GPUs are not left behind by a killed run
    vis = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    only = ["-i", vis] if re.fullmatch(r"\d+(,\d+)*", vis) else []
    try:
        p = subprocess.run(["nvidia-smi", *only, "--query-compute-apps=pid,process_name,used_memory",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"nvidia-smi: {e}"
    if p.returncode:
        return f"nvidia-smi exit {p.returncode}: {p.stderr.strip()[:200]}"
    return [line.strip() for line in p.stdout.splitlines() if line.strip()]


def _pids(apps) -> set[str]:
    return {a.split(",")[0].strip() for a in apps} if isinstance(apps, list) else set()


def left_behind(baseline) -> dict:
    procs = our_procs()
    apps = gpu_apps()
    return {"procs": [f"{p['pid']} ({p['args'][:80]})" for p in procs], "pids": [p["pid"] for p in procs],
            "pgids": sorted({p["pgid"] for p in procs}), "gpu": apps,
            "gpu_new": sorted(_pids(apps) - _pids(baseline) - {str(os.getpid())})}


def clean_up(baseline, wait_s: float = 15) -> dict:
    """Kill what a killed run left (each process's group), then wait until the GPU shows only the baseline."""
    t0, killed = time.time(), []
    for p in our_procs():
        try:  # its whole group (a worker leads its own session); the process alone if that is refused
            os.killpg(p["pgid"], signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(p["pid"], signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
        killed.append(p["pid"])
    apps = gpu_apps()
    while (our_procs() or _pids(apps) - _pids(baseline) - {str(os.getpid())}) and time.time() - t0 < wait_s:
        time.sleep(0.5)
        apps = gpu_apps()
    return {"killed": sorted(set(killed)), "seconds": round(time.time() - t0, 2),
            "gpu_after": apps, "still": [p["pid"] for p in our_procs()]}


def record_command(w: Path, argv: list[str], note: str = "") -> None:
    with open(w / "commands.txt", "a") as f:
        f.write(f"{time.strftime('%H:%M:%S')} $ {shlex.join(argv)}{'   # ' + note if note else ''}\n")


def agent(*args: str) -> list[str]:
    """The tool's command line (FAULTS_AGENT replaces `python3 -m agent`: a dry run's stand-in)."""
    return (shlex.split(os.environ.get("FAULTS_AGENT", "")) or [sys.executable, "-m", "agent"]) + list(args)


def run_argv(db: Path, resume: bool) -> list[str]:
    """`run --resume` once the database holds the run; the run itself before (a kill before its row)."""
    return agent("run", "--resume", "--db", str(db)) if resume else agent("run", *shlex.split(RUN_ARGS), "--db", str(db))


def history(w: Path, db: Path, stem: str) -> dict:
    """`history` (the table, as a pipe shows it) and `history --json` of a database, saved beside it."""
    out = {}
    for kind, extra in (("txt", []), ("json", ["--json"])):
        argv = agent("history", *extra, "--db", str(db))
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
        (w / f"{stem}_history.{kind}").write_text(p.stdout)
        if p.stderr.strip():
            (w / f"{stem}_history.{kind}.stderr").write_text(p.stderr)
        out[kind] = {"rc": p.returncode, "first_line": (p.stdout.strip().splitlines() or [p.stderr.strip()[:200]])[0][:300]}
        if kind == "json" and p.returncode == 0:
            try:
                out["rows"] = json.loads(p.stdout)
            except json.JSONDecodeError:
                out["rows"] = None
    return out


def save(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


def load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


class Child:
    """The one run this phase has started (its own session), taken down with its group on any exit."""
    proc: subprocess.Popen | None = None

    @classmethod
    def start(cls, argv: list[str], log) -> subprocess.Popen:
        cls.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT,
                                    start_new_session=True)  # setsid(): its pid is its process group
        return cls.proc

    @classmethod
    def kill(cls) -> None:
        if cls.proc and cls.proc.poll() is None:
            try:
                os.killpg(cls.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            cls.proc.wait()


def _on_term(signum, frame):  # bash's `timeout` at the deadline: leave nothing running behind
    raise SystemExit(128 + signum)


# ---- phases --------------------------------------------------------------------------------------------
def phase_build(w: Path, deadline: float) -> None:
    from experiments.build import BuildSpec, build
    from experiments.defects import DEFECTS, FAULTS
    from experiments.device import probe
    from kernel_src.knobs import Knobs

    dev = probe()
    seed = Knobs.parse_assignments(SEED_KNOBS)
    every = dict(arch=dev.arch, dtypes=(FAULT_SHAPE["dtype"],), dims=(FAULT_SHAPE["D"],), causals=(False, True))
    codes = {"seed": 0, "illegal_address": FAULTS["illegal_address"][0], "side_stream": DEFECTS["side_stream"][0],
             "hang": FAULTS["hang"][0]}
    specs = {n: BuildSpec(knobs=seed, defect=c, **every) for n, c in codes.items()}
    t0 = time.time()
    res = build(list(specs.values()), cache_dir() / "build")
    out = {"device": dev.model_dump(mode="json"), "seconds": round(time.time() - t0, 1),
           "libs": {n: {"code": codes[n], "key": s.key(), "ok": res[s.key()].ok, "log_tail": res[s.key()].log[-1500:]}
                    for n, s in specs.items()}}
    save(w / "build.json", out)
    for n, v in out["libs"].items():
        print(f"build {n:16s} FA_DEFECT={v['code']:<3d} ok={v['ok']}  {v['key']}", flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("FA5090_CACHE", Path.home() / ".cache" / "fa5090-search"))


def hang_deadline(tool: float, want: str, left: float, after: float = 40) -> tuple[float | None, bool]:
    """The hang's worker deadline: the tool's own (`want` = "tool") or `want` seconds, shortened to what is
    `left` before the call's deadline less `after` (the control and the record); None under MIN_HANG_S.
    Returns (deadline, whether it is shorter than the tool's)."""
    timeout = tool if want == "tool" else float(want)
    room = left - after
    if room < timeout:
        if room < MIN_HANG_S:
            return None, True
        timeout = room
    return timeout, timeout < tool


def phase_fault(w: Path, name: str, deadline: float) -> None:
    from experiments.build import BuildSpec, build
    from experiments.defects import DEFECTS, FAULTS
    from experiments.device import probe
    from experiments.lab import Lab
    from experiments.problem import Shape
    from kernel_src.knobs import Knobs

    code, what = {**DEFECTS, **FAULTS}[name]
    dev = probe()
    baseline = gpu_apps()
    seed = Knobs.parse_assignments(SEED_KNOBS)
    shape = Shape(**FAULT_SHAPE)
    every = dict(arch=dev.arch, dtypes=(shape.dtype,), dims=(shape.D,), causals=(False, True))
    base, cand = BuildSpec(knobs=seed, **every), BuildSpec(knobs=seed, defect=code, **every)
    built = build([base, cand], cache_dir() / "build")
    if not (built[base.key()].ok and built[cand.key()].ok):
        log = built[cand.key()].log or built[base.key()].log
        save(w / f"fault_{name}.json", {"not_run": "did not build: " + log[-300:]})
        return
    rec = {"fault": name, "code": code, "what": what, "expected": EXPECTED[name], "device": dev.name,
           "gpu_before": baseline, "t_keep": T_KEEP, "t_noise": T_NOISE}
    lab = Lab(shape, dev.limits, cache_dir(), budget_s=FAULT_BUDGET_S)
    tool = lab._timeout()
    timeout, shortened = tool, False
    if name == "hang":
        timeout, shortened = hang_deadline(tool, os.environ.get("HANG_TIMEOUT", "tool"), deadline - time.time())
        if timeout is None:
            left = deadline - time.time()
            save(w / f"fault_{name}.json", {"not_run": f"{left:.0f} s left before the deadline: the worker deadline "
                                                       f"and the control after it do not fit"})
            print(f"{name}: not run ({left:.0f} s left)", flush=True)
            return

        class Deadline(Lab):  # the same path (run_job -> run_group -> decide) with this deadline on the worker
            def _timeout(self, n_paired: int = 1) -> float:
                return timeout

        lab = Deadline(shape, dev.limits, cache_dir(), budget_s=FAULT_BUDGET_S)
    rec.update(timeout_s=timeout, tool_timeout_s=tool, shortened=shortened)
    print(f"{name} (FA_DEFECT={code}): {what}; worker deadline {timeout:.1f} s (the tool's: {tool:.1f} s)", flush=True)
    t0 = time.time()
    ev = lab.evaluate_libraries(built[base.key()], built[cand.key()], t_keep=T_KEEP, t_noise=T_NOISE, knobs=seed)
    rec.update(seconds=time.time() - t0, outcome=ev.outcome.value, detail=ev.detail,
               job_status=ev.job.status if ev.job else None, stderr_tail=(ev.job.stderr if ev.job else "")[-1500:],
               steps=[{k: v for k, v in s.model_dump().items() if k in ("tag", "error", "skipped")}
                      for s in (ev.job.steps if ev.job else [])],
               paired=ev.paired and {k: ev.paired.get(k)
                                     for k in ("margin", "ms_base", "ms_cand", "wall_ms_cand", "suspicious")})
    time.sleep(2)
    rec["left_behind"] = left_behind(baseline)
    rec["cleanup"] = clean_up(baseline) if rec["left_behind"]["procs"] or rec["left_behind"]["gpu_new"] else None
    print(f"{name}: {rec['outcome']} after {rec['seconds']:.1f} s: {rec['detail'][:200]}", flush=True)
    print(f"{name}: left behind: {rec['left_behind']['procs'] or 'no worker'}; GPU apps {rec['left_behind']['gpu']}", flush=True)
    save(w / f"fault_{name}.json", rec)
    # the next candidate: the seed against itself, in a fresh worker, with the tool's own deadline
    lab = Lab(shape, dev.limits, cache_dir(), budget_s=FAULT_BUDGET_S)
    t0 = time.time()
    ctl = lab.evaluate_libraries(built[base.key()], built[base.key()], t_keep=T_KEEP, t_noise=T_NOISE, knobs=seed)
    rec["control"] = {"outcome": ctl.outcome.value, "detail": ctl.detail, "seconds": time.time() - t0,
                      "margin": (ctl.paired or {}).get("margin"), "job_status": ctl.job.status if ctl.job else None}
    print(f"{name}: next candidate (the seed against itself): {ctl.outcome.value} margin "
          f"{rec['control']['margin']} after {rec['control']['seconds']:.1f} s", flush=True)
    save(w / f"fault_{name}.json", rec)


def phase_ref(w: Path, deadline: float) -> None:
    db = w / "ref.db"
    argv = run_argv(db, resume=False)
    record_command(w, argv, "the uninterrupted reference")
    t0 = time.time()
    with open(w / "ref_run.txt", "w") as log:
        log.write(f"$ {shlex.join(argv)}\n")
        log.flush()
        p = Child.start(argv, log)
        try:
            rc = p.wait(timeout=max(1, deadline - time.time() - 5))
        except subprocess.TimeoutExpired:
            Child.kill()
            rc = "killed at the deadline"
    wall = time.time() - t0
    st = db_state(db)
    run = (st.get("runs") or [{}])[-1]
    h = history(w, db, "ref")
    save(w / "ref.json", {"argv": argv, "rc": rc, "wall_s": wall, "status": run.get("status"),
                          "stop_reason": run.get("stop_reason"), "t_keep": run.get("t_keep"),
                          "counted": row_checks(st, None)["counted"], "history_rc": h["json"]["rc"]})
    print(f"reference: rc {rc}, {run.get('status')} ({run.get('stop_reason')}) after {wall:.0f} s", flush=True)


def done_rows(path: Path) -> int:
    """Rows a run has finished by measuring (not the ones marked INTERRUPTED when a resume opens it)."""
    try:
        live = Path(str(path) + "-wal").exists()
        c = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro" + ("" if live else "&immutable=1"), uri=True)
        n = c.execute("SELECT COUNT(*) FROM experiments WHERE finished_at IS NOT NULL "
                      "AND (outcome IS NULL OR outcome != 'INTERRUPTED')").fetchone()[0]
        c.close()
        return n
    except sqlite3.Error:
        return 0


def kill_moment(p: subprocess.Popen, db: Path, after_rows: int, extra: float, cap: float) -> tuple[int | None, float]:
    """Wait until the run has finished `after_rows` more rows (at most `cap` s), then `extra` s more;
    returns (its exit code if it ended by itself, else None; seconds spent waiting for the row)."""
    t0, rows0 = time.time(), done_rows(db)
    while after_rows and done_rows(db) < rows0 + after_rows and time.time() - t0 < cap:
        try:
            return p.wait(timeout=0.25), time.time() - t0
        except subprocess.TimeoutExpired:
            pass
    waited = time.time() - t0
    try:
        return p.wait(timeout=extra), waited
    except subprocess.TimeoutExpired:
        return None, waited


def where_killed(st: dict, flight: list) -> str:
    """What the killed run was doing, as its database shows it: the row in flight, else the last finished one."""
    if not st.get("exists"):
        return "before the database"
    if not st.get("runs"):
        return "before the run row"
    if flight:
        return f"in {flight[-1][3]} {flight[-1][4] or ''}".strip()
    done = [r for r in st.get("rows") or [] if r[8] and r[6] != "INTERRUPTED"]
    return f"after {done[-1][3]} {done[-1][4] or ''}".strip() if done else "before the seed row"


def phase_kills(w: Path, deadline: float) -> None:
    """Each cycle draws two numbers from the seeded RNG: whether its kill waits for the run to finish
    one more row (probability KILL_AFTER_ROW_P, 1/3) and a delay uniform in [KILL_MIN, KILL_MAX] s after
    that (or after the start). So kills land at random moments over the whole run (startup, the
    resume's own marking, the seed, the null, experiments, keeps, the closing pair). When the run is
    ahead of an even spread of its rows over the kills (the reference's finished rows x k / (KILLS + 1)
    at the k-th kill), the cycle does not wait for a row and its delay is a quarter of the range: the
    run stays alive for every kill. Everything drawn and decided is recorded per cycle."""
    n_kills = int(os.environ.get("KILLS", "20"))
    seed = int(os.environ.get("KILL_SEED", "11"))
    lo, hi = float(os.environ.get("KILL_MIN", "0.5")), float(os.environ.get("KILL_MAX", "8"))
    p_row = float(os.environ.get("KILL_AFTER_ROW_P", "0.33"))
    rng = random.Random(seed)
    ref = load(w / "ref.json") or {}
    ref_wall = ref.get("wall_s") or 120.0
    ref_hist = load(w / "ref_history.json") or []
    ref_rows = len([r for r in ref_hist if r.get("finished_at")]) or 12
    timing = ref_timing(ref_hist, ref_wall) if ref_hist else {"build_s": 0.0, "warm_s": ref_wall}
    warm = timing["warm_s"]

    def reserve(rows_now: int) -> float:  # the final resume: what the warm reference took for what is left
        return reserve_s(warm, rows_now / ref_rows)

    db, kd = w / "cut.db", w / "kills"
    kd.mkdir(exist_ok=True)
    baseline = gpu_apps()
    out = {"kills_wanted": n_kills, "rng_seed": seed, "delay_range_s": [lo, hi], "after_row_p": p_row,
           "ref_wall_s": ref_wall, "ref_rows": ref_rows, "gpu_baseline": baseline, "cycles": [],
           "plan": plan_kills(deadline - time.time(), ref_wall, timing["build_s"], n_kills, ref_rows, lo=lo, hi=hi,
                              p_row=p_row)}
    print(f"kills planned: {out['plan']['why']}", flush=True)
    save(w / "kills.json", out)
    row_s = out["plan"]["row_s"]
    before = None
    log = open(w / "cut_run.txt", "w")
    t_phase = time.time()
    n = 0
    while n < n_kills:
        u_row, u_delay = rng.random(), rng.random()  # both drawn every cycle: the sequence is the seed's
        st = db_state(db)
        runs = st.get("runs") or []
        if runs and runs[-1]["status"] in FINISHED:
            break
        target = ref_rows * (n + 1) / (n_kills + 1)
        rows_now = done_rows(db) if st.get("exists") else 0
        ahead = rows_now >= target
        after_rows = 0 if ahead else int(u_row < p_row)
        extra = round(lo + u_delay * (hi - lo) / (4 if ahead else 1), 2)
        keep = reserve(rows_now)
        if time.time() + extra + BOOK_S + (STARTUP_S + row_s) * after_rows + keep > deadline:
            out["stopped_early"] = (f"after {n} kills: {deadline - time.time():.0f} s left, {keep:.0f} s kept for the "
                                    f"final resume ({rows_now} of the reference's {ref_rows} rows done; planned: "
                                    f"{out['plan']['fit']} of {n_kills} fit)")
            break
        what = f"{'after its next finished row, then ' if after_rows else ''}{extra} s"
        argv = run_argv(db, resume=bool(runs))
        record_command(w, argv, f"cycle {len(out['cycles']) + 1}: SIGKILL to its process group {what}")
        log.write(f"\n===== cycle {len(out['cycles']) + 1}: $ {shlex.join(argv)}   (SIGKILL {what})\n")
        log.flush()
        t0 = time.time()
        p = Child.start(argv, log)
        rc, waited = kill_moment(p, db, after_rows, extra, cap=max(5.0, deadline - time.time() - keep - 10))
        cyc = {"n": n + 1, "argv": argv[3:], "u_row": round(u_row, 4), "u_delay": round(u_delay, 4),
               "rows_before": rows_now, "target_rows": round(target, 2), "ahead": ahead, "after_rows": after_rows,
               "extra_s": extra, "waited_for_row_s": round(waited, 2)}
        if rc is not None:  # it ended by itself before its kill
            cyc.update(killed=False, rc=rc, alive_s=round(time.time() - t0, 2))
            out["cycles"].append(cyc)
            save(w / "kills.json", out)
            if rc != 0:  # a resume that refuses or fails: nothing more to kill
                out["stopped_early"] = f"cycle {len(out['cycles'])} exited {rc} by itself before its kill"
                break
            out["ended_in_cycle"] = len(out["cycles"])
            continue  # the loop sees the finished status
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        n += 1
        alive = round(time.time() - t0, 2)
        now = left_behind(baseline)  # at once
        st = db_state(db)
        rows = row_checks(st, before)
        at = where_killed(st, rows["in_flight"])
        h = history(w, db, f"kills/kill_{n:02d}")
        time.sleep(max(0.0, 2 - (time.time() - t0 - alive)))
        later = left_behind(baseline)  # 2 s after the kill
        cyc.update(killed=True, alive_s=alive, t_since_phase_s=round(t0 + alive - t_phase, 1), at=at,
                   db={k: st.get(k) for k in ("exists", "integrity", "error")}, runs=st.get("runs"),
                   rows={k: rows[k] for k in ("doubled", "gaps", "lost", "finished", "counted")},
                   in_flight=rows["in_flight"], history={k: h[k] for k in ("txt", "json")},
                   left_at_once={k: now[k] for k in ("procs", "gpu", "gpu_new")},
                   left_behind={k: later[k] for k in ("procs", "gpu", "gpu_new")})
        cyc["cleanup"] = clean_up(baseline) if later["procs"] or later["gpu_new"] or now["procs"] else {"killed": []}
        out["cycles"].append(cyc)
        save(w / "kills.json", out)
        print(f"kill {n:2d} after {alive:5.1f} s ({at}): integrity {st.get('integrity') or st.get('error')}, "
              f"{rows['finished']} rows finished, {rows['counted']} counted, doubled {rows['doubled'] or 'none'}, "
              f"lost {len(rows['lost'])}; history: {h['txt']['first_line'][:100]}; left behind: "
              f"{later['procs'] or 'none'} / GPU {later['gpu_new'] or 'none'}", flush=True)
        if st.get("exists"):
            before = st
    # to the end
    st = db_state(db)
    runs = st.get("runs") or []
    fin = {"status": runs[-1]["status"] if runs else None}
    if runs and runs[-1]["status"] in FINISHED:
        fin["ended_in_cycle"] = out.get("ended_in_cycle")
    else:
        argv = run_argv(db, resume=bool(runs))
        record_command(w, argv, "the final resume, to the end")
        log.write(f"\n===== final: $ {shlex.join(argv)}\n")
        log.flush()
        t0 = time.time()
        p = Child.start(argv, log)
        try:
            fin["rc"] = p.wait(timeout=max(1, deadline - time.time() - 8))
        except subprocess.TimeoutExpired:
            Child.kill()
            fin["rc"] = "killed at the deadline"
        fin["wall_s"] = time.time() - t0
        st = db_state(db)
        runs = st.get("runs") or []
        fin["status"] = runs[-1]["status"] if runs else None
    fin["stop_reason"] = runs[-1]["stop_reason"] if runs else None
    log.close()
    out["final"] = fin
    out["final_rows"] = {k: v for k, v in row_checks(st, before).items() if k != "in_flight"}
    out["final_integrity"] = st.get("integrity")
    out["resumes"] = len(json.loads(runs[-1]["resumes"] or "[]")) if runs and runs[-1].get("resumes") else 0
    out["wall_s"] = time.time() - t_phase
    out["left_at_end"] = left_behind(baseline)
    save(w / "kills.json", out)
    h = history(w, db, "cut")
    refh = load(w / "ref_history.json")
    if refh is not None and h.get("rows") is not None:
        c = compare_runs(refh, h["rows"])
        save(w / "compare.json", c)
        (w / "compare.txt").write_text(compare_text(c))
        print(compare_text(c), flush=True)
    print(f"kills: {sum(c['killed'] for c in out['cycles'])}; final {fin}", flush=True)


def _failed(w: Path, phase: str) -> dict | None:
    """A phase that raised: its record is the exception's last line."""
    f = w / f"{phase}.error"
    return {"not_run": "failed: " + f.read_text().strip().splitlines()[-1][:200]} if f.exists() else None


def phase_summary(w: Path, deadline: float) -> None:
    header = [f"device_faults (the GPU fault battery) in {w}", f"run: python3 -m agent run {RUN_ARGS}"]
    for f in ("header.txt", "phases.txt"):  # the device and settings; each phase's exit and seconds
        if (w / f).exists():
            header += [line.lstrip("# ") for line in (w / f).read_text().splitlines() if line.strip()]
    kills = load(w / "kills.json")
    if kills:
        header.append(f"kills: RNG seed {kills['rng_seed']}; each after its run's next finished row with probability "
                      f"{kills.get('after_row_p', 0):.2f}, then a delay uniform in {kills['delay_range_s']} s"
                      + (f"; {kills['stopped_early']}" if kills.get("stopped_early") else ""))
        if kills.get("plan"):
            header.append(f"kill plan: {kills['plan']['why']}")
    rows = []
    b = load(w / "build.json")
    built = ", ".join(f"{n} {'ok' if v['ok'] else 'FAILED'}" for n, v in (b or {}).get("libs", {}).items())
    rows.append({"fault": "build of the fault libraries", "expected": "the seed and each fault build",
                 "observed": built or (_failed(w, "build") or {}).get("not_run", "not run"),
                 "result": "NOT RUN" if not b else "PASS" if all(v["ok"] for v in b["libs"].values()) else "FAIL"})
    for name in ("illegal_address", "side_stream", "hang"):
        rows += fault_rows(name, load(w / f"fault_{name}.json") or _failed(w, name))
    rows += kill_rows(load(w / "ref.json") or _failed(w, "ref"), kills or _failed(w, "kills"), load(w / "compare.json"),
                      (kills or {}).get("kills_wanted", int(os.environ.get("KILLS", "20"))))
    text = format_summary(rows, header)
    (w / "summary.txt").write_text(text)
    print(text, end="")


PHASES = {"build": phase_build, "ref": phase_ref, "kills": phase_kills, "summary": phase_summary,
          **{n: (lambda w, d, n=n: phase_fault(w, n, d)) for n in ("illegal_address", "side_stream", "hang")}}


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in PHASES:
        print(__doc__)
        return 2
    w = Path(argv[1])
    w.mkdir(parents=True, exist_ok=True)
    deadline = float(argv[argv.index("--deadline") + 1]) if "--deadline" in argv else time.time() + 540
    os.environ.setdefault("FAULTS_TAG", f"device_faults-{os.getpid()}-{time.time_ns()}")  # inherited by all we start
    signal.signal(signal.SIGTERM, _on_term)
    try:
        PHASES[argv[0]](w, deadline)
    except Exception:  # said in the summary's row for this phase, then the exit status as usual
        import traceback

        (w / f"{argv[0]}.error").write_text(traceback.format_exc())
        raise
    finally:
        if Child.proc is not None:  # a run of ours was started: nothing of it (its workers included) outlives us
            Child.kill()
            for p in our_procs():
                try:
                    os.killpg(p["pgid"], signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
