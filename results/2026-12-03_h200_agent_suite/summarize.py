"""The runs of this record as one table: each run's recording (callN/<name>_db.tar.xz) replayed into a fresh
database on the CPU, read beside what the device printed (callN/<name>.txt: wall time, median experiment).

The databases archived by calls 1 and 4 hold only their header (the WAL was not checkpointed when the archive was
made; `run` now checkpoints on exit), so every figure here is read from a replay, which repeats the recorded run's
measurements and decisions; tests/test_agent_suite_record.py holds each replay to the history the device printed.
CPU only. Usage: python3 results/2026-12-03_h200_agent_suite/summarize.py > results/2026-12-03_h200_agent_suite/summary.txt"""
import json
import re
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = (("call1", "d128"), ("call2", "d64"), ("call3", "causal"), ("call4", "d64_p14"), ("call7", "d128_p15"),
        ("call8", "d128_pipelined"), ("call9", "causal_p16"),
        ("call10", "d128_beside"), ("call11", "d64_beside"))
FINAL = ("mainloop", "br", "bc", "warps", "o_store", "q_load", "persistent", "cta_order", "p_pack", "pv_wide",
         "rescale_lazy")


def replayed(call: str, name: str, tmp: Path) -> tuple[dict, list[dict]]:
    """The run row and experiments of the recording replayed into tmp/<name>.db."""
    with tarfile.open(HERE / call / f"{name}_db.tar.xz") as tf:
        tf.extractall(tmp / name, filter="data")
    db = tmp / f"{name}.db"
    rec = tmp / name / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    subprocess.run([sys.executable, "-m", "agent", "run", "--replay", str(rec), "--db", str(db)], check=True,
                   capture_output=True, cwd=HERE.parents[1])
    con = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return dict(con.execute("select * from runs").fetchone()), [
            dict(r) for r in con.execute("select * from experiments order by id")]
    finally:
        con.close()


def printed(call: str, name: str) -> dict:
    """What the device printed: the command's wall time and the tool's median experiment."""
    text = (HERE / call / f"{name}.txt").read_text()
    m, s = re.search(r"^real\t(\d+)m([\d.]+)s", text, re.M).groups()
    med = re.search(r"median (\d+) s per experiment", text).group(1)
    return {"wall_s": round(int(m) * 60 + float(s)), "median_s": int(med)}


def read(call: str, name: str, tmp: Path) -> dict:
    run, exps = replayed(call, name, tmp)
    counted = [e for e in exps if e["seq"] is not None and e["outcome"]]
    kept = [e for e in counted if e["outcome"] == "KEPT"]
    comp = {e["lever"]: e["margin"] for e in exps if e["kind"] == "comparator"}
    final = json.loads(kept[-1]["knobs"])
    return {"source": (HERE / call / "source.txt").read_text().strip(), "problem": run["problem_key"],
            "agent_version": json.loads(run["options"])["search"]["agent_version"], **printed(call, name),
            "experiments": len(counted), "kept": len(kept), "status": run["status"],
            "kept_levers": [e["lever"] for e in kept], "final": {k: final[k] for k in FINAL},
            "x_cudnn": round(1 / comp["sdpa_cudnn"], 3), "x_flash": round(1 / comp["sdpa_flash"], 3)}


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        for call, name in RUNS:
            r = read(call, name, Path(d))
            print(f"{call}/{name}: {r['problem']}, source {r['source']}, policy {r['agent_version']}")
            print(f"  {r['wall_s']} s (the command), {r['experiments']} experiments ({r['kept']} kept, median "
                  f"{r['median_s']} s), stopped: {r['status']}")
            print(f"  kept: {', '.join(r['kept_levers'])}")
            print(f"  final: {json.dumps(r['final'])}")
            print(f"  its own comparator rows: {r['x_cudnn']}x SDPA cuDNN, {r['x_flash']}x SDPA flash")


if __name__ == "__main__":
    sys.exit(main())
