"""copies=loop against copies=unrolled, no GPU: each configuration built as the tool builds it (fp16, D 64 and
128, causal or not) for sm_80, sm_90 and sm_120; per build the attention kernel's registers and spill bytes (worst
of its instantiations), and for fp16 D=128 non-causal the key loop's SASS (the longest backward branch's body):
its length, HMMA, LDGSTS and the integer address instructions (IMAD, LEA, SHF, IADD3, LOP3, SEL, ISETP, BRA).
A static count of what the compiler emitted, not of what a run issues (the loop body holds both the masked and
unmasked softmax and the tail copies beside the full ones).
  PYTHONPATH=. python3 results/2026-11-30_cpu_build_checks/check_unrolled_copies.py [CACHE_DIR]"""

import re
import sys
from collections import Counter
from pathlib import Path

from experiments.build import BuildSpec, build, nvcc_version
from kernel_src.knobs import Knobs
from profiler.ptxas import parse_ptxas
from profiler.sass import dump_sass

# session 5's best mma.sync kernel (agent v2 from the naive seed, 0.902x SDPA flash at N8192), and the same on
# BC 64 (FlashAttention-2's 128 x 64 on 4 warps for D=128 on sm_90), the wgmma arm's cp.async seed
S5 = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
           q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on")
BASES = {"s5_best_t128x32w4": (S5, ("sm_80", "sm_90", "sm_120")),
         "s5_best_t128x64w4": (S5.replace(bc=64), ("sm_80", "sm_90", "sm_120")),
         "t64x64w4_ks2": (Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", kv_stages=2, q_in="smem"),
                          ("sm_80", "sm_90", "sm_120")),
         "wgmma_cp_async_t64x64w4": (Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem"),
                                     ("sm_90",))}
_INST = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)[^;]*?(?:0x([0-9a-f]+))?\s*;")
INT = ("IMAD", "LEA", "SHF", "IADD3", "LOP3", "SEL", "ISETP", "BRA")


def key_loop(sass: str, fn: str) -> Counter:
    ins, cur = [], None
    for line in sass.splitlines():
        if line.strip().startswith("Function :"):
            cur = line.split(":", 1)[1].strip()
            continue
        m = _INST.search(line)
        if m and cur == fn:
            ins.append((int(m[1], 16), m[2], int(m[3], 16) if m[3] and m[2] == "BRA" else None))
    best = max(((a - t, t, a) for a, op, t in ins if op == "BRA" and t is not None and t < a), default=None)
    if best is None:
        return Counter()
    _, lo, hi = best
    c = Counter(op for a, op, _ in ins if lo <= a <= hi)
    c["(length)"] = sum(1 for a, _, _ in ins if lo <= a <= hi)
    return c


def main() -> None:
    cache = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/unrolled_copies_cache")
    specs = {(name, arch, form): BuildSpec(knobs=k.replace(copies=form), arch=arch, dims=(64, 128))
             for name, (k, archs) in BASES.items() for arch in archs for form in ("loop", "unrolled")}
    res = build(list(specs.values()), cache)
    print(f"nvcc {nvcc_version()}; fp16, D 64 and 128, causal or not; registers and spill bytes are the worst "
          "instantiation's; the key loop is fp16 D=128 non-causal")
    cols = ("(length)", "HMMA", "HGMMA", "LDGSTS") + INT
    print(f"{'configuration':<28} {'arch':<7} {'copies':<9} {'regs':>4} {'spill':>5} " + " ".join(f"{c:>8}" for c in cols))
    for (name, arch, form), spec in specs.items():
        r = res[spec.key()]
        if not r.ok:
            print(f"{name:<28} {arch:<7} {form:<9} BUILD FAILED: {r.log[-300:]}")
            continue
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        regs = max(x.registers for x in recs)
        spill = max(x.spill_stores + x.spill_loads for x in recs)
        fn = next(x.function for x in recs if "6__half" in x.function and "Li128ELb0E" in x.function)
        loop = key_loop(dump_sass(r.library), fn)
        print(f"{name:<28} {arch:<7} {form:<9} {regs:>4} {spill:>5} " + " ".join(f"{loop.get(c, 0):>8}" for c in cols))


if __name__ == "__main__":
    main()
