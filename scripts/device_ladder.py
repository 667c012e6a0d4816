"""The correctness proof on a GPU: every configuration of the pairwise covering set on
fp16/bf16 x D64/128 x causal/non-causal x N in {1, 97, 333, 1000} x MHA/GQA/MQA, the tier's
bound for each; and every lever that promises identical output compared bitwise against the same
configuration with those levers off. Usage: python3 scripts/device_ladder.py OUT_DIR [--hopper] [--only SUBSTR]... [--copies unrolled] [--move KNOB=VALUE]...
(--hopper: the Hopper arm's set, kernel_src.covering.hopper_set, into hopper_correctness.json; --only, repeatable:
only the configurations whose label contains one of the SUBSTRs, with their pairs, e.g. --only kv_release=;
--copies unrolled: the set with copies=unrolled, each paired bitwise with its copies=loop build; --move, repeatable:
the set with that knob moved wherever it is valid, the configurations where it is not left out, e.g. --move exp_poly=half)"""

import json
import sys
import time
from collections import Counter
from pathlib import Path

from experiments.build import BuildSpec, build
from experiments.device import probe
from experiments.lab import Lab
from experiments.problem import Shape
from kernel_src.covering import covering_set, hopper_set
from kernel_src.knobs import KnobError, Knobs

BITWISE = {"kv_stages": 1, "q_in": "regs", "rescale_skip": "off", "causal_mask": "runtime", "cta_order": "launch",
           "store": "default", "v_load": "ldmatrix_trans", "persistent": "off", "kv_overlap": "off", "epilogue": "direct",
           "pipeline": "off", "kv_release": "barrier", "pingpong": "off", "copies": "loop",
           "pv_slab": "off"}

out = Path(sys.argv[1])
HOPPER = "--hopper" in sys.argv
ONLY = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--only"]
COPIES = next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--copies"), "loop")
MOVES = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--move"]
if COPIES != "loop":
    MOVES.append(f"copies={COPIES}")
bad = [m for m in MOVES if "=" not in m or m.split("=", 1)[0] not in Knobs.model_fields]
if bad:
    sys.exit(f"--move takes KNOB=VALUE with a knob of kernel_src.knobs.Knobs, not {', '.join(bad)}")
cs = hopper_set() if HOPPER else covering_set()
if MOVES:
    moved = []
    for k in cs:
        try:
            moved.append(k.replace(**dict(m.split("=", 1) for m in MOVES)))
        except KnobError as e:
            why = str(e)
    print(f"--move {' '.join(MOVES)}: {len(moved)} of {len(cs)} configurations", flush=True)
    if not moved:
        sys.exit(f"--move {' '.join(MOVES)} is valid in no configuration of the set: {why}")
    cs = moved
if ONLY:
    cs = [k for k in cs if any(o in k.label() for o in ONLY)]
    print(f"--only {' '.join(ONLY)}: {len(cs)} configurations", flush=True)
    if not cs:
        sys.exit(f"--only {' '.join(ONLY)} matches no configuration label of the {'Hopper' if HOPPER else 'covering'} set")
out.mkdir(parents=True, exist_ok=True)
dev = probe()
lab = Lab(Shape(B=2, H=16, N=2048, D=128), dev.limits, Path("/tmp/facache"), budget_s=1.0)
every = dict(dtypes=("float16", "bfloat16"), dims=(64, 128), causals=(False, True))
# rescale_lazy (not bitwise) needs the rescale vote: a lazy configuration keeps its rescale_skip;
# the wgmma arm reads Q by descriptor and has one V path and one epilogue: those stay (its pipeline,
# pairs with pipeline off like the mma.sync one)
KEEP_WGMMA = ("q_in", "v_load", "epilogue")
# TMA staging moves the same bytes to the same places as cp.async: its partner is the cp.async build
partners = {k.key(): k.replace(**{n: v for n, v in BITWISE.items()
                                  if not (n == "rescale_skip" and k.rescale_lazy.value == "on")
                                  and not (k.compute.value == "wgmma" and n in KEEP_WGMMA)},
                               **({"staging": "cp_async"} if k.staging.value == "tma" else {})) for k in cs}
# pingpong's own pair: the same warp-specialised kernel without the turns (its partner above is the cp.async
# build with every bitwise knob off, which also pairs the producer's empty-barrier wait)
turns_off = {k.key(): k.replace(pingpong="off") for k in cs if k.pingpong.value == "on"}
knobs = {k.key(): k for k in cs} | {p.key(): p for p in partners.values()} | {p.key(): p for p in turns_off.values()}
specs = {key: BuildSpec(knobs=k, arch=dev.arch, **every) for key, k in knobs.items()}
t0 = time.time()
built = build(list(specs.values()), lab.cache_dir / "build")
print(f"built {len(specs)} libraries in {time.time() - t0:.0f} s; failed: "
      f"{[knobs[k].label() for k, s in specs.items() if not built[s.key()].ok]}", flush=True)
libs = {key: built[s.key()].library for key, s in specs.items() if built[s.key()].ok}
pairs = [[k.key(), partners[k.key()].key()] for k in cs if partners[k.key()].key() != k.key()]
pairs += [[key, off.key()] for key, off in turns_off.items()]
configs = [Shape(B=b, H=h, Hkv=kv, N=n, D=d, dtype=dt, causal=c)
           for dt in ("float16", "bfloat16") for d in (64, 128) for c in (False, True) for n in (1, 97, 333, 1000)
           for b, h, kv in ((2, 4, None), (1, 4, 2), (1, 3, 1))]
t0 = time.time()
job = lab.run_job([{"do": "envelope", "tag": "envelope", "seed": 7, "libs": libs, "bitwise_pairs": pairs,
                    "configs": [c.model_dump() for c in configs]}], timeout=400)
res = job.value("envelope")
if res is None:
    step = job.step("envelope").model_dump() if job.step("envelope") else {}
    print("envelope job failed", job.status, step.get("error"), step.get("traceback"), job.stderr[-3000:])
    sys.exit(1)
rows = res["rows"]
print(f"{len(configs)} configurations x {len(libs)} libraries + {len(pairs)} bitwise pairs in {time.time() - t0:.0f} s")
fails = Counter((r["kernel"], r["reason"]) for r in rows if r["reason"])
label = lambda key: " == ".join(knobs[x].label() for x in key.split("==")) if "==" in key else knobs[key].label()
worst = max((r["ratio"] for r in rows if "==" not in r["kernel"]), default=0)
summary = {"device": dev.model_dump(mode="json"), "configs": [c.key() for c in configs],
           "libraries": {k: knobs[k].label() for k in libs}, "pairs": [[label(a), label(b)] for a, b in pairs],
           "failures": [{"kernel": label(k), "reason": why, "count": n} for (k, why), n in fails.items()],
           "worst_fraction_of_bound": worst, "rows": rows}
(out / ("hopper_correctness.json" if HOPPER else "covering_correctness.json")).write_text(json.dumps(summary, indent=1))
print(f"worst correct fraction of the bound: {worst:.4f}")
print(f"failures: {len(fails)}")
for (k, why), n in sorted(fails.items()):
    print(f"  {why:12s} {n:4d}/{len(configs)}  {label(k)}")
