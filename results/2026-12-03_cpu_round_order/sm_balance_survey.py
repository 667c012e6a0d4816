"""How evenly the SMs shared the work in every recorded ncu row that has the counters (sm__cycles_active avg / max /
min and gpc__cycles_elapsed.max), ours and SDPA's kernels alike, from the committed archives under results/ (the
databases' own profiles, collected without these counters, are skipped). One line a kernel: the record, the file,
whose kernel, the grid, the elapsed cycles, and as shares of them the average SM's active cycles, the busiest SM's,
the imbalance (busiest - average: what profiler.diagnosis.IMBALANCE_NOTE reads) and the dead time (elapsed - busiest).

    python3 results/2026-12-03_cpu_round_order/sm_balance_survey.py

sm_balance_survey.txt is its output over the records there were when it was written; a later record adds its rows
(tests/test_round_order.py checks that the recorded ones compute again).
"""
import csv
import io
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    # (the archives kept in xz too, results/README.md: one ncu archive moved from .tgz to .tar.xz on 2026-12-06)
    files = subprocess.run(["git", "ls-files", "results/*.tgz", "results/*.tar.xz"], cwd=ROOT, capture_output=True,
                           text=True).stdout.split()
    seen = set()
    for f in sorted(files):
        if "_db.tgz" in f or "_db.tar.xz" in f or "artifacts" in f:
            continue
        with tarfile.open(ROOT / f) as tf:
            for m in sorted(tf.getmembers(), key=lambda m: m.name):
                if not m.name.endswith(".csv"):
                    continue
                lines = [x for x in tf.extractfile(m).read().decode(errors="replace").splitlines() if x.startswith('"')]
                if not lines:
                    continue
                table = list(csv.reader(io.StringIO("\n".join(lines))))
                head = table[0]
                if "sm__cycles_active.max" not in head or "gpc__cycles_elapsed.max" not in head:
                    continue
                for row in table[2:]:
                    d = dict(zip(head, row))
                    g = lambda k: float(d[k].replace(",", ""))
                    el, avg, mx = g("gpc__cycles_elapsed.max"), g("sm__cycles_active.avg"), g("sm__cycles_active.max")
                    name = d["Kernel Name"]
                    who = "cuDNN" if name.startswith("cudnn") else "ours"
                    key = (m.name.rsplit("/", 1)[-1], who, round(el))
                    if key in seen:
                        continue
                    seen.add(key)
                    print(f"{f.split('/')[1]:34s} {m.name.rsplit('/', 1)[-1][:62]:62s} {who:5s} grid {d['launch__grid_size']:>6s} "
                          f"elapsed {el:8.0f}  average {avg / el:.3f} busiest {mx / el:.3f} imbalance {(mx - avg) / el:.3f} "
                          f"dead {(el - mx) / el:.3f}")


if __name__ == "__main__":
    main()
