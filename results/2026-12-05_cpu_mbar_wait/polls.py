"""How often the kernels' threads asked an mbarrier again, counted from recorded ncu SASS pages (CPU, no GPU).

ptxas compiles mbar_wait (kernel_src/wgmma.cuh) as one SYNCS.PHASECHK.TRANS64.TRYWAIT in line, and, for a wait that
is not complete, a block out of line: YIELD, TRYWAIT, a branch back while the phase is not complete, a branch out
(with mbar_wait=suspend: TRYWAIT, NANOSLEEP.SYNCS, a test of the phase, a branch back, a branch out). So a wait site's
"asks again" are the executions of its out-of-line TRYWAIT; each costs three instructions in the first form.
The barrier is named by its offset in the warp-specialised layout (kernel_src/mainloop_sm90_ws.cuh's WsBars: per
stage K full, V full, K empty, V empty, then Q full and empty; the layout's base is the lowest such offset, a consumer's
first K full) where the address has it; the producer's waits on the empty barriers often carry it in a register.
Usage: python3 results/2026-12-05_cpu_mbar_wait/polls.py > results/2026-12-05_cpu_mbar_wait/polls.txt
       python3 results/2026-12-05_cpu_mbar_wait/polls.py PAGE_sass.csv STAGES ...   (pages of a later ncu run)"""
import csv
import io
import re
import sys
import tarfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1]
PAGES = [(RESULTS / "2026-12-04_h200_n512_policy21" / "sass.tar.xz", "./B16_H16_N512_D64_fp16__ws3_lazy_qp_hf_ot_pm_ts_s3_sass.csv", 3),
         (RESULTS / "2026-12-04_h200_n512_policy21" / "sass.tar.xz", "./B16_H16_N512_D64_fp16__ws_op_lazy_qp_ot_pr_pm_sass.csv", 2)]
CUDNN = (RESULTS / "2026-12-02_h200_softmax_chain" / "call1" / "src.tgz",
         ["src/sdpa_cudnn_source.csv", "src/ws_op_lazy_qp_w_ot_rt_pr_source.csv"])


def rows_of(tgz: Path, member: str | None) -> list[dict]:
    if member is None:  # a page on its own
        text = tgz.read_text()
    else:
        with tarfile.open(tgz) as t:
            text = t.extractfile(member).read().decode()
    if text.startswith('"Kernel Name"'):
        text = text.split("\n", 1)[1]
    return list(csv.DictReader(io.StringIO(text)))


def op(r: dict) -> str:
    w = r["Source"].strip().split()
    return (w[1] if w and w[0].startswith("@") else w[0] if w else "")


def barrier(operand: str, stages: int, base: int) -> str:
    m = re.search(r"\+0x([0-9a-f]{5})\]", operand)
    if not m:
        return "address in a register"
    k = (int(m[1], 16) - base) // 8
    names = ["K full", "V full", "K empty", "V empty"]
    return f"{names[k // stages]} {k % stages}" if k < 4 * stages else ["Q full", "Q empty"][k - 4 * stages] \
        if k < 4 * stages + 2 else f"+{k * 8:#x}"


def main(argv: list[str]) -> None:
    pages = [(Path(a), None, int(b)) for a, b in zip(argv[::2], argv[1::2])] or PAGES
    for tgz, member, stages in pages:
        rows = rows_of(tgz, member)
        total = sum(int(r["Instructions Executed"] or 0) for r in rows)
        print(f"{tgz.parent.name}/{tgz.name}{':' + member[2:] if member else ''}: {total:,} warp instructions executed")
        sites, asks_all = {}, 0
        for i, r in enumerate(rows):
            if "TRYWAIT" not in r["Source"]:
                continue
            operand = r["Source"].split("TRYWAIT", 1)[1].strip()
            ex = int(r["Instructions Executed"] or 0)
            prev = rows[i - 1]["Source"].strip() if i else ""
            if prev == "YIELD" or prev.startswith("BRA "):  # out of line (after YIELD, or a branch out of the last block)
                out = next(j for j in range(i + 1, len(rows)) if rows[j]["Source"].strip().startswith("BRA "))
                exits = int(rows[out]["Instructions Executed"] or 0)
                s = sites.setdefault(operand, [0, 0, 0])
                s[1] += ex
                s[2] += exits
                asks_all += ex
            else:
                sites.setdefault(operand, [0, 0, 0])[0] += ex
        base = min(int(m, 16) for m in re.findall(r"\+0x([0-9a-f]{5})\]", " ".join(sites)))
        print("  wait site (barrier) | waits | asks again | waits that asked again | asks a wait that asked again")
        by_kind: dict = {}
        for operand, (waits, asks, exits) in sorted(sites.items(), key=lambda kv: -kv[1][1]):
            if waits or asks:
                name = barrier(operand, stages, base)
                kind = name.split(" ")[1] if name.split(" ")[0] in ("K", "V", "Q") else name
                by_kind[kind] = by_kind.get(kind, 0) + asks
                print(f"  {operand:38s} ({name}) | {waits:,} | {asks:,} | {exits:,} | "
                      f"{asks / exits if exits else 0:.1f}")
        print("  asks again by barrier kind: " + ", ".join(f"{k} {v:,}" for k, v in sorted(by_kind.items())))
        print(f"  asks again in all: {asks_all:,}, {3 * asks_all:,} instructions (YIELD, TRYWAIT, branch): "
              f"{3 * asks_all / total:.1%} of the instructions executed")
    if argv:
        return
    tgz, members = CUDNN
    print(f"{tgz.parent.parent.name}/{tgz.parent.name}/{tgz.name}: SYNCS, YIELD and branch instructions executed")
    for m in members:
        rows = rows_of(tgz, m)
        count = {k: sum(int(r["Instructions Executed"] or 0) for r in rows if op(r).split(".")[0] == k)
                 for k in ("SYNCS", "YIELD", "BRA")}
        total = sum(int(r["Instructions Executed"] or 0) for r in rows)
        print(f"  {m.split('/')[-1].removesuffix('_source.csv')}: {total:,} in all; " +
              ", ".join(f"{k} {v:,}" for k, v in count.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
