"""The SASS of the agent's N512 D64 final (ws3_lazy_qp_hf_ot_pm_ts_s3, sm_90a, fp16, D=64, non-causal) beside its
`_rf` (a branch) and `_rp` (predicated) builds, on this CPU machine: instructions by opcode where they differ, and the
lines around each VOTE.ANY of `_rp`. Usage: PYTHONPATH=. python3 results/2026-12-04_h200_rescale_factor/sass_vote.py"""
import collections
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402

BASE = "ws3_lazy_qp_hf_ot_pm_ts_s3"
INSTR = re.compile(r"^\s+/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)[^;]*;")


def main() -> None:
    names = [BASE, f"{BASE}_rf", f"{BASE}_rp"]
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(64,),
                          causals=(False,), host=False) for n in names}
    with tempfile.TemporaryDirectory() as d:
        res = build(list(specs.values()), Path(d), jobs=2)
        sass = {n: dump_sass(str(Path(d) / sp.key() / "fa.cubin")).splitlines() for n, sp in specs.items()
                if res[sp.key()].ok}
    ops = {n: collections.Counter(m.group(3) for ln in lines if (m := INSTR.match(ln))) for n, lines in sass.items()}
    print("instructions:", ", ".join(f"{n} {sum(c.values())}" for n, c in ops.items()))
    print(f"{'opcode':10}" + "".join(f"{n[len(BASE):] or 'base':>8}" for n in names))
    for op in sorted(set().union(*ops.values())):
        row = [ops[n][op] for n in names]
        if len(set(row)) > 1:
            print(f"{op:10}" + "".join(f"{v:>8}" for v in row))
    lines = [ln for ln in sass[f"{BASE}_rp"] if INSTR.match(ln)]
    for i, ln in enumerate(lines):
        if "VOTE.ANY" in ln:
            print(f"\n_rp, VOTE.ANY at instruction {i} of {len(lines)}:")
            for near in lines[max(0, i - 6): i + 12]:
                print("  " + re.sub(r"\s*/\* 0x[0-9a-f]+ \*/", "", near).strip())


if __name__ == "__main__":
    main()
