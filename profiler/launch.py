"""The program ncu profiles: `python -m profiler.launch LIB.so SHAPE_JSON [LAUNCHES]`.

It launches the candidate on fresh random inputs LAUNCHES times (default 2); ncu is told to
skip the first launch (module load, attribute setting) and profile the next one.
"""

import json
import sys


def main(lib_path: str, shape_json: str, launches: int = 2) -> int:
    import torch

    from kernel_src.binding import KernelLib

    sd = json.loads(shape_json)
    B, H, N, D = sd["B"], sd["H"], sd["N"], sd["D"]
    dt = getattr(torch, sd.get("dtype", "float16"))
    g = torch.Generator().manual_seed(1234)
    Hkv = sd.get("Hkv") or H  # grouped-query attention: K/V carry Hkv heads
    q, k, v = (torch.randn(B, h, N, D, generator=g).to("cuda", dt) for h in (H, Hkv, Hkv))
    o, lse = torch.empty_like(q), torch.empty(B, H, N, device="cuda")
    lib = KernelLib(lib_path)
    for _ in range(launches):
        lib.forward(q, k, v, o, lse, bool(sd.get("causal", False)))
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    from experiments.child import die_with_parent

    die_with_parent(check_parent=False)  # its parent is ncu: a killed profile leaves no kernel running
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2))
