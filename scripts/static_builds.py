"""No GPU: the compiler's figures of scripts/device_suite.py's kernels, as the CPU records print them. Each kernel is
built for sm_90a in fp16 at its head dims, causal and not (nvcc, two jobs); for each build one line with the shared
memory a CTA asks for, then the registers, stack and spill bytes of the non-causal and the causal kernel, then one line
that the caller makes from the cubin's SASS (the instructions its change adds or removes).

    from static_builds import print_static
    print_static(names, lambda sass: f"HGMMA {sum('HGMMA' in ln for ln in sass)}")

Used by the `static_cpu.py` of results/2026-12-04_cpu_tail_split, 2026-12-04_cpu_dynamic_schedule and
2026-12-04_cpu_kv_l2_hint."""
from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from device_suite import KERNELS, d64_only  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402
from profiler.sass import dump_sass  # noqa: E402


def print_static(names: Sequence[str], sass_line: Callable[[list[str]], str]) -> None:
    """Build `names` (device_suite kernels; D=64 alone for the three-warpgroup and two-CTA kernels) and print their
    figures; `sass_line(lines)` is the build's last line, from its SASS (both instantiations)."""
    dims = lambda n: (64,) if d64_only(n) else (64, 128)  # noqa: E731
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
            causal = lambda rec: bool(re.search(r"Li\d+ELb1E", rec.function))  # noqa: E731  the CAUSAL argument
            for rec in sorted((x for x in parse_ptxas(r.log) if x.entry), key=causal):
                print(f"  {'causal' if causal(rec) else 'non-causal'}: {rec.registers} registers, stack "
                      f"{rec.stack_frame} B, spill stores {rec.spill_stores} B, loads {rec.spill_loads} B")
            print("  " + sass_line(dump_sass(str(Path(tmp) / sp.key() / "fa.cubin")).splitlines()))
