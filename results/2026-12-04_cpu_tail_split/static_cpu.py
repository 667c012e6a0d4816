"""ptxas's figures of the kernels with the tail tile split inside the CTA (tail_rows=split, `_tsp_`) beside the same kernels
with the idle tail warpgroup (tail_rows=skip, `_ts_`), on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers,
stack and spills of each build (non-causal and causal), the shared memory a CTA asks for, and in the SASS the named
barrier instructions (BAR) the split adds.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_tail_split/static_cpu.py > results/2026-12-04_cpu_tail_split/static_cpu.txt"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, TSP, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402


def main() -> None:
    names = [m for n in TSP for m in (n, n.replace("_ts_", "_tsp_"))] + ["ws_o_lazy_qp_ot_pr_tsp"]
    dims = lambda n: (64,) if d64_only(n) else (64, 128)
    specs = {(n, d): BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",), dims=(d,),
                               causals=(False, True), host=False) for n in names for d in dims(n)}
    with tempfile.TemporaryDirectory() as tmp:
        res = build(list(specs.values()), Path(tmp), jobs=2)
        for (n, d), sp in specs.items():
            r = res[sp.key()]
            k = Knobs.parse(KERNELS[n])
            print(f"{n} D{d}: {'built' if r.ok else 'FAILED'}{'; C7520' if 'C7520' in r.log else ''}; "
                  f"{k.smem_bytes(d)} B shared memory a CTA")
            if not r.ok:
                print(r.log[-2000:])
                continue
            causal = lambda rec: bool(re.search(r"Li\d+ELb1E", rec.function))  # the CAUSAL template argument
            for rec in sorted((x for x in parse_ptxas(r.log) if x.entry), key=causal):
                print(f"  {'causal' if causal(rec) else 'non-causal'}: {rec.registers} registers, stack "
                      f"{rec.stack_frame} B, spill stores {rec.spill_stores} B, loads {rec.spill_loads} B")
            sass = dump_sass(str(Path(tmp) / sp.key() / "fa.cubin")).splitlines()
            print(f"  SASS (both builds): {len(sass)} lines; BAR.SYNC {sum('BAR.SYNC' in ln for ln in sass)}, "
                  f"BAR.ARV {sum('BAR.ARV' in ln for ln in sass)}, HGMMA {sum('HGMMA' in ln for ln in sass)}, "
                  f"MUFU.EX2 {sum('MUFU.EX2' in ln for ln in sass)}")


if __name__ == "__main__":
    main()
