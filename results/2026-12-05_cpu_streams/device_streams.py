"""The library on several streams at once, on a GPU: for each kernel, built from this tree and (--before) from the
source before each stream had its own work list and workspace, the worker's `streams` step (experiments.tier.
streams_check): 4 streams at once, 20 rounds, each stream's output bitwise its one-stream output, and how many
rounds had two launches running at once. Where the machine has two GPUs, each library also runs the tier's check on
the first GPU and then on the second, in one process (the attribute, occupancy and L2 are per device).

    python3 results/2026-12-05_cpu_streams/device_streams.py OUT_DIR [--before TREE] [--shape "B8 H16 N2048 D64 fp16"]

TREE: the earlier source extracted (its experiments/ and kernel_src/); its libraries are built by its own
experiments.build in a child process. Predicted (written before any run): before, the persistent mma kernel, the
split-KV kernel and the dynamic warp-specialised kernel wrong in the rounds where launches overlap; the static
warp-specialised kernel (no work list) right; after, every kernel right. On two GPUs: before, the kernels past 48 KB
of shared memory fail on the second GPU ("invalid argument": the attribute was set on the first alone); after, right.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, shape  # noqa: E402

MMA = dict(compute="mma", layout="swizzle", staging="cp_async", exp="ex2", kv_stages=2)
CONFIGS = {
    "mma_persistent": {**MMA, "persistent": "on"},  # the general mainloop's work list
    "mma_split4": {**MMA, "split_kv": 4},  # split-KV's workspace
    "ws3_dynamic": {**KERNELS["ws3_lazy_qp_hf_ot_ts_s3"], "schedule": "dynamic"},  # the dynamic schedule's work list
    "ws3_static": KERNELS["ws3_lazy_qp_hf_ot_ts_s3"],  # no state across launches: right before and after
}
BUILD = """
import json, sys
from pathlib import Path
from experiments.build import BuildSpec, build
from kernel_src.knobs import Knobs
cfgs, arch, cache, dims = json.loads(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), tuple(json.loads(sys.argv[4]))
specs = {n: BuildSpec(knobs=Knobs.parse(k), arch=arch, dtypes=("float16",), dims=dims, causals=(False, True))
         for n, k in cfgs.items()}
out = build(list(specs.values()), cache)
print(json.dumps({n: out[s.key()].library if out[s.key()].ok else None for n, s in specs.items()}))
"""


TWO = """
import json, sys, torch
from experiments.problem import Shape
from experiments.tier import check
from kernel_src.binding import KernelLib
lib, sh, out = KernelLib(sys.argv[1]), Shape.model_validate_json(sys.argv[2]), []
for dev in (0, 1):
    torch.cuda.set_device(dev)
    s = torch.cuda.current_stream().cuda_stream
    try:
        r = check(lambda q, k, v, o, l: lib.forward(q, k, v, o, l, sh.causal, s), sh, f"cuda:{dev}", 1 + dev)
        out.append({"device": dev, "ok": r.ok, "reason": r.reason})
    except Exception as e:
        out.append({"device": dev, "ok": False, "reason": f"{type(e).__name__}: {e}"})
print(json.dumps(out))
"""


def two_devices(lib: str, sh) -> list:
    """The tier's check of `lib` on GPU 0, then GPU 1, in one fresh process."""
    r = subprocess.run([sys.executable, "-c", TWO, lib, sh.model_dump_json()], capture_output=True, text=True, timeout=300)
    return json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else [{"error": r.stderr[-800:]}]


def build_in(tree: Path, arch: str, cache: Path, configs: dict = CONFIGS, dims: tuple = (64,)) -> dict:
    """The libraries of `configs` (fp16, head dims `dims`, causal and not) built by the experiments.build of `tree` (its
    own kernel_src), in a child process: name -> library path, or None where the build failed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), *os.environ.get("PYTHONPATH", "").split(os.pathsep)])}
    r = subprocess.run([sys.executable, "-c", BUILD, json.dumps(configs), arch, str(cache), json.dumps(list(dims))], cwd=tree, env=env,
                       capture_output=True, text=True, timeout=900)
    if r.returncode:
        raise SystemExit(f"build in {tree} failed: {r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    from experiments.device import probe
    from experiments.lab import Lab

    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--shape", default="B8 H16 N2048 D64 fp16")
    ap.add_argument("--streams", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {dev.name} {dev.arch}; {' '.join(sys.argv)}", flush=True)
    sh = shape(a.shape)
    trees = {"after": ROOT, **({"before": a.before.resolve()} if a.before else {})}
    libs = {}
    for tag, tree in trees.items():
        t = time.time()
        libs[tag] = build_in(tree, dev.arch, Path(f"/tmp/streams_{tag}"))
        print(f"{tag}: built {sum(v is not None for v in libs[tag].values())} of {len(CONFIGS)} in {time.time() - t:.0f} s",
              flush=True)
    lab = Lab(sh, dev.limits, Path("/tmp/facache"))
    out = {}
    for tag in trees:
        for causal in (False, True):
            s = sh.model_copy(update={"causal": causal})
            steps = [{"do": "streams", "tag": n, "lib": lib, "shape": s.model_dump(), "streams": a.streams,
                      "rounds": a.rounds} for n, lib in libs[tag].items() if lib]
            job = lab.run_job(steps, timeout=300)
            for n in libs[tag]:
                r = job.value(n)
                st = job.step(n)
                out[f"{tag}:{n}:{s.key()}"] = r or {"error": st.error if st else job.status}
                print(f"{tag} {n} {s.key()}: " + (f"{'right' if r['ok'] else 'WRONG'} in {r['rounds'] - len({w['round'] for w in r['wrong']}) if r['wrong_count'] <= 20 else '?'}"
                      f" of {r['rounds']} rounds ({r['wrong_count']} stream outputs wrong), launches overlapped in "
                      f"{r['overlapped']} rounds" if r else f"no result: {out[f'{tag}:{n}:{s.key()}']}"), flush=True)
            if job.status != "ok":
                print(f"  job {job.status}: {job.stderr[-800:]}", flush=True)
    import torch

    if torch.cuda.device_count() > 1:
        for tag in trees:
            for n, lib in libs[tag].items():
                if lib:
                    r = two_devices(lib, sh)
                    out[f"{tag}:{n}:two_devices"] = r
                    print(f"{tag} {n} on GPU 0 then GPU 1: {r}", flush=True)
    else:
        print("one GPU: the check on a second GPU in one process not run", flush=True)
    (a.out / "streams.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
