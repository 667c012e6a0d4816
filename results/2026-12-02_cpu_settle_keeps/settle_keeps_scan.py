"""The settle rules "any" and "replicate" (experiments.timing.settle_reason) replayed over every recorded paired
stream and A/A stream of the committed databases, in measured order, checked after each AB/BA pair from the tenth
alternation on. Run from the repository root: python3 results/2026-12-02_cpu_settle_keeps/settle_keeps_scan.py"""
import collections
import json
import re
import sqlite3
import statistics
import subprocess

from experiments.timing import MIN_ALTERNATIONS, SETTLE_EVERY, settle_reason

dbs = subprocess.run(["git", "ls-files", "results/*.db", "results/**/*.db"], capture_output=True, text=True).stdout.split()
rows, aa = [], []
for d in dbs:
    c = sqlite3.connect(f"file:{d}?immutable=1", uri=True)
    try:
        got = c.execute("select e.outcome, e.detail, m.payload, m.kind from experiments e join measurements m on "
                        "m.experiment_id = e.id where (m.kind = 'paired' and e.kind in ('lever', 'compound', 'rescreen', "
                        "'sampled', 'random', 'tpe')) or m.kind = 'aa' order by m.id").fetchall()
    except sqlite3.Error:
        continue
    for outcome, detail, payload, kind in got:
        p = json.loads(payload)
        if not p.get("ratios"):
            continue
        if kind == "aa":
            aa.append((d, p["ratios"]))
            continue
        tn = tk = None
        if mm := re.search(r"<= 1 - t_noise \(([0-9.]+)\)", detail or ""):
            tn = 1 - float(mm[1])
        if mm := re.search(r"within the A/A null \(t_noise ([0-9.]+)%\)", detail or ""):
            tn = float(mm[1]) / 100
        if mm := re.search(r"t_keep ([0-9.]+)", detail or ""):
            tk = float(mm[1])
        if tn is None and tk is None:
            continue
        rows.append((d, outcome, tn if tn is not None else tk - 1, tk if tk is not None else 1 + tn, p["ratios"]))


def first(ratios, tn, tk, rule):
    for i in range(MIN_ALTERNATIONS, len(ratios) + 1, SETTLE_EVERY):
        why = settle_reason(ratios[:i], tn, tk, rule=rule)
        if why:
            return why.split()[1], i
    return "full", len(ratios)


print(len(dbs), "databases;", len(rows), "candidate pairs with ratios and thresholds;", len(aa), "A/A pairs with ratios")
for rule in ("non_keep", "any"):
    cnt, bad, used, total = collections.Counter(), [], 0, 0
    for d, outcome, tn, tk, r in rows:
        cls, i = first(r, tn, tk, rule)
        cnt[(outcome, cls)] += 1
        used, total = used + i, total + len(r)
        if cls not in ("full", outcome) and not (cls == "KEEP-side" and outcome == "KEPT"):
            bad.append((d, outcome, cls, i, len(r)))
    print(f"rule {rule}: " + ", ".join(f"{o} -> {c}: {n}" for (o, c), n in sorted(cnt.items())))
    print(f"  alternations measured {used} of {total} ({1 - used / total:.1%} saved); disagreements {len(bad)}")
    for b in bad[:20]:
        print("  DISAGREE", b)
cnt, bad = collections.Counter(), 0
for d, outcome, tn, tk, r in rows:
    cls, i = first(r, tn, tk, "replicate")
    whole = "REPLICATED" if statistics.median(r) >= tk else "NOT-REPLICATED"
    cnt[(whole, cls)] += 1
    bad += cls not in ("full", whole)
print("rule replicate (each stream read as a replicate against its t_keep): "
      + ", ".join(f"whole median {w} -> {c}: {n}" for (w, c), n in sorted(cnt.items())) + f"; disagreements {bad}")
for tk in (1.005, 1.01, 1.02):
    fk = sum(first(r, tk - 1, tk, "any")[0] == "KEEP-side" for _, r in aa)
    print(f"A/A streams settled KEEP-side at t_keep {tk}: {fk} of {len(aa)}")
dev = []
for d, outcome, tn, tk, r in rows:
    cls, i = first(r, tn, tk, "any")
    if cls == "KEEP-side":
        dev.append(abs(statistics.median(r[:i]) / statistics.median(r) - 1))
dev.sort()
print(f"a keep settled early: its margin against the whole budget's, |ratio - 1| median {statistics.median(dev):.3%}, "
      f"p90 {dev[int(0.9 * len(dev))]:.3%}, max {dev[-1]:.3%} ({len(dev)} keeps)")
