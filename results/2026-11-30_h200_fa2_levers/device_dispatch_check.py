"""Issue 9 item 6 on a GPU: build `export --dispatch` from committed H200 databases, load the one
library, and put its `fa_fwd` through the correctness tier (two references, NaN poison, inputs
intact, two runs bitwise equal) at both edges of every row's N bucket (capped at 4096 to keep the
oracle small), B1 H4 (and a GQA case per row). Prints one JSON line per case and a summary; writes
the table and the rows under OUT_DIR. Usage: python3 results/2026-11-30_h200_fa2_levers/device_dispatch_check.py OUT_DIR DB..."""

import ctypes
import json
import math
import subprocess
import sys
from pathlib import Path

import torch

from experiments.problem import Shape
from experiments.tier import check

out, dbs = Path(sys.argv[1]), sys.argv[2:]
out.mkdir(parents=True, exist_ok=True)
cmd = [sys.executable, "-m", "agent", "export", "--dispatch", "-o", str(out / "fa_dispatch.cu"), "--json"]
for d in dbs:
    cmd += ["--db", d]
p = subprocess.run(cmd, capture_output=True, text=True)
(out / "export.txt").write_text("$ " + " ".join(cmd) + "\n" + p.stdout + p.stderr)
if p.returncode != 0:
    print(p.stdout[-3000:], p.stderr[-3000:])
    sys.exit(1)
rows = json.loads(p.stdout[: p.stdout.rindex("]") + 1])
lib = ctypes.CDLL(str(out / "fa_dispatch.so"))
vp, i, f = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
lib.fa_fwd.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, i, i, i, f, vp]
lib.fa_fwd.restype = i
lib.fa_dispatch_pick.argtypes = [i, i, i, i]
lib.fa_dispatch_pick.restype = i
dev = torch.device("cuda")
results, failures = [], 0
for r in rows:
    for n in sorted({min(r["n_lo"], 4095), min(r["n_hi"] or 4096, 4096)}):
        for b, h, kv in ((1, 4, 4), (1, 4, 2)):
            shape = Shape(B=b, H=h, Hkv=kv if kv != h else None, N=n, D=r["head_dim"], dtype=r["dtype"], causal=r["causal"])
            code = {}

            def run(q, k, v, o, lse):
                code["rc"] = lib.fa_fwd(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), b, h,
                                        k.shape[1], n, r["head_dim"], 0 if r["dtype"] == "float16" else 1,
                                        int(r["causal"]), 1.0 / math.sqrt(r["head_dim"]),
                                        ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))

            res = check(run, shape, dev, seed=11, repeat=2)
            pick = lib.fa_dispatch_pick(0 if r["dtype"] == "float16" else 1, r["head_dim"], int(r["causal"]), n)
            line = {"bucket": r["bucket"], "dtype": r["dtype"], "D": r["head_dim"], "causal": r["causal"], "N": n,
                    "Hkv": shape.kv_heads, "row": pick, "knobs": r["knobs"], "rc": code.get("rc"),
                    "ok": res.ok and code.get("rc") == 0, "max_abs": res.max_abs, "bound": res.bound,
                    "fraction_of_bound": res.max_abs / res.bound if res.bound else None, "reason": res.reason}
            failures += not line["ok"]
            results.append(line)
            print(json.dumps(line), flush=True)
(out / "dispatch_check.json").write_text(json.dumps({"device": torch.cuda.get_device_name(), "databases": dbs,
                                                      "cases": results, "failures": failures}, indent=1))
print(f"dispatch library: {len(results)} cases, {failures} failures")
