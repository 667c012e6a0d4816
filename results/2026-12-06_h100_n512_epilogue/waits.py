"""The warp-state samples of the mbarrier waits in ncu's source page, by barrier: each SYNCS.PHASECHK...TRYWAIT's
samples with those of the branch that retries it, grouped by the barrier's shared-memory offset, and the executions of
the try-wait (the retry branch: the first `@!P BRA` on its predicate within three instructions). CPU only:
    python3 results/2026-12-06_h100_n512_epilogue/waits.py SASS_CSV_GZ > results/2026-12-06_h100_n512_epilogue/waits.txt"""
import csv
import gzip
import io
import re
import sys
from collections import defaultdict


def main(path: str) -> int:
    rows = list(csv.reader(io.StringIO(gzip.decompress(open(path, "rb").read()).decode())))
    hdr, data = rows[1], rows[2:]
    src, smp, ex = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("Instructions Executed")
    total = sum(int(float(r[smp] or 0)) for r in data)
    by = defaultdict(lambda: [0, 0, []])
    for i, r in enumerate(data):
        m = re.search(r"SYNCS\.PHASECHK\.TRANS64\.TRYWAIT (P\d), \[R\d+\+URZ\+(0x[0-9a-f]+)\]", r[src])
        if not m:
            continue
        s = int(float(r[smp] or 0))
        for j in range(i + 1, min(i + 4, len(data))):  # the branch on its predicate that retries it
            if re.search(rf"@!{m[1]}\s+BRA", data[j][src]):
                s += int(float(data[j][smp] or 0))
                break
        b = by[m[2]]
        b[0] += s
        b[1] += int(float(r[ex] or 0))
        b[2].append(i)
    print(f"{total} samples; mbarrier waits by barrier offset (try-wait and its retry branch):")
    for off, (s, n, at) in sorted(by.items(), key=lambda kv: -kv[1][0]):
        print(f"  {off}: {s:5d} samples ({100 * s / total:4.1f}%), try-waits executed {n}, at instructions {at}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
