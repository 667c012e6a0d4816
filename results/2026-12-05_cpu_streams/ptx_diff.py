"""What changed in the PTX of a build that keeps a work list: one configuration of the covering set that the check
reports as differing (the general mainloop's persistent grid, sm_80, fp16 D128), compiled from 5c61264 and from this
tree, both with the virtual-register numbers and mangled names stripped (check_ptx_unchanged.normalise), diffed.
Also: which of the configurations the --small check reports as differing keep a work list.
Usage: PYTHONPATH=. python3 results/2026-12-05_cpu_streams/ptx_diff.py > results/2026-12-05_cpu_streams/ptx_diff.txt"""
import difflib
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import check_ptx_unchanged as c  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

CONFIG = dict(compute="mma", layout="pad", staging="cp_async", br=64, bc=128, warps=4, kv_stages=2, q_in="smem",
              rescale_skip="on", causal_mask="predicate", min_ctas=2, persistent="on", epilogue="smem")


def main() -> None:
    k = Knobs.parse(CONFIG)
    flags = [f"-D{a}={b}" for a, b in k.defines().items()] + c.SMALL
    with tempfile.TemporaryDirectory() as tmp:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", "5c61264", "kernel_src"], capture_output=True,
                             check=True).stdout
        subprocess.run(["tar", "x", "-C", tmp], input=tar, check=True)
        text = {}
        for tag, src in (("5c61264", Path(tmp) / "kernel_src"), ("tree", ROOT / "kernel_src")):
            out = Path(tmp) / f"{tag}.ptx"
            subprocess.run(["nvcc", "-O3", "-std=c++17", "-ptx", "-arch=sm_80", *flags, str(src / "fa_fwd.cu"), "-o",
                            str(out)], check=True)
            text[tag] = c.normalise(c.code_lines(out.read_text())).splitlines()
    print(f"# {k.label()} sm_80 fp16 D128, causal and not: {len(text['5c61264'])} lines of PTX from 5c61264, "
          f"{len(text['tree'])} from the tree; the diff (register numbers and mangled names stripped):")
    print("\n".join(ln for ln in difflib.unified_diff(text["5c61264"], text["tree"], "5c61264", "tree", lineterm="", n=0)
                    if not ln.startswith("@@")))
    rows = [ln.split("\t") for ln in gzip.decompress((HERE / "ptx_unchanged_small.txt.gz").read_bytes()).decode().splitlines()
            if ln.count("\t") >= 3 and not ln.startswith("#")]
    differ = [r for r in rows if r[3] == "differs"]
    work_list = [r for r in differ if "persistent=on" in r[1] and "mainloop=ws" not in r[1]]
    others = [r for r in differ if r not in work_list]
    print(f"# ptx_unchanged_small.txt: {len(differ)} of {len(rows)} differ; {len(work_list)} of them keep a work list "
          f"(persistent=on on the general mainloop); the others: {[(r[0], r[1], r[2]) for r in others]}")
    print(f"# configurations with persistent=on on the general mainloop reported the same: "
          f"{sum(1 for r in rows if r[3] == 'same' and 'persistent=on' in r[1] and 'mainloop=ws' not in r[1])}")


if __name__ == "__main__":
    main()
