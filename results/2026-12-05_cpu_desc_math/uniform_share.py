"""The share of the uniform-datapath instructions (U*, R2UR, S2UR) among those executed, from recorded ncu SASS pages
(CPU): the N512 D64 final beside its two-consumer kernel (2026-12-04_h200_n512_policy21), and SDPA's cuDNN kernel beside
the two-consumer kernel of 2026-12-02_h200_softmax_chain; and on the final's page, the instructions of the key-block
segment (executed 24,576 times) between the first K wait and the last HGMMA of the block.
Usage: python3 results/2026-12-05_cpu_desc_math/uniform_share.py > results/2026-12-05_cpu_desc_math/uniform_share.txt"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-12-05_cpu_mbar_wait"))

from polls import CUDNN, PAGES, op, rows_of  # noqa: E402


def uniform(o: str) -> bool:
    return o.startswith("U") or o.split(".")[0] in ("R2UR", "S2UR")


def main() -> None:
    pages = [(t, m) for t, m, _ in PAGES] + [(CUDNN[0], m) for m in CUDNN[1]]
    for tgz, member in pages:
        rows = rows_of(tgz, member)
        ex = [(op(r), int(r["Instructions Executed"] or 0)) for r in rows]
        total = sum(n for _, n in ex)
        u = sum(n for o, n in ex if o and uniform(o))
        print(f"{tgz.parent.name}:{member.split('/')[-1]}: {u:,} of {total:,} executed on the uniform datapath: {u / total:.1%}")
    rows = rows_of(*[(t, m) for t, m, _ in PAGES][0])
    loop = [r for r in rows if int(r["Instructions Executed"] or 0) == 24576]
    hg = [i for i, r in enumerate(loop) if op(r).startswith("HGMMA")]
    seg = loop[:hg[11] + 1] if len(hg) >= 12 else loop
    print(f"the final's key-block segment up to its 12th HGMMA: {len(seg)} instructions, "
          f"{sum(uniform(op(r)) for r in seg)} uniform, {len(hg[:12])} HGMMA")


if __name__ == "__main__":
    main()
