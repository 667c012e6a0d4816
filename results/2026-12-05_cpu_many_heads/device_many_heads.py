"""More than 65,535 heads (B x H) on a launch-order grid, on a GPU: each kernel, built from this tree and (--before)
from the source before the launch split such a grid into launches of whole batches, through the tier's check at
B1040 H64 N64 (66,560 heads, past gridDim.y's 65,535), MHA and GQA (H64/8), causal and not, and at B1 H2 N333 (one
launch: the path every other call takes).

    python3 results/2026-12-05_cpu_many_heads/device_many_heads.py OUT_DIR [--before TREE]

Predicted (written before any run): before, every launch-order kernel fails at 66,560 heads ("invalid configuration
argument") and the persistent one passes (its grid is 1-D); after, all pass.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(HERE.parent / "2026-12-05_cpu_streams")]

from device_streams import build_in  # noqa: E402
from device_suite import KERNELS  # noqa: E402

MMA = dict(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", kv_stages=2)
CONFIGS = {
    "mma_launch": MMA,  # the general mainloop, one CTA per item in launch order
    "mma_split4": {**MMA, "split_kv": 4},  # and its key splits (gridDim.z 4, a workspace and a combine pass)
    "mma_persistent": {**MMA, "persistent": "on"},  # a 1-D grid: right before and after
    "ws_op_lazy_w_oq_pk": KERNELS["ws_op_lazy_w_oq_pk"],  # the suite's kernel at N8192 D128 (launch order, TMA maps)
    "ws3_lazy_oq": {**KERNELS["ws3_lazy"], "o_store": "tma_in_q"},  # three consumer warpgroups at D64
}
DIM = {n: 128 if n.startswith("ws_op") else 64 for n in CONFIGS}  # the head dim each is built and checked at
SHAPES = [dict(B=1040, H=64, N=64), dict(B=1040, H=64, N=64, Hkv=8), dict(B=1, H=2, N=333)]


def main() -> int:
    from experiments.device import probe
    from experiments.lab import Lab
    from experiments.problem import Shape

    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--before", type=Path)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {dev.name} {dev.arch}; {' '.join(sys.argv)}", flush=True)
    trees = {"after": ROOT, **({"before": a.before.resolve()} if a.before else {})}
    libs = {tag: {**build_in(tree, dev.arch, Path(f"/tmp/many_heads_{tag}"), {n: c for n, c in CONFIGS.items() if DIM[n] == 64}, (64,)),
                  **build_in(tree, dev.arch, Path(f"/tmp/many_heads_{tag}"), {n: c for n, c in CONFIGS.items() if DIM[n] == 128}, (128,))}
            for tag, tree in trees.items()}
    lab = Lab(Shape(B=1, H=2, N=333, D=64), dev.limits, Path("/tmp/facache"))
    out = {}
    for tag in trees:
        for n, lib in libs[tag].items():
            if lib is None:
                out[f"{tag}:{n}"] = "build failed"
                print(f"{tag} {n}: build failed", flush=True)
                continue
            shapes = [Shape(**s, D=DIM[n], causal=c) for s in SHAPES for c in (False, True)]
            job = lab.run_job([{"do": "check", "tag": s.key(), "lib": lib, "shapes": [s.model_dump()]} for s in shapes], 600)
            for s in shapes:
                st = job.step(s.key())
                r = st.result if st else None
                verdict = ("right" if r["ok"] else "WRONG " + (r["checks"][0]["reason"] if r["checks"] else "")) if r else \
                    (st.error if st and st.error else job.status)
                out[f"{tag}:{n}:{s.key()}"] = r or verdict
                print(f"{tag} {n} {s.key()}: {str(verdict)[:300]}", flush=True)
    (a.out / "many_heads.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
