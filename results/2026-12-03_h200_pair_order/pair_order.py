#!/usr/bin/env python3
"""The paired timer's residual order effect, under the synchronised pairs a run times today and under pipelined
pairs (experiments.timing.paired(pipelined=True): the next pair queued before the host waits, no idle GPU between
pairs), on the kernels a run compared when it met it.

In a `run --budget 20` at B2 H16 N2048 D128 the agent measured five levers of the warp-specialised kernel at
margins 1.0000-1.0082 whose AB and BA halves lay 1.1-1.4% apart, on either side of 1 (NULL by the halves rule);
the run's own A/A null of the kernel before had halves 1.0037-1.0044 / 0.9945-0.9961. Each --pair is timed here
under each --mode, every mode of a pair in the same process, in --repeats fresh processes (the modes' order
rotated between them).

    python3 pair_order.py OUT --kernels kernels.json --pair 'B2 H16 N2048 D128 fp16:best:best' \\
        --mode sync@0.3 --mode sync@1 --mode pipelined@0.3 [--repeats 3] [--budget 2]

kernels.json: {name: knobs dict}; a name of scripts/device_suite.py's KERNELS is taken from there.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, shape  # noqa: E402
from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--kernels", type=Path)
    ap.add_argument("--pair", action="append", required=True, help="'SHAPE:BASE:CAND' (device_suite's shape spelling)")
    ap.add_argument("--mode", action="append", required=True, help="sync@LEAD_MS or pipelined@LEAD_MS")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=2.0)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    table = dict(KERNELS)
    if a.kernels:
        table.update(json.loads(a.kernels.read_text()))
    dev = probe()
    pairs = [p.split(":") for p in a.pair]
    modes = [(m.split("@")[0], float(m.split("@")[1])) for m in a.mode]
    specs = {}
    for sp, *names in pairs:
        sh = shape(sp)
        for n in names:
            specs[(n, sh.D)] = BuildSpec(knobs=Knobs.parse(table[n]), arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,),
                                         causals=(sh.causal,))
    lab = Lab(shape(pairs[0][0]), dev.limits, Path("/tmp/facache"), budget_s=a.budget)
    t0 = time.time()
    built = build(list(specs.values()), lab.cache_dir / "build")
    libs = {k: built[s.key()].library for k, s in specs.items() if built[s.key()].ok}
    print(f"# {dev.name} {dev.arch}; built {len(libs)} of {len(specs)} in {time.time() - t0:.0f} s; {' '.join(sys.argv[1:])}",
          flush=True)
    rows = []
    for sp, base, cand in pairs:
        sh = shape(sp)
        for i in range(a.repeats):
            order = modes[i % len(modes):] + modes[:i % len(modes)]
            arm = lambda n: {"lib": libs[(n, sh.D)]}
            steps = [{"do": "paired", "tag": "warmup", "base": arm(base), "cand": arm(base), "shape": sh.model_dump(),
                      "budget_s": 0.5}]
            steps += [{"do": "paired", "tag": f"{m}@{lead:g}", "base": arm(base), "cand": arm(cand),
                       "shape": sh.model_dump(), "budget_s": a.budget, "lead_ms": lead, "pipelined": m == "pipelined"}
                      for m, lead in order]
            job = lab.run_job(steps, timeout=120 + 3 * len(steps) * (a.budget + 1))
            for st in job.steps:
                r = st.model_dump().get("result") or {}
                if st.tag == "warmup" or not r:
                    continue
                mode, lead = st.tag.split("@")
                row = {"shape": sh.key(), "base": base, "cand": cand, "process": i, "mode": mode, "lead_ms": float(lead),
                       **{k: r.get(k) for k in ("margin", "margin_ab", "margin_ba", "margin_lo", "margin_hi", "alternations",
                                                "ms_base", "ms_cand")}}
                rows.append(row)
                print(f"{sh.key()} {base}->{cand} process {i} {mode}@{lead}: {row['margin']:.4f} (AB {row['margin_ab']:.4f} / "
                      f"BA {row['margin_ba']:.4f}, gap {row['margin_ab'] - row['margin_ba']:+.4f}) {row['alternations']} alt, "
                      f"{row['ms_base'] * 1e3:.1f} / {row['ms_cand'] * 1e3:.1f} us", flush=True)
            if job.status != "ok":
                print(f"{sh.key()} process {i}: {job.status}: {job.stderr[-800:]}", flush=True)
    (a.out / "pair_order.json").write_text(json.dumps({"gpu": dev.name, "arch": dev.arch, "argv": sys.argv[1:], "rows": rows},
                                                      indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
