"""Per-SM balance and DRAM read of each ncu page in an.tgz (device_anatomy.py's CSVs at B16 H16 N512 D64): the busiest,
average and idlest SM's active cycles, the elapsed cycles, those after the busiest SM ends, and DRAM bytes read; each
kernel of ours beside the cuDNN kernel profiled in the same process. CPU only:
python3 results/2026-12-05_h200_schedule/sm_balance.py > results/2026-12-05_h200_schedule/sm_balance.txt"""
import csv
import io
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    with tarfile.open(HERE / "an.tgz") as tf:
        pages = sorted((m.name, tf.extractfile(m).read().decode()) for m in tf.getmembers() if m.name.endswith(".csv"))
    print("build profiled | kernel | busiest / average / idlest SM (k cycles) | elapsed | after the busiest | DRAM read")
    for name, text in pages:
        rows = list(csv.reader(io.StringIO("".join(ln for ln in text.splitlines(True) if ln.startswith('"')))))
        for r in rows[2:]:  # the header, then the units row
            d = dict(zip(rows[0], r))
            g = lambda k: float(d[k].replace(",", ""))  # noqa: E731
            mx, av, mn = (g(f"sm__cycles_active.{s}") for s in ("max", "avg", "min"))
            el = g("gpc__cycles_elapsed.max")
            who = "cuDNN" if d["Kernel Name"].startswith("cudnn") else "ours"
            print(f"{name.split('__')[1][:-4]} | {who} | {mx / 1e3:.1f} / {av / 1e3:.1f} / {mn / 1e3:.1f} | {el / 1e3:.1f} | "
                  f"{(el - mx) / 1e3:.1f} ({(el - mx) / el:.3f}) | {g('dram__bytes_read.sum') / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
