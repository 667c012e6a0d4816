import json, re, sqlite3, subprocess, sys
from experiments.timing import settle_reason, SETTLE_EVERY, MIN_ALTERNATIONS
dbs = subprocess.run(["git", "ls-files", "results/*.db", "results/**/*.db"], capture_output=True, text=True).stdout.split()
rows = []
for d in dbs:
    c = sqlite3.connect(f"file:{d}?immutable=1", uri=True)
    try:
        q = c.execute("select e.outcome, e.detail, m.payload from experiments e join measurements m on m.experiment_id = e.id "
                      "where m.kind = 'paired' and e.kind in ('lever', 'compound', 'rescreen', 'sampled', 'random', 'tpe') order by m.id").fetchall()
    except sqlite3.Error:
        continue
    seen = set()
    for outcome, detail, payload in q:
        p = json.loads(payload)
        if not p.get("ratios"):
            continue
        m = re.search(r"t_noise \(?([0-9.]+)%?", detail or "")
        tn = tk = None
        if (mm := re.search(r"<= 1 - t_noise \(([0-9.]+)\)", detail or "")):
            tn = 1 - float(mm[1])
        if (mm := re.search(r"within the A/A null \(t_noise ([0-9.]+)%\)", detail or "")):
            tn = float(mm[1]) / 100
        if (mm := re.search(r"t_keep ([0-9.]+)", detail or "")):
            tk = float(mm[1])
        rows.append((d, outcome, tn, tk, p["ratios"], p["margin"]))
print(len(dbs), "databases,", len(rows), "paired measurements with ratios")
import collections
cnt = collections.Counter()
saved = total = 0
bad = []
for d, outcome, tn, tk, ratios, margin in rows:
    if tn is None and tk is None:
        cnt["no thresholds"] += 1; continue
    if tn is None: tn = tk - 1
    if tk is None: tk = 1 + tn
    why = None
    for i in range(MIN_ALTERNATIONS, len(ratios) + 1, SETTLE_EVERY):
        why = settle_reason(ratios[:i], tn, tk)
        if why: break
    total += len(ratios)
    if why:
        saved += len(ratios) - i
        cls = why.split()[1]
        cnt[(outcome, cls)] += 1
        if outcome == "KEPT" or (outcome in ("SLOWER", "NULL") and cls != outcome):
            bad.append((d, outcome, cls, round(margin, 4), tn, tk, i, len(ratios)))
    else:
        cnt[(outcome, "full")] += 1
for k, v in sorted(cnt.items(), key=str): print(k, v)
print(f"alternations: {total}, saved {saved} ({saved / total:.1%})")
for b in bad[:30]: print("DISAGREE", b)
print(len(bad), "disagreements")
