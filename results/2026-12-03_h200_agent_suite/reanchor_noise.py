"""How far apart a keep's two fresh-process measurements lie, against the A/A null the run judged it with, and what
that does to the re-anchor check: every run of this record replayed on the CPU with the current code (a re-anchor's
tolerance adds each keep's noise in quadrature: agent.reanchor.link_noise, the larger of the null's t_noise and
|first / replicate - 1| / sqrt 2). The verdicts the device printed used the null alone.
CPU only: python3 results/2026-12-03_h200_agent_suite/reanchor_noise.py > results/2026-12-03_h200_agent_suite/reanchor_noise.txt"""
import re
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from summarize import RUNS  # noqa: E402


def main() -> None:
    spreads, nulls, verdicts, by_margin = [], [], {"device": {}, "now": {}}, []
    with tempfile.TemporaryDirectory() as d:
        for call, name in RUNS:
            tmp = Path(d)
            with tarfile.open(HERE / call / f"{name}_db.tar.xz") as tf:
                tf.extractall(tmp / name, filter="data")
            db = tmp / f"{name}.db"
            rec = tmp / name / "fa5090_artifacts" / "run-1" / "recording.jsonl"
            subprocess.run([sys.executable, "-m", "agent", "run", "--replay", str(rec), "--db", str(db)], check=True,
                           capture_output=True, cwd=HERE.parents[1])
            con = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
            rows = con.execute("select e.id, e.kind, e.outcome, e.margin, e.detail from experiments e order by e.id").fetchall()
            rep = dict(con.execute("select experiment_id, value from measurements where kind = 'replicate'").fetchall())
            text = (HERE / call / f"{name}.txt").read_text()
            tn = [float(x) for x in re.findall(r"^  A/A null margins [^:]*: t_noise ([0-9.]+)%", text, re.M)]
            printed = re.findall(r"^  product of .* gap ([-+0-9.]+)% against ([0-9.]+)%: (\w+)", text, re.M)
            con.close()
            sp = [abs(m / rep[i] - 1) * 100 for i, k, o, m, _ in rows if o == "KEPT" and i in rep]
            by_margin += [(m, abs(m / rep[i] - 1) * 100) for i, k, o, m, _ in rows if o == "KEPT" and i in rep]
            spreads += sp
            nulls += tn
            print(f"{call}/{name}: {len(sp)} keeps with a replicate, |first / replicate - 1| median {statistics.median(sp):.3f}%"
                  f", max {max(sp):.3f}%; the run's A/A nulls t_noise {', '.join(f'{x:.3f}' for x in tn)}%")
            now = [(int(re.search(r"product of (\d+)", det).group(1)), *re.search(
                   r"gap ([-+0-9.]+)% against ([0-9.]+)%: (\w+)", det).groups()) for _, k, _, _, det in rows
                   if k == "reanchor" and det and "product of" in det]
            assert len(now) == len(printed), (call, len(now), len(printed))
            for (kk, gap, tol, v), (_, ptol, pv) in zip(now, printed):
                verdicts["device"][pv] = verdicts["device"].get(pv, 0) + 1
                verdicts["now"][v] = verdicts["now"].get(v, 0) + 1
                print(f"  re-anchor after {kk} keeps: gap {gap}%; printed tolerance {ptol}% ({pv}), with the keeps' "
                      f"spread {tol}% ({v})")
    print(f"all runs: |first / replicate - 1| of {len(spreads)} keeps, median {statistics.median(spreads):.3f}%, "
          f"quartiles {statistics.quantiles(spreads, n=4)[0]:.3f}-{statistics.quantiles(spreads, n=4)[2]:.3f}%, max "
          f"{max(spreads):.3f}%; A/A null t_noise median {statistics.median(nulls):.3f}% over {len(nulls)} nulls")
    for lo, hi in ((1.0, 1.01), (1.01, 1.05), (1.05, 1.5), (1.5, 100.0)):
        band = sorted(x for m, x in by_margin if lo <= m < hi)
        print(f"keeps of margin {lo:g}-{hi:g}: {len(band)}, |first / replicate - 1| median {statistics.median(band):.3f}%, "
              f"max {max(band):.3f}%")
    print(f"re-anchor verdicts as printed: {dict(sorted(verdicts['device'].items()))}; with the keeps' spread: "
          f"{dict(sorted(verdicts['now'].items()))}")


if __name__ == "__main__":
    sys.exit(main())
