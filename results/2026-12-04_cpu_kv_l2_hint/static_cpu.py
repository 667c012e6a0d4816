"""ptxas's figures of the kernels whose K/V loads carry an L2 evict-last policy (kv_l2_hint=evict_last, `_kh`) beside the
same kernels without it, on this CPU machine (nvcc, sm_90a, fp16; no GPU): registers, stack and spills of each build
(non-causal and causal), and in the SASS the TMA loads (UTMALDG) and how many of them take a cache policy operand.
Usage: PYTHONPATH=. python3 results/2026-12-04_cpu_kv_l2_hint/static_cpu.py > results/2026-12-04_cpu_kv_l2_hint/static_cpu.txt"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, KH, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402


def main() -> None:
    names = [m for n in KH for m in (n, f"{n}_kh")]
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
            tma = [ln for ln in sass if "UTMALDG" in ln]
            # a TMA load with a cache policy reads it from a uniform register: UTMALDG.4D [dst], [map], desc[URn]
            print(f"  SASS (both builds): {len(sass)} lines; UTMALDG {len(tma)}, with a cache policy (desc[URn]) "
                  f"{sum('desc[' in ln for ln in tma)}; HGMMA {sum('HGMMA' in ln for ln in sass)}")


if __name__ == "__main__":
    main()
