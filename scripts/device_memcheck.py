"""One kernel of device_suite.KERNELS, called once on one shape under compute-sanitizer's memcheck (or plainly
with --plain), so that an illegal address names its instruction and thread:

    compute-sanitizer --tool memcheck python3 scripts/device_memcheck.py ws2c_ot 'B2 H4 N1000 D64 fp16'
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> int:
    import torch

    from device_suite import KERNELS, d64_only, shape
    from experiments.build import BuildSpec, build
    from experiments.device import probe
    from kernel_src.binding import KernelLib
    from kernel_src.knobs import Knobs

    if len(sys.argv) != 3 or sys.argv[1] not in KERNELS:
        print("usage: device_memcheck.py KERNEL 'SHAPE', KERNEL one of device_suite.KERNELS", file=sys.stderr)
        return 2
    name, sh = sys.argv[1], shape(sys.argv[2])
    dev = probe()
    spec = BuildSpec(knobs=Knobs(**KERNELS[name]), arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,),
                     causals=(sh.causal,))
    res = build([spec], Path("/tmp/facache/build"))[spec.key()]
    if not res.ok:
        print(res.log[-2000:])
        return 1
    assert sh.D == 64 or not d64_only(name)
    dt = getattr(torch, sh.dtype)
    q = torch.randn(sh.B, sh.H, sh.N, sh.D, device="cuda", dtype=dt)
    k, v = (torch.randn(sh.B, sh.Hkv or sh.H, sh.N, sh.D, device="cuda", dtype=dt) for _ in range(2))
    o, lse = torch.empty_like(q), torch.empty(sh.B, sh.H, sh.N, device="cuda")
    KernelLib(str(res.library)).forward(q, k, v, o, lse, sh.causal)
    torch.cuda.synchronize()
    print(f"{name} at {sh.key()}: returned, O finite {bool(torch.isfinite(o).all())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
