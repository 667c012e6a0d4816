"""Where each run of this record spent its wall time, from its database alone (run from the repository root):
python3 results/2026-12-02_h200_fast_run/where_the_time_went.py [unpacked-dir]. The databases are in the
<call>/<name>_db.tar.xz files; they are unpacked into the given directory (default: a temporary one)."""
import json
import sqlite3
import statistics
import sys
import tarfile
import tempfile
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = [("call1/d128", "B2 H16 N2048 D128, background builds beside the pairs"),
        ("call1/d64", "B16 H16 N512 D64, the same (interrupted)"),
        ("call2/d128", "B2 H16 N2048 D128, builds stopped while timing, compounds from figure builds"),
        ("call2/d64r", "B16 H16 N512 D64, call 1's run resumed"),
        ("call3/n8k", "B2 H16 N8192 D128, as call 2"),
        ("call4/d128", "B2 H16 N2048 D128, as call 2, two spare children"),
        ("call5/d128", "B2 H16 N2048 D128, as call 4 with the pair's 0.3 ms lead and torch-free profile inputs (cut)"),
        ("call5/d128_resumed", "call 5's run resumed to its end (results/2026-12-02_h200_suite_lead, call 1)")]


def t(s):
    return datetime.fromisoformat(s)


def main(out: Path) -> None:
    for name, what in RUNS:
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        with tarfile.open(HERE / f"{name}_db.tar.xz") as tf:
            tf.extractall(d, filter="data")
        db = sqlite3.connect(f"file:{d / 'fa5090.db'}?immutable=1", uri=True)
        db.row_factory = sqlite3.Row
        run = db.execute("select * from runs").fetchone()
        exps = db.execute("select * from experiments order by id").fetchall()
        meas = lambda eid, kind: [json.loads(r[0]) for r in
                                  db.execute("select payload from measurements where experiment_id = ? and kind = ?",
                                             (eid, kind))]
        counted = [e for e in exps if e["seq"] is not None and e["outcome"]]
        secs = [(t(e["finished_at"]) - t(e["started_at"])).total_seconds() for e in counted]
        null_s = sum(a.get("job_s") or 0 for e in exps if e["kind"] == "aa_null" for a in meas(e["id"], "aa"))
        nulls = [e for e in exps if e["kind"] == "aa_null"]
        jobs = reps = prof = 0.0
        c1 = []
        for e in counted:
            for m in meas(e["id"], "timing"):
                jobs += m.get("job_s") or 0
                reps += m.get("replicate_s") or 0
                prof += m.get("profile_s") or 0
                if (m.get("job_clock") or {}).get("c1_s"):
                    c1.append(m["job_clock"]["c1_s"])
        # the gaps between one experiment's end and the next one's start, less the nulls and re-anchors between
        gaps = 0.0
        for a, b in zip(counted, counted[1:]):
            gaps += (t(b["started_at"]) - t(a["finished_at"])).total_seconds()
        between = [e for e in exps if e["kind"] in ("aa_null", "reanchor") and counted and
                   t(counted[0]["finished_at"]) <= t(e["started_at"]) <= t(counted[-1]["started_at"])]
        wall = (t(run["finished_at"] or exps[-1]["finished_at"]) - t(run["started_at"])).total_seconds()
        resumes = json.loads(run["resumes"] or "[]") if "resumes" in run.keys() else []
        tn = [round(json.loads(n["detail"].split("t_noise ")[1].split("%")[0]) if False else
                    float(n["detail"].split("t_noise ")[1].split("%")[0]), 3) for n in nulls]
        print(f"## {name}: {what}")
        print(f"  status {run['status']}; {len(counted)} experiments, {sum(e['outcome'] == 'KEPT' for e in counted)} "
              f"kept; started {run['started_at']}, finished {run['finished_at']}" + (f"; resumed {len(resumes)}x" if resumes else ""))
        print(f"  wall from start to finish {wall:.0f} s (a resumed run: its pause between the calls included)")
        print(f"  an experiment from start to outcome: median {statistics.median(secs):.1f} s, max {max(secs):.1f} s")
        print(f"  inside the experiments: first children {jobs:.0f} s (C1 median {statistics.median(c1):.2f} s), "
              f"replicates {reps:.0f} s, ncu profiles {prof:.0f} s")
        print(f"  A/A nulls: {len(nulls)}, their children {null_s:.0f} s; t_noise of each (%): {tn}")
        clocks = [(m["job_s"], m.get("job_clock") or {}, m.get("replicate_s"), m.get("replicate_clock") or {})
                  for e in counted for m in meas(e["id"], "timing") if m.get("job_s")]
        spare = [c.get("spare_imports_s") for _, jc, _, rc in clocks for c in (jc, rc) if c.get("spare_imports_s")]
        spare += [(a.get("clock") or {}).get("spare_imports_s") for e in nulls for a in meas(e["id"], "aa")
                  if (a.get("clock") or {}).get("spare_imports_s")]
        ctx = [c["cuda_context_s"] for _, jc, _, rc in clocks for c in (jc, rc) if c.get("cuda_context_s")]
        pairs = [jc["paired_s"] for _, jc, _, _ in clocks if jc.get("paired_s")]
        rng = lambda xs: f"{min(xs):.2f}-{max(xs):.2f} s" if xs else "none"
        print(f"  a candidate's child {rng([j for j, *_ in clocks])}; its first pair {rng(pairs)}; "
              f"a replicate {rng([r for _, _, r, _ in clocks if r])}; a CUDA context {rng(ctx)}; "
              f"a spare's imports (torch first) {rng(spare)}; a keep's ncu profile "
              f"{rng([m['profile_s'] for e in counted for m in meas(e['id'], 'timing') if m.get('profile_s')])}")
        print(f"  between experiments (figures, nulls, re-anchors): {gaps:.0f} s, of which {len(between)} nulls/re-anchors")
        waits = [m["figures_s"] for e in counted for m in meas(e["id"], "timing") if m.get("figures_s") is not None]
        if waits:  # recorded since the loop times its figures step (the wait for builds before an experiment)
            print(f"  the figures steps (waiting for builds): {sum(waits):.0f} s over {len(waits)} experiments, "
                  f"the longest {max(waits):.1f} s")
        for e in exps:
            if e["kind"] == "comparator":
                print(f"  comparator {e['lever']}: paired margin {e['margin']:.4f} (AB {e['margin_ab']:.4f} / BA "
                      f"{e['margin_ba']:.4f}); ours {e['tflops_base']:.1f} TFLOP/s, theirs {e['tflops_cand']:.1f}; "
                      f"ours / theirs {1 / e['margin']:.3f}")
        db.close()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1].startswith("-"):  # an option is no directory to unpack into
        sys.exit(__doc__)
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()))
