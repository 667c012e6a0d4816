"""The key-block loop's warp samples by opcode in the two N8192 D128 source pages of this folder (the instructions
executed as often as the instructions holding the most samples: once a key-block step of every consumer warp), one-item-a-CTA kernel beside the persistent one.
Usage: python3 results/2026-12-06_h100_turn_cycle/loop_samples.py"""
import collections
import csv
import gzip
import re
from pathlib import Path

HERE = Path(__file__).parent
PAGE = "B2_H16_N8192_D128_fp16__{}_sass.csv.gz"


def loop(kernel: str):
    with gzip.open(HERE / PAGE.format(kernel), "rt") as f:
        rows = list(csv.reader(f))
    head, body = rows[1], rows[2:]
    ex, sm = head.index("Instructions Executed"), head.index("Warp Stall Sampling (All Samples)")
    by_count = collections.Counter()
    for r in body:
        by_count[int(r[ex] or 0)] += float(r[sm] or 0)
    steps = by_count.most_common(1)[0][0]  # the count holding most samples: the consumers' key-block steps
    samples, count = collections.Counter(), collections.Counter()
    for r in body:
        if int(r[ex] or 0) == steps:
            op = re.sub(r"^@!?U?P\w+\s+", "", r[1].strip()).split()[0]
            samples[op] += float(r[sm] or 0)
            count[op] += 1
    return steps, samples, count, sum(float(r[sm] or 0) for r in body)


a, b = loop("ws_op_lazy_w_oq_pk_dm"), loop("ws_op_lazy_qp_w_ot_pr_pk_dm")
print(f"executions a step: {a[0]} / {b[0]}")
print(f"loop samples: one item a CTA {sum(a[1].values()):.0f} of {a[3]:.0f}; persistent {sum(b[1].values()):.0f} of {b[3]:.0f}")
print(f"{'opcode':30s} {'one item':>9s} {'persist.':>9s} {'diff':>8s}  instructions in the loop")
for op in sorted(set(a[1]) | set(b[1]), key=lambda o: -abs(b[1][o] - a[1][o]))[:16]:
    print(f"{op:30s} {a[1][op]:9.0f} {b[1][op]:9.0f} {b[1][op] - a[1][op]:+8.0f}  {a[2][op]:4d} {b[2][op]:4d}")
