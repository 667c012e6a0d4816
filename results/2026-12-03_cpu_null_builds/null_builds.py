#!/usr/bin/env python3
"""Where a keep's between-process spread comes from (not yet run on a GPU). Replayed, the recorded runs show a
keep's first pair and its replicate in another process differing by a median 0.17%, while the A/A nulls that
set t_keep read 0.04% (../2026-12-03_h200_agent_suite/reanchor_noise.txt). An A/A null pairs one library's kernel
with itself. Each fresh process here times, pipelined, with the 0.3 ms lead:
  A/A   the kernel against itself (the null as the tool measures it);
  A/A'  the kernel against the same kernel from another library (the same knobs built with another set of mask
        instantiations: the same machine code in another module);
  A/B   the kernel against a different kernel of a small margin.
If A/A' spreads across processes as A/B does, the extra spread is the module's and a null of two builds measures
it; if as A/A, it belongs to the pair of kernels, and only a replicate of that very pair shows it.

    python3 null_builds.py OUT --shape 'B2 H16 N2048 D128 fp16' --a ws_op_lazy_qp_w_ot_pr_pk \\
        --b ws_op_lazy_qp_w_ot_pr_pk_q2 [--repeats 6] [--budget 1]
"""
from __future__ import annotations

import argparse
import json
import statistics
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
    ap.add_argument("--shape", required=True)
    ap.add_argument("--a", required=True, help="a kernel of scripts/device_suite.py")
    ap.add_argument("--b", required=True, help="another kernel, a small margin from --a")
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--budget", type=float, default=1.0)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    dev, sh = probe(), shape(a.shape)
    spec = lambda name, causals: BuildSpec(knobs=Knobs.parse(KERNELS[name]), arch=dev.arch, dtypes=(sh.dtype,),
                                           dims=(sh.D,), causals=causals)
    own = (sh.causal,)
    specs = {"A": spec(a.a, own), "A'": spec(a.a, (False, True)), "B": spec(a.b, own)}
    assert specs["A"].key() != specs["A'"].key()
    lab = Lab(sh, dev.limits, Path("/tmp/facache"), budget_s=a.budget)
    t0 = time.time()
    built = build(list(specs.values()), lab.cache_dir / "build")
    lib = {k: built[s.key()].library for k, s in specs.items()}
    print(f"# {dev.name} {dev.arch}; built {sum(v is not None for v in lib.values())} of 3 in {time.time() - t0:.0f} s; "
          f"{' '.join(sys.argv[1:])}", flush=True)
    pairs = [("A", "A"), ("A", "A'"), ("A", "B")]
    rows = []
    for i in range(a.repeats):
        order = pairs[i % 3:] + pairs[:i % 3]  # which pair a process times first, rotated
        steps = [{"do": "paired", "tag": "warmup", "base": {"lib": lib["A"]}, "cand": {"lib": lib["A"]},
                  "shape": sh.model_dump(), "budget_s": 0.5}]
        steps += [{"do": "paired", "tag": f"{x}/{y}", "base": {"lib": lib[x]}, "cand": {"lib": lib[y]},
                   "shape": sh.model_dump(), "budget_s": a.budget} for x, y in order]
        job = lab.run_job(steps, timeout=120 + 3 * len(steps) * (a.budget + 1))
        for st in job.steps:
            r = st.model_dump().get("result") or {}
            if st.tag == "warmup" or not r:
                continue
            row = {"process": i, "pair": st.tag, **{k: r.get(k) for k in ("margin", "margin_ab", "margin_ba",
                                                                          "alternations", "ms_base", "ms_cand")}}
            rows.append(row)
            print(f"process {i} {st.tag}: {row['margin']:.5f} (AB {row['margin_ab']:.5f} / BA {row['margin_ba']:.5f})",
                  flush=True)
        if job.status != "ok":
            print(f"process {i}: {job.status}: {job.stderr[-800:]}", flush=True)
    for p in ("A/A", "A/A'", "A/B"):
        ms = [r["margin"] for r in rows if r["pair"] == p]
        if len(ms) > 1:
            print(f"{p}: mean {statistics.mean(ms):.5f}, between-process sd {statistics.stdev(ms) * 100:.4f}%, "
                  f"range {min(ms):.5f}-{max(ms):.5f} over {len(ms)} processes")
    (a.out / "null_builds.json").write_text(json.dumps({"gpu": dev.name, "argv": sys.argv[1:], "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
