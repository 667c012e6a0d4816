"""Every re-screen in the recorded H200 runs' databases (results/**/*_db.tar.xz, the device's *_db.tgz recompressed to
xz): a shelved lever measured again because a keep changed the conditions it lost under (agent/shelf.py: shared memory
a CTA, CTAs/SM, warps/SM or the diagnosis), with its outcome and margin and the compiler's figures its rationale
printed. CPU only:
python3 results/2026-12-04_cpu_rescreens/rescreens.py > results/2026-12-04_cpu_rescreens/rescreens.txt"""
import collections
import re
import sqlite3
import tarfile
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1]


def rescreens():
    """(record path, seq, lever, outcome, margin, rationale) of each re-screen, in path order."""
    for tgz in sorted([*RESULTS.glob("**/*_db.tgz"), *RESULTS.glob("**/*_db.tar.xz")]):
        if tgz.relative_to(RESULTS).parts[0] > "2026-12-04_~":
            continue  # the runs recorded by this record's date; a later run's re-screens are its own record's
        with tarfile.open(tgz) as t:
            db = next((m for m in t.getmembers() if m.name.endswith("fa5090.db")), None)
            if db is None:
                continue
            with tempfile.TemporaryDirectory() as d:
                t.extractall(d, members=[db], filter="data")
                con = sqlite3.connect(Path(d) / db.name)
                try:
                    got = con.execute("SELECT seq, lever, outcome, margin, rationale FROM experiments "
                                      "WHERE kind = 'rescreen' ORDER BY seq").fetchall()
                except sqlite3.OperationalError:  # a database of a screen or a sweep: no experiments table
                    got = []
                con.close()
        for row in got:
            yield (str(tgz.relative_to(RESULTS)), *row)


def main() -> None:
    rows = list(rescreens())
    print("| run | # | lever | outcome | margin | CTAs/SM (best -> candidate) |")
    print("|---|---|---|---|---|---|")
    for run, seq, lever, outcome, margin, why in rows:
        ctas = re.search(r"CTAs/SM (\d+->\d+)", why or "")
        print(f"| {run.removesuffix('_db.tgz').removesuffix('_db.tar.xz')} | {seq} | {lever} | {outcome} | {margin:.4f} | "
              f"{ctas.group(1) if ctas else '-'} |")
    n = collections.Counter(r[3] for r in rows)
    print(f"\n{len(rows)} re-screens: " + ", ".join(f"{k} {v}" for k, v in sorted(n.items())))


if __name__ == "__main__":
    main()
