"""The H200 record of the two-warpgroup kernels at B16 H16 N512 D64 fp16, read back: every margin of margins.txt, and
ncu's busiest, average and idlest SM (json.tgz, an/) for the best-placed two-warpgroup kernel, the three-warpgroup
final and cuDNN beside each, held against ../2026-12-04_cpu_n512_bound (8 items of 128 rows on the busiest SM at most
10.1 k cycles each; 7.76 on the average SM).
CPU only: python3 results/2026-12-04_h200_n512_two_warpgroups/summary.py > results/2026-12-04_h200_n512_two_warpgroups/summary.txt"""
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("round_order", HERE.parent / "2026-12-03_h200_round_order" / "summary.py")
round_order = importlib.util.module_from_spec(spec)
spec.loader.exec_module(round_order)  # its margins() and sm_rows() readers; its main() is not run
ROWS_3WG = 192  # rows an item of the three-warpgroup kernel; 512 full items and 256 of 128 rows (the bound's F, T)
F_3WG = 14644  # the bound's full-item cost of the three-warpgroup kernel, cycles


def main() -> None:
    if len(sys.argv) > 1:
        sys.exit("usage: python3 summary.py   (reads margins.txt and json.tgz beside it; no options)")
    print("margins (margins.txt; each in one process, A/A of the three-warpgroup final in three fresh processes)")
    for shape, move, what in round_order.margins((HERE / "margins.txt").read_text()):
        if not move.startswith("warmup:"):
            print(f"  {move:58s} {what}")
    print("\nncu (json.tgz, an/): SM active cycles (busiest / average / idlest), elapsed; cycles an item of 128 rows")
    for kernel, act, hi, lo, el in round_order.sm_rows(HERE / "json.tgz"):
        line = f"  {kernel:28s} busiest {hi:6.0f} average {act:6.0f} idlest {lo:6.0f} elapsed {el:6.0f} " \
               f"busiest/average {hi / act:.3f}"
        if kernel.startswith("ws_op"):  # 1024 items of 128 rows on 132 CTAs: 8 on the busiest
            per_row = act / 7.76 / 128
            line += f"; busiest / 8 = {hi / 8:.0f} (bound 10.1 k), per row {per_row:.1f} = " \
                    f"{per_row / (F_3WG / ROWS_3WG):.3f}x the three-warpgroup kernel's (bound 1.035x)"
        print(line)


if __name__ == "__main__":
    main()
