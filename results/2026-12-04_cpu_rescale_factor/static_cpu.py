"""ptxas's figures of the kernels with the rescale factors' exponentials behind a vote (rescale_factor=when_raised, `_rf`)
and predicated on it (`_rp`) beside the same kernels without it, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each
build (non-causal and causal), and in its SASS the MUFU.EX2 (all, and predicated), VOTE.ANY and BRA.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_rescale_factor/static_cpu.py > .../static_cpu.txt"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, RF, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402


def main() -> None:
    names = [m for n in RF for m in (n, f"{n}_rf", f"{n}_rp")]
    dim = lambda n: 64 if d64_only(n) else 128
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(dim(n),),
                          causals=(False, True), host=False) for n in names}
    with tempfile.TemporaryDirectory() as d:
        res = build(list(specs.values()), Path(d), jobs=2)
        for n, sp in specs.items():
            r = res[sp.key()]
            print(f"{n} D{dim(n)}: {'built' if r.ok else 'FAILED'}{'; C7520' if 'C7520' in r.log else ''}")
            ents = re.findall(r"Compiling entry function '(\S+)'.*?(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads.*?Used (\d+) registers", r.log, re.S)
            for name, stack, st, ld, regs in sorted(ents, key=lambda e: bool(re.search(r"Li\d+ELb1E", e[0]))):
                causal = "causal" if re.search(r"Li\d+ELb1E", name) else "non-causal"
                print(f"  {causal}: {regs} registers, stack {stack} B, spill stores {st} B, loads {ld} B")
            sass = dump_sass(str(Path(d) / sp.key() / "fa.cubin")).splitlines()
            mufu = [ln for ln in sass if "MUFU.EX2" in ln]
            pred = [ln for ln in mufu if re.search(r"@!?P\d", ln)]
            print(f"  SASS (both builds): MUFU.EX2 {len(mufu)}, of them predicated {len(pred)}; "
                  f"VOTE.ANY {sum('VOTE.ANY' in ln for ln in sass)}; BRA {sum(' BRA ' in ln for ln in sass)}")


if __name__ == "__main__":
    main()
