"""The H200 record of the rounds' order, read back: every margin of call1/margins.txt (against the kernel without the
move and against SDPA cuDNN, with the compared kernel's A/A null), and the busiest, average and idlest SM of ncu's
rows in call1/an.tgz beside the prediction of ../2026-12-03_cpu_round_order/schedule_model.txt.
Usage: python3 results/2026-12-03_h200_round_order/summary.py > results/2026-12-03_h200_round_order/summary.txt"""
import csv
import io
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def margins(text: str):
    shape = None
    for line in text.splitlines():
        if m := re.match(r"A/A (\S+) at (\S+): \[(.*)\]", line):
            shape = m.group(2)
            vals = [float(v) for v in m.group(3).split(",")]
            yield shape, f"A/A {m.group(1)}", f"{min(vals):.4f}-{max(vals):.4f}"
        elif m := re.match(r"(\S+) (\S+)->(\S+): (\S+) \((\S+)/(\S+)\) (\S+) -> (\S+) TFLOP/s", line):
            yield m.group(1), f"{m.group(2)} -> {m.group(3)}", f"{m.group(4)} ({m.group(5)}/{m.group(6)}), " \
                f"{m.group(7)} -> {m.group(8)} TFLOP/s"


def sm_rows(tgz: Path):
    with tarfile.open(tgz) as t:
        for member in sorted(t.getmembers(), key=lambda m: m.name):
            if not member.name.endswith(".csv"):
                continue
            lines = t.extractfile(member).read().decode().splitlines()
            rows = list(csv.reader(io.StringIO("\n".join(lines[next(i for i, l in enumerate(lines) if l.startswith('"ID"')):]))))
            head = rows[0]
            for r in rows[2:]:
                v = lambda name: float(r[head.index(name)].replace(",", ""))
                kernel = "cuDNN" if r[head.index("Kernel Name")].startswith("cudnn") else member.name.split("__")[-1][:-4]
                act, hi, lo, el = (v(n) for n in ("sm__cycles_active.avg", "sm__cycles_active.max",
                                                  "sm__cycles_active.min", "gpc__cycles_elapsed.max"))
                yield kernel, act, hi, lo, el


def main() -> None:
    if len(sys.argv) > 1:
        sys.exit("usage: python3 summary.py   (reads call1/ beside it; no options)")
    print("margins (call1/margins.txt; each in one process, A/A of the compared kernel in three fresh processes)")
    for shape, move, what in margins((HERE / "call1" / "margins.txt").read_text()):
        print(f"  {shape:42s} {move:64s} {what}")
    print("\nncu at B16 H16 N512 D64 fp16 (call1/an.tgz): SM active cycles (busiest / average / idlest) and elapsed")
    print("  (before, results/2026-12-03_h200_tail_rows: ws3_lazy_qp_ot_pm_ts busiest 87865, average 77.6 k, idlest 60088;")
    print("   the model's prediction for turned rounds or heaviest first with the skip: busiest 82612)")
    for kernel, act, hi, lo, el in sm_rows(HERE / "call1" / "an.tgz"):
        print(f"  {kernel:30s} busiest {hi:8.0f}  average {act:8.0f}  idlest {lo:8.0f}  elapsed {el:8.0f}  "
              f"(busiest - average) / elapsed {(hi - act) / el:.3f}")


if __name__ == "__main__":
    main()
