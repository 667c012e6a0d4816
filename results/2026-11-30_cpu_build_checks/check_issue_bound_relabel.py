"""Agent v4's `issue_bound` rule against every ncu profile recorded under results/ (plain CSVs and those
inside .tgz and .tar.xz archives): each diagnosed with the rules before it (issue_bound=False, agents 1-3) and with
it, at one and two row tiles a warp; prints every label that changes and a count. No GPU needed.
    python3 results/2026-11-30_cpu_build_checks/check_issue_bound_relabel.py > results/2026-11-30_cpu_build_checks/issue_bound_relabel.txt"""
import sys
import tarfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from profiler.diagnosis import diagnose, metrics_from_row, stall_shares  # noqa: E402
from profiler.ncu import parse_raw_csv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2] / "results"


def profiles():
    for p in sorted(ROOT.rglob("ncu_*.csv")):
        yield str(p.relative_to(ROOT)), p.read_text()
    for t in sorted([*ROOT.rglob("*.tgz"), *ROOT.rglob("*.tar.xz")]):  # (the recorded archives recompressed to xz)
        with tarfile.open(t) as tar:
            for m in tar.getmembers():
                if m.isfile() and Path(m.name).name.startswith("ncu_") and m.name.endswith(".csv"):
                    yield f"{t.relative_to(ROOT)}:{m.name}", tar.extractfile(m).read().decode()


n, changed, labels, shares = 0, [], Counter(), []
for name, text in profiles():
    rows = parse_raw_csv(text)
    if not rows:
        continue
    m = metrics_from_row(rows[0], "sm_90")
    sh = dict(stall_shares(m.stalls))
    shares.append((sh.get("not_selected", 0) + sh.get("dispatch_stall", 0), name))
    for tiles in (1, 2):
        old, new = diagnose(m, tiles, issue_bound=False).label, diagnose(m, tiles).label
        n += 1
        labels[new] += 1
        if old != new:
            changed.append(f"{name} (tiles {tiles}): {old} -> {new}")
print(f"# {n} diagnoses (ncu profiles under results/, plain and in archives, at 1 and 2 row tiles a warp)")
print(f"# labels with issue_bound: {dict(sorted(labels.items()))}")
print(f"# changed: {len(changed)}")
shares.sort(reverse=True)
print(f"# not_selected + dispatch_stall share of stall weight, highest five of {len(shares)} profiles (the rule: >= 0.40):")
print("\n".join(f"#   {v:.3f} {name}" for v, name in shares[:5]))
print("\n".join(changed))
