"""Where a kernel's warps spend their time, by how often the code runs: ncu's source page (device_anatomy.py --sass
writes it) cut into runs of consecutive SASS instructions with the same execution count, each with its share of the
warp-state samples, its leading stalls and its opcodes. A run executed once per work item per warp (the count of the
kernel's entry block) against the key-block loop's runs says what an item's boundary costs. CPU only:

    python3 scripts/sass_segments.py SASS_CSV [--min 0.004]

The consumer warpgroups' code is the part before the producer's setmaxnreg.dec (USETMAXREG.DEALLOC).
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import sys
from pathlib import Path

SAMPLES = "Warp Stall Sampling (All Samples)"


def num(v) -> float:
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", type=Path)
    ap.add_argument("--min", type=float, default=0.004, help="leave out runs below this share of the samples")
    a = ap.parse_args()
    text = a.csv.read_text()
    head = text.find('"Address"')
    if head < 0:
        ap.error(f"{a.csv}: not ncu's source page (no \"Address\" column)")
    rows = list(csv.DictReader(io.StringIO(text[head:])))
    stalls = [c for c in rows[0] if c and c.startswith("stall_") and "Not Issued" not in c]
    total = sum(num(r[SAMPLES]) for r in rows) or 1.0
    split = next((i for i, r in enumerate(rows) if "DEALLOC" in r["Source"]), len(rows))
    by_count: collections.Counter = collections.Counter()
    runs: list[list] = []
    for i, r in enumerate(rows[:split]):
        e = int(num(r["Instructions Executed"]))
        by_count[e] += num(r[SAMPLES])
        if runs and runs[-1][0] == e:
            runs[-1][2] = i
            runs[-1][3].append(r)
        else:
            runs.append([e, i, i, [r]])
    print(f"{a.csv.name}: {len(rows)} instructions, {total:.0f} samples; consumers {sum(by_count.values()) / total:.1%}, "
          f"producer {1 - sum(by_count.values()) / total:.1%}")
    print("consumers' samples by execution count:")
    for e, v in by_count.most_common(6):
        print(f"  executed {e:>8}: {v / total:6.1%}")
    print("runs of one execution count (first-last instruction):")
    for e, lo, hi, rs in runs:
        s = sum(num(r[SAMPLES]) for r in rs)
        if s / total < a.min:
            continue
        st = collections.Counter({c[6:]: sum(num(r[c]) for r in rs) for c in stalls})
        ops = collections.Counter((r["Source"].split()[1] if r["Source"].strip().startswith("@") else r["Source"].split()[0])
                                  for r in rs if r["Source"].strip())
        print(f"  [{lo:5d}-{hi:5d}] executed {e:>7} x{len(rs):4d} instr {s / total:6.1%}  stalls "
              f"{', '.join(f'{k} {v / total:.1%}' for k, v in st.most_common(3))}  ops "
              f"{', '.join(f'{k} {n}' for k, n in ops.most_common(4))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
