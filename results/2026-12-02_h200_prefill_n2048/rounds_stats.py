#!/usr/bin/env python3
"""The rounds of call1/prefill_rounds.json against their nulls: per pair the median margin, and a one-sided
permutation test of the difference of medians (ours-vs-X rounds against X-vs-X rounds; 20,000 shuffles, seed 0).

    python3 results/2026-12-02_h200_prefill_n2048/rounds_stats.py"""
import json
import random
import statistics
from pathlib import Path

REC = Path(__file__).resolve().parent / "call1" / "prefill_rounds.json"
PAIRS = (("ours vs cudnn", "cudnn vs cudnn"), ("ours vs default", "default vs default"))


def permutation_p(a: list[float], b: list[float], shuffles: int = 20000, seed: int = 0) -> tuple[float, float]:
    """(median(a) - median(b), the share of shuffles whose difference is at least that)."""
    obs = statistics.median(a) - statistics.median(b)
    pool, rng, hits = a + b, random.Random(seed), 0
    for _ in range(shuffles):
        rng.shuffle(pool)
        hits += statistics.median(pool[:len(a)]) - statistics.median(pool[len(a):]) >= obs
    return obs, hits / shuffles


def stats(rec: dict) -> dict:
    rounds = rec["rounds"]
    out = {}
    for arm, null in PAIRS:
        a, b = [r[arm]["margin"] for r in rounds], [r[null]["margin"] for r in rounds]
        diff, p = permutation_p(a, b)
        out[arm] = {"median": statistics.median(a), "null_median": statistics.median(b), "diff": diff, "p": p}
    return out


if __name__ == "__main__":
    for arm, s in stats(json.loads(REC.read_text())).items():
        print(f"{arm}: median {s['median']:.4f}, its null {s['null_median']:.4f}, difference {s['diff']:+.4f}, "
              f"one-sided permutation p {s['p']:.3f}")
