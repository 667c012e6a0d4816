"""The builds of kv_release=producer (empty-mbarrier wait) and pingpong on sm_90a, no GPU: each configuration
built as the tool builds it (experiments.build, fp16/bf16 x D64/128 x causal or not), then per configuration
fa_fwd_kernel's registers and spill stores for fp16 D=128 non-causal and the worst over the 8 instantiations,
ptxas's C75xx notes, and a SASS census of the barrier instructions (fp16 D=128 non-causal).
  PYTHONPATH=. python3 results/2026-11-30_cpu_build_checks/check_pingpong_build.py [CACHE_DIR]"""

import re
import sys
from collections import Counter
from pathlib import Path

from experiments.build import BuildSpec, build, nvcc_version
from kernel_src.knobs import Knobs
from profiler.ptxas import parse_ptxas
from profiler.sass import dump_sass

TMA = Knobs(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", br=128, warps=8, kv_stages=2)
BASES = {
    "t128x64w8_ks2_lazy": TMA.replace(rescale_skip="on", rescale_lazy="on"),
    "t128x64w8_ks2_lazy_pipeline": TMA.replace(rescale_skip="on", rescale_lazy="on", pipeline="on"),
    "t128x128w8_ks2": TMA.replace(bc=128),
    "t128x128w8_ks2_pipeline": TMA.replace(bc=128, pipeline="on"),
    "t128x32w8_ks3_persistent_split_pipeline": TMA.replace(bc=32, kv_stages=3, persistent="on", causal_mask="split",
                                                           pipeline="on"),
    "t128x64w8_ks2_split2_causal_split": TMA.replace(split_kv=2, causal_mask="split"),
}
FORMS = {"barrier": {}, "producer": {"kv_release": "producer"},
         "producer+pingpong": {"kv_release": "producer", "pingpong": "on"}}
# one line of the SASS census: barrier and mbarrier instructions with their sub-operations
_OP = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?((?:BAR|SYNCS|USETMAXREG|ATOMS|UTMALDG|HGMMA)[A-Z0-9_.]*)"
                 r"\s*([^;]*)")


def census(sass: str, fn: str) -> Counter:
    out, cur = Counter(), None
    for line in sass.splitlines():
        if line.strip().startswith("Function :"):
            cur = line.split(":", 1)[1].strip()
            continue
        m = _OP.search(line)
        if m and cur == fn:
            name = m[1]
            if name.startswith(("HGMMA", "UTMALDG")):
                name = name.split(".")[0]
            elif name.startswith("BAR."):  # the barrier id (a register: pingpong's turn barriers)
                name += " " + m[2].split(",")[0].strip()
            elif name.startswith("USETMAXREG"):  # the register count
                name += " " + m[2].split(",")[-1].strip()
            out[name] += 1
    return out


def main() -> None:
    cache = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/pingpong_build")
    every = dict(dtypes=("float16", "bfloat16"), dims=(64, 128), causals=(False, True))
    specs = {}
    for base, k in BASES.items():
        for form, ch in FORMS.items():
            specs[(base, form)] = BuildSpec(knobs=k.replace(**ch), arch="sm_90", **every)
    res = build(list(specs.values()), cache)
    print(f"# nvcc {nvcc_version()}; each configuration built by experiments.build (-O3 -gencode "
          "arch=compute_90a,code=sm_90a -Xptxas -v, fp16/bf16 x D64/128 x causal or not); 'fp16 D128' is the "
          "non-causal fp16 D=128 instantiation, 'worst of 8' the largest register count and spill over all eight; "
          "with kv_release=producer the registers ptxas reports are the count at entry (__maxnreg__ 168 at 384 "
          "threads); setmaxnreg then gives the consumers 232 (0xe8) and the producer warpgroup 40 (0x28), and a "
          "consumer path needing more would spill, which it does not. 'barriers' is ptxas's 'used N barriers'. "
          "SASS census of that fp16 D=128 entry (cuobjdump -sass): BAR.* with its barrier id (0x0 __syncthreads, "
          "0x1 the consumers' Q barrier, 0x2 and 0x3 pingpong's turns; BAR.ARV an arrival without a wait), "
          "SYNCS.* the mbarriers (PHASECHK.TRANS64.TRYWAIT a wait, ARRIVE.TRANS64.A1T0 a plain arrival: the "
          "consumers' release, ARRIVE.TRANS64 an expect_tx, EXCH.64 an init), USETMAXREG with its register count "
          "(hex), ATOMS none: no shared-memory atomic (the spinning producer's count) is left")
    for (base, form), s in specs.items():
        r = res[s.key()]
        if not r.ok:
            print(f"{base} {form}: BUILD FAILED\n{r.log[-2000:]}")
            continue
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        main_rec = next(x for x in recs if "__half" in x.function or "6__half" in x.function)
        # the fp16 D=128 non-causal instantiation: mangled ...6__halfLi128ELb0E...
        main_rec = next((x for x in recs if "6__halfLi128ELb0E" in x.function), main_rec)
        notes = sorted(set(re.findall(r"C75\d\d", r.log)))
        sass = census(dump_sass(r.library), main_rec.function)
        worst_regs = max(x.registers or 0 for x in recs)
        worst_spill = max(x.spill_stores for x in recs)
        print(f"{base} {form} ({s.knobs.label()}): fp16 D128 {main_rec.registers} registers, "
              f"{main_rec.spill_stores} B spill stores, {main_rec.barriers} barriers; worst of {len(recs)}: {worst_regs} "
              f"registers, {worst_spill} B spill stores; ptxas notes {notes}; SASS {dict(sorted(sass.items()))}")


if __name__ == "__main__":
    main()
