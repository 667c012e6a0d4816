"""The plain and the traced build of a kernel timed in alternation in one process (ABBA rounds of back-to-back calls),
and their outputs compared bit for bit. Why: scripts/device_anatomy.py --items timed each build once, the plain one
first, and at B8 H16/4 N2048 D64 read the traced build faster (280.10 against 296.95 us a call,
results/2026-12-06_h100_item_phases), where at N512 it read 4% slower. A GPU is needed:
    PYTHONPATH=$PWD:$PWD/scripts python3 results/2026-12-06_cpu_trace_timing/alternate.py 'SPEC=KERNEL'..."""
import sys
import time
from pathlib import Path


def main(pairs: list[str]) -> int:
    import torch

    from device_anatomy import _inputs
    from device_suite import KERNELS, shape
    from experiments.build import BuildSpec, build
    from kernel_src.binding import KernelLib
    from kernel_src.knobs import Knobs

    todo = [p.split("=") for p in pairs]
    specs = {(s, n, tr): BuildSpec(knobs=Knobs(**KERNELS[n]), arch="sm_90", dtypes=(shape(s).dtype,),
                                   dims=(shape(s).D,), causals=(shape(s).causal,), trace=tr)
             for s, n in todo for tr in (False, True)}
    t = time.time()
    built = build(list(specs.values()), Path("/tmp/facache/build"))
    print(f"built {len(specs)} libraries in {time.time() - t:.0f} s", flush=True)
    for s, n in todo:
        res = {tr: built[specs[s, n, tr].key()] for tr in (False, True)}
        if not all(r.ok for r in res.values()):
            print(f"{n}: build failed", flush=True)
            continue
        sh, q, k, v, o, lse = _inputs(s)
        libs = {tr: KernelLib(res[tr].library) for tr in (False, True)}
        outs = {}
        for tr, lib in libs.items():
            oo, ll = torch.empty_like(o), torch.empty_like(lse)
            lib.forward(q, k, v, oo, ll, sh.causal)
            torch.cuda.synchronize()
            outs[tr] = (oo, ll)
        same = all(torch.equal(a, b) for a, b in zip(outs[False], outs[True]))
        calls = max(20, int(0.03 / (4 * sh.B * sh.H * sh.N * sh.N * sh.D / 450e12)))  # about 30 ms a block
        us = {False: [], True: []}
        for r in range(8):
            for tr in ((False, True) if r % 2 == 0 else (True, False)):
                lib = libs[tr]
                for _ in range(10):
                    lib.forward(q, k, v, o, lse, sh.causal)
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(calls):
                    lib.forward(q, k, v, o, lse, sh.causal)
                b.record()
                torch.cuda.synchronize()
                us[tr].append(a.elapsed_time(b) / calls * 1e3)
        med = {tr: sorted(v)[len(v) // 2] for tr, v in us.items()}
        print(f"{s} {n}: plain {med[False]:.2f} us, traced {med[True]:.2f} us a call (medians of 8 blocks of {calls}, "
              f"ABBA); traced / plain time {med[True] / med[False]:.4f}; outputs bitwise equal: {same}; "
              f"plain blocks {[round(x, 1) for x in us[False]]}; traced blocks {[round(x, 1) for x in us[True]]}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
