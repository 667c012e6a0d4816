#!/usr/bin/env python3
"""Per SASS opcode, what call 1's source-level ncu (call1/src.tgz) counted at B16 H16 N512 D64 fp16: instructions
executed and warp-state samples, for SDPA's cuDNN kernel and ws_op_lazy_qp_w_ot_rt_pr. CPU only.

    python3 results/2026-12-02_h200_softmax_chain/summarize.py > results/2026-12-02_h200_softmax_chain/call1_summary.txt"""
import csv
import io
import sys
import tarfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ("sdpa_cudnn", "ws_op_lazy_qp_w_ot_rt_pr")


def by_opcode(tf: tarfile.TarFile, name: str) -> tuple[Counter, Counter, Counter]:
    """(instructions executed, warp-state samples, stall_wait samples) by opcode"""
    rows = list(csv.reader(io.TextIOWrapper(tf.extractfile(f"src/{name}_source.csv"))))
    hdr = rows[1]
    src, ex = hdr.index("Source"), hdr.index("Instructions Executed")
    every, wait = hdr.index("Warp Stall Sampling (All Samples)"), hdr.index("stall_wait")
    n, s, w = Counter(), Counter(), Counter()
    for r in rows[2:]:
        if len(r) != len(hdr):
            continue
        words = r[src].split()
        op = (words[1] if words[0].startswith("@") else words[0]).split(".")[0]
        n[op] += float(r[ex] or 0)
        s[op] += float(r[every] or 0)
        w[op] += float(r[wait] or 0)
    return n, s, w


def main() -> int:
    with tarfile.open(HERE / "call1" / "src.tgz") as tf:
        for name in NAMES:
            n, s, w = by_opcode(tf, name)
            pct = lambda c, k: 100 * c[k] / sum(c.values())  # noqa: E731
            print(f"{name}: {sum(n.values()):.0f} instructions executed, {sum(s.values()):.0f} samples, "
                  f"stall_wait {sum(w.values()):.0f} ({100 * sum(w.values()) / sum(s.values()):.0f}%)")
            print("  executed per MUFU: " + ", ".join(f"{k} {n[k] / n['MUFU']:.2f}"
                                                     for k in ("FFMA", "FMUL", "FADD", "FMNMX", "F2FP", "HGMMA")))
            print("  samples by opcode: " + ", ".join(f"{k} {pct(s, k):.1f}%" for k, _ in s.most_common(8)))
            print("  stall_wait by opcode: " + ", ".join(f"{k} {pct(w, k):.1f}%" for k, _ in w.most_common(6)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
