"""ptxas's figures of the four kernels of the streams check (device_streams.py), built on this CPU machine from the
source before each stream had its own work list (5c61264) and from this tree, for sm_80 (the mma kernels) and sm_90a
(all four), fp16 D64: the global memory each build declares (the work lists: 8 B before, 512 B with a list per
stream), and each kernel's registers, stack and spills, non-causal and causal.
Usage: PYTHONPATH=. python3 results/2026-12-05_cpu_streams/static_cpu.py > results/2026-12-05_cpu_streams/static_cpu.txt"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(HERE)]

import device_streams as ds  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402

BEFORE = "5c61264"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE, "kernel_src", "experiments"], capture_output=True,
                             check=True).stdout
        subprocess.run(["tar", "x", "-C", str(before)], input=tar, check=True)
        for arch in ("sm_80", "sm_90"):
            keep = {n: k for n, k in ds.CONFIGS.items() if arch == "sm_90" or k.get("mainloop") != "ws"}
            libs = {tag: ds.build_in(tree, arch, Path(tmp) / f"{tag}_{arch}", keep) for tag, tree in
                    (("before", before), ("after", ROOT))}
            for n in keep:
                for tag in ("before", "after"):
                    lib = libs[tag][n]
                    if lib is None:
                        print(f"{arch} {n} {tag}: build FAILED")
                        continue
                    log = Path(lib + ".log").read_text()
                    gmem = sorted({int(g) for g in re.findall(r"(\d+) bytes gmem", log)})
                    recs = sorted((r for r in parse_ptxas(log) if r.entry), key=lambda r: kind(r.function))
                    figs = "; ".join(f"{kind(r.function)} {r.registers} registers, stack {r.stack_frame} B, spill "
                                     f"{r.spill_stores}/{r.spill_loads} B" for r in recs)
                    print(f"{arch} {n} {tag}: gmem {'/'.join(map(str, gmem))} B; {figs}")


def kind(function: str) -> str:
    if "combine" in function:
        return "combine"
    return "causal" if re.search(r"Li[0-9]+ELb1E", function) else "non-causal"

if __name__ == "__main__":
    main()
