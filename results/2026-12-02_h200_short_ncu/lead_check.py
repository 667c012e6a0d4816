#!/usr/bin/env python3
"""Are the suite's three losses to cuDNN the GPU's or the host's? At each shape below 1.0x cuDNN
(results/2026-12-02_h200_suite_lead) and at the one it did not confirm, the suite's best kernel is paired against SDPA
cuDNN, and cuDNN against itself, with the timer's usual 0.3 ms lead and with a deep one (DEEP_MS). A deep lead keeps
the GPU busy until both blocks of the pair are queued, so neither block can wait on its host: what it reads is GPU
time alone. Leads alternate (usual, deep, usual, deep) in one process per shape.

    python3 results/2026-12-02_h200_short_ncu/lead_check.py OUT_DIR
Writes OUT_DIR/lead_check.json (every step as the worker wrote it) and prints one line per pair."""
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, d64_only, shape  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from experiments.problem import Shape, c1_shapes  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

DEEP_MS = 20.0  # 2 blocks x <= 50 calls x ~0.12 ms of SDPA cuDNN host time per call is ~12 ms
PLAN = {
    "B2 H16 N2048 D128 fp16": ["ws_op_lazy_w_oq"],
    "B8 H32 N1024 D128 bf16 causal Hkv8": ["ws_op_lazy_qp_hf_w_ot"],
    "B16 H16 N512 D64 fp16": ["ws2c_ot", "ws3_lazy_qp_ot"],
    "B8 H16 N2048 D64 fp16 Hkv4": ["ws2c_ot", "ws3_lazy_qp_ot"],
}
BUDGET = 0.8


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {dev.name} {dev.arch}; {' '.join(sys.argv)}", flush=True)
    names = sorted({n for ns in PLAN.values() for n in ns})
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch=dev.arch, dtypes=("float16", "bfloat16"),
                          dims=(64,) if d64_only(n) else (64, 128), causals=(False, True)) for n in names}
    lab = Lab(Shape(B=2, H=16, N=2048, D=128), dev.limits, Path("/tmp/facache"), budget_s=BUDGET)
    t0 = time.time()
    built = build(list(specs.values()), lab.cache_dir / "build")
    libs = {n: built[s.key()].library for n, s in specs.items() if built[s.key()].ok}
    print(f"built {len(libs)} of {len(specs)} in {time.time() - t0:.0f} s", flush=True)
    report = {"device": dev.name, "deep_ms": DEEP_MS, "budget_s": BUDGET, "shapes": {}}
    for spec, ns in PLAN.items():
        sh = shape(spec)
        ns = [n for n in ns if n in libs]
        steps = [{"do": "check", "tag": f"check:{n}", "lib": libs[n],
                  "shapes": [s.model_dump() for s in c1_shapes(sh, Knobs.parse(KERNELS[n])) + [sh]]} for n in ns]
        steps.append({"do": "paired", "tag": "warmup", "base": {"sdpa": "cudnn"}, "cand": {"lib": libs[ns[0]]},
                      "shape": sh.model_dump(), "budget_s": 1.0, "l2": "warm"})
        for rep in range(2):
            for lead in (0.3, DEEP_MS):
                for n in [*ns, "cudnn"]:
                    cand = {"sdpa": "cudnn"} if n == "cudnn" else {"lib": libs[n]}
                    steps.append({"do": "paired", "tag": f"{rep}:{lead}:{n}", "base": {"sdpa": "cudnn"}, "cand": cand,
                                  "shape": sh.model_dump(), "budget_s": BUDGET, "l2": "warm", "lead_ms": lead})
        t = time.time()
        job = lab.run_job(steps, timeout=120 + len(steps) * 6)
        rows = [st.model_dump() for st in job.steps]
        report["shapes"][spec] = {"status": job.status, "stderr": job.stderr[-1500:], "steps": rows,
                                  "wall_s": round(time.time() - t, 1)}
        print(f"{spec} [{job.status}, {time.time() - t:.0f} s]", flush=True)
        for st in rows:
            r = st.get("result")
            if st["tag"].startswith("check:"):
                print(f"  {st['tag']}: {'pass' if r and r.get('ok') else 'FAIL ' + str(st.get('error') or r)[:300]}")
            elif r:
                print(f"  {st['tag']}: x{r['margin']:.4f} (AB {r['margin_ab']:.4f} / BA {r['margin_ba']:.4f}) "
                      f"n={r['alternations']} ms cudnn {r['ms_base']:.4f} cand {r['ms_cand']:.4f} "
                      f"wall {r.get('wall_ms_base') or 0:.4f}/{r.get('wall_ms_cand') or 0:.4f}", flush=True)
            else:
                print(f"  {st['tag']}: {st.get('error') or st.get('skipped')}", flush=True)
        (out / "lead_check.json").write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
