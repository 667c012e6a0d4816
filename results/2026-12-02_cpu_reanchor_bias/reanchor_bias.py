#!/usr/bin/env python3
"""Every re-anchor in the committed records, against the product of the paired keeps it checks; and every keep's
first pair against its replicate. Reads the databases under results/ (and those packed in *_db.tar.xz), read-only, on the
CPU; each experiment is counted once even where a database is copied into two records (by its start time and margin).

    python3 results/2026-12-02_cpu_reanchor_bias/reanchor_bias.py"""
import gzip
import math
import re
import sqlite3
import statistics
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAP = re.compile(r"product of (\d+) paired keeps ([\d.]+), anchor ([\d.]+), gap ([-\d.]+)% against ([\d.]+)%")
REPLICATE = re.compile(r"margin ([\d.]+) and replicate ([\d.]+)")


def databases(tmp: Path) -> list[Path]:
    found = sorted((ROOT / "results").rglob("*.db"))
    for i, z in enumerate(sorted((ROOT / "results").rglob("*.db.gz"))):  # the databases kept compressed
        out = tmp / f"gz{i}" / z.stem
        out.parent.mkdir()
        out.write_bytes(gzip.decompress(z.read_bytes()))
        found.append(out)
    archives = [*(ROOT / "results").rglob("*_db.tgz"), *(ROOT / "results").rglob("*_db.tar.xz")]  # (as committed: xz)
    for i, t in enumerate(sorted(archives)):
        d = tmp / str(i)
        d.mkdir()
        with tarfile.open(t) as tf:
            tf.extractall(d, filter="data")
        found += sorted(d.rglob("*.db"))
    return found


def rows(paths: list[Path], sql: str) -> list[tuple]:
    out, seen = [], set()
    for p in paths:
        try:
            con = sqlite3.connect(f"file:{p}?immutable=1", uri=True)
            got = con.execute(sql).fetchall()
            con.close()
        except sqlite3.DatabaseError:
            continue
        for r in got:
            if r[:2] not in seen:
                seen.add(r[:2])
                out.append(r)
    return out


def main() -> None:
    paths = databases(Path(tempfile.mkdtemp()))
    gaps = [(int(m.group(1)), float(m.group(4)), float(m.group(5))) for _, _, det in
            rows(paths, "select started_at, margin, detail from experiments where kind = 'reanchor'")
            if (m := GAP.search(det or ""))]
    print(f"{len(paths)} databases; {len(gaps)} re-anchors with a product of keeps")
    print(f"  product above the anchor (overshoot): {sum(g < 0 for _, g, _ in gaps)}; below: {sum(g > 0 for _, g, _ in gaps)}")
    print(f"  beyond the tolerance sqrt(k+1) t_noise: {sum(abs(g) > tol for _, g, tol in gaps)}")
    print(f"  median gap {statistics.median(g for _, g, _ in gaps):+.3f}%")
    by_k: dict[int, list[float]] = {}
    for k, g, _ in gaps:
        by_k.setdefault(k, []).append(g)
    print("  by keeps in the product: " + "; ".join(f"{k}: {len(v)}, median {statistics.median(v):+.3f}%"
                                                  for k, v in sorted(by_k.items())))
    reps = [(float(m.group(1)), float(m.group(2))) for _, _, det in
            rows(paths, "select started_at, margin, detail from experiments where outcome = 'KEPT'")
            if (m := REPLICATE.search(det or ""))]
    logs = [100 * math.log(a / b) for a, b in reps]
    small = [100 * math.log(a / b) for a, b in reps if a < 1.05]
    print(f"{len(reps)} keeps with a replicate: first pair over replicate, median {statistics.median(logs):+.4f}%, "
          f"first higher in {sum(x > 0 for x in logs)} of {len(logs)}")
    print(f"  the {len(small)} keeps under 1.05: median {statistics.median(small):+.4f}%, "
          f"first higher in {sum(x > 0 for x in small)} of {len(small)}")


if __name__ == "__main__":
    main()
