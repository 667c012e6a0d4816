#!/usr/bin/env python3
"""The kernels' strided entry (fa_fwd_strided) on a GPU, against their contiguous entry and against the source
before it:

1. each kernel through the tier (the tool's check step: both references, NaN poison) at its reduced shapes;
2. the same inputs in the layouts a model hands over, q/k/v as .transpose(1, 2) of [B, N, H, D] tensors (and
   slices of one fused [B, N, H + 2 Hkv, D] projection), O written as [B, N, H, D]: the output and LSE must be
   bitwise the contiguous call's; an operand the kernel does not take strided must be refused (KernelError);
3. paired timing at two problems: the new library against the one built from the source before the change (same
   knobs, contiguous inputs: the 4-D tensor maps and the strided pointers' cost), and the new library on the
   model's layout against itself on contiguous inputs.

    python3 results/2026-12-02_h200_strided_layout/strided_check.py --base-src OLD_KERNEL_SRC --out DIR [--budget 1.5]

margin > 1: the second arm named is faster.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from agent.commands.common import _cache_dir  # noqa: E402
from experiments.build import BuildSpec, build, nvcc_path  # noqa: E402
from experiments.device import probe  # noqa: E402
from experiments.lab import Lab  # noqa: E402
from experiments.job import CheckStep  # noqa: E402
from experiments.problem import Shape, c1_patterns, c1_shapes  # noqa: E402
from experiments.timing import paired  # noqa: E402
from kernel_src.binding import KernelError, KernelLib  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

_spec = importlib.util.spec_from_file_location("device_suite", ROOT / "scripts" / "device_suite.py")
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)

# (name in scripts/device_suite.KERNELS, head dims): the tuned Llama seed (Q by cp.async, O through the Q tile), O by
# direct stores, the persistent kernel with Q and O by TMA, D=64's three consumer warpgroups, the item stream (its
# direct O is not strided), the arm (Q and O by pointer: only K and V strided)
KERNELS = [("ws_op_lazy_hf_w_oq", (64, 128)), ("ws_op_lazy_w", (64, 128)), ("ws_op_lazy_qp_w_ot", (64, 128)),
           ("ws3_lazy_oq", (64,)), ("ws_op_lazy_qp_is", (64, 128)), ("arm", (64, 128))]
SHAPES = [dict(B=2, H=8, Hkv=2, N=1000), dict(B=3, H=4, Hkv=4, N=333), dict(B=1, H=6, Hkv=1, N=2048 + 37),
          dict(B=2, H=2, Hkv=2, N=1)]
TIMED = [Shape(B=2, H=16, N=2048, D=128, dtype="float16", causal=False),
         Shape(B=1, H=32, Hkv=8, N=4096, D=128, dtype="bfloat16", causal=True)]


def old_library(spec: BuildSpec, base_src: Path, out: Path) -> Path:
    """The same knobs built from the source before the change (its own -I, its own fa_fwd.cu)."""
    flags = [f"-I{base_src}" if f.startswith("-I") else f for f in spec.flags()]
    so = out / f"old_{spec.key()}.so"
    if not so.exists():
        r = subprocess.run([nvcc_path(), *flags, str(base_src / "fa_fwd.cu"), "-o", str(so)], capture_output=True,
                           text=True)
        if r.returncode:
            raise RuntimeError(r.stdout[-2000:] + r.stderr[-2000:])
    return so


def layouts(lib: KernelLib, dtype: torch.dtype, D: int, causal: bool, sh: dict, seed: int) -> dict:
    B, H, Hkv, N = sh["B"], sh["H"], sh["Hkv"], sh["N"]
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    taken = lib.strided_operands(str(dtype).removeprefix("torch."), D, causal)

    def contiguous_run(q, k, v):
        o = torch.empty(B, H, N, D, device=dev, dtype=dtype)
        lse = torch.empty(B, H, N, device=dev, dtype=torch.float32)
        lib.forward(q.contiguous(), k.contiguous(), v.contiguous(), o, lse, causal)
        return o, lse

    def strided_run(q, k, v):
        qq, kk, vv = (x if n in taken else x.contiguous() for n, x in zip("qkv", (q, k, v)))
        o = (torch.empty(B, N, H, D, device=dev, dtype=dtype).transpose(1, 2) if "o" in taken
             else torch.empty(B, H, N, D, device=dev, dtype=dtype))
        lse = torch.empty(B, H, N, device=dev, dtype=torch.float32)
        lib.forward(qq, kk, vv, o, lse, causal)
        return o, lse

    rec = {"shape": sh, "taken": sorted(taken), "cases": {}}
    qb = torch.randn(B, N, H, D, device=dev, dtype=dtype, generator=g)
    kb = torch.randn(B, N, Hkv, D, device=dev, dtype=dtype, generator=g)
    vb = torch.randn(B, N, Hkv, D, device=dev, dtype=dtype, generator=g)
    fused = torch.randn(B, N, H + 2 * Hkv, D, device=dev, dtype=dtype, generator=g)
    cases = {"bnhd": (qb.transpose(1, 2), kb.transpose(1, 2), vb.transpose(1, 2)),
             "fused_qkv": (fused[:, :, :H].transpose(1, 2), fused[:, :, H:H + Hkv].transpose(1, 2),
                           fused[:, :, H + Hkv:].transpose(1, 2))}
    for name, (q, k, v) in cases.items():
        oc, lc = contiguous_run(q, k, v)
        os_, ls = strided_run(q, k, v)
        torch.cuda.synchronize()
        rec["cases"][name] = {"o_bitwise": bool(torch.equal(oc, os_)), "lse_bitwise": bool(torch.equal(lc, ls)),
                              "finite": bool(torch.isfinite(oc).all()), "o_strides": list(os_.stride())}
    refused = {}  # an operand the kernel does not take strided, handed over strided: refused, not misread
    q, k, v = cases["bnhd"]
    for n in sorted(set("qkvo") - taken):
        ins = {"q": q.contiguous(), "k": k.contiguous(), "v": v.contiguous()}
        o = torch.empty(B, H, N, D, device=dev, dtype=dtype)
        if n == "o":
            o = torch.empty(B, N, H, D, device=dev, dtype=dtype).transpose(1, 2)
        else:
            ins[n] = {"q": q, "k": k, "v": v}[n]
        if (o if n == "o" else ins[n]).is_contiguous():
            continue  # (N = 1, or one head: the transpose is contiguous)
        try:
            lib.forward(ins["q"], ins["k"], ins["v"], o, torch.empty(B, H, N, device=dev, dtype=torch.float32), causal)
            torch.cuda.synchronize()
            refused[n] = "ran (not refused)"
        except KernelError as e:
            refused[n] = "refused: " + str(e)[:160]
    rec["refused"] = refused
    return rec


def timing(new: KernelLib, old: KernelLib, sh: Shape, budget: float) -> dict:
    dt = getattr(torch, sh.dtype)
    B, H, Hkv, N, D = sh.B, sh.H, sh.kv_heads, sh.N, sh.D
    qb = torch.randn(B, N, H, D, device="cuda", dtype=dt)
    kb = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    vb = torch.randn(B, N, Hkv, D, device="cuda", dtype=dt)
    q, k, v = qb.transpose(1, 2), kb.transpose(1, 2), vb.transpose(1, 2)
    qc, kc, vc = q.contiguous(), k.contiguous(), v.contiguous()
    oc = torch.empty(B, H, N, D, device="cuda", dtype=dt)
    os_ = torch.empty(B, N, H, D, device="cuda", dtype=dt).transpose(1, 2)
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    taken = new.strided_operands(sh.dtype, D, sh.causal)
    qs, ks, vs = (x if n in taken else x.contiguous() for n, x in zip("qkv", (q, k, v)))
    ot = os_ if "o" in taken else oc

    def run(lib, *a):
        return lambda: lib.forward(*a, lse, sh.causal)

    out = {"problem": sh.key(), "taken": sorted(taken)}
    pairs = {"warmup": (run(old, qc, kc, vc, oc), run(new, qc, kc, vc, oc)),
             "old_vs_new_contiguous": (run(old, qc, kc, vc, oc), run(new, qc, kc, vc, oc)),
             "new_aa": (run(new, qc, kc, vc, oc), run(new, qc, kc, vc, oc)),
             "contiguous_vs_model_layout": (run(new, qc, kc, vc, oc), run(new, qs, ks, vs, ot))}
    for tag, (a, b) in pairs.items():
        r = paired(a, b, budget_s=budget if tag != "warmup" else 0.5)
        out[tag] = {k: getattr(r, k) for k in ("margin", "margin_ab", "margin_ba", "margin_lo", "margin_hi",
                                               "alternations", "ms_base", "ms_cand")}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-src", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--budget", type=float, default=1.5)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    res = {"gpu": dev.name, "kernels": {}}
    specs = {}
    for name, dims in KERNELS:
        specs[name] = BuildSpec(knobs=Knobs.parse(suite.KERNELS[name]), arch=dev.arch, dtypes=("float16", "bfloat16"),
                                dims=dims, causals=(False, True))
    t0 = time.time()
    built = build(list(specs.values()), _cache_dir() / "build")
    res["build_s"] = round(time.time() - t0, 1)
    for name, dims in KERNELS:
        b = built[specs[name].key()]
        if not b.ok:
            res["kernels"][name] = {"build": b.log[-1500:]}
            continue
        rec = res["kernels"][name] = {"knobs": specs[name].knobs.label(), "layouts": []}
        lib = KernelLib(b.library)
        # the tier on the built library (both dtypes, its head dims): the reduced shapes on N(0,1), the masked-
        # dominant pattern on the reduced ones again (experiments.problem.c1_patterns), in one child process
        targets = [Shape(B=2, H=4, Hkv=2, N=1024, D=D, dtype=dt, causal=False) for D in dims for dt in ("float16", "bfloat16")]
        shapes, patterns = c1_patterns([x for t in targets for x in c1_shapes(t, specs[name].knobs)])
        lab = Lab(targets[0], dev.limits, _cache_dir(), budget_s=a.budget)
        job = lab.run_job([CheckStep(tag="check", lib=b.library, shapes=shapes, inputs=patterns)], 600)
        chk = job.value("check") if job.status == "ok" else None
        rec["tier"] = {"status": job.status, "ok": bool(chk and chk.get("ok")), "shapes": len(shapes),
                       "detail": None if chk and chk.get("ok") else (json.dumps(chk)[:600] if chk else job.stderr[-600:])}
        for D in dims:
            for dt in ("float16", "bfloat16"):
                for causal in (False, True):
                    for i, sh in enumerate(SHAPES):
                        r = layouts(lib, getattr(torch, dt), D, causal, sh, seed=i)
                        r.update(dtype=dt, D=D, causal=causal)
                        rec["layouts"].append(r)
        bad = [r for r in rec["layouts"] if not all(c["o_bitwise"] and c["lse_bitwise"] and c["finite"]
                                                     for c in r["cases"].values())]
        ran = [r for r in rec["layouts"] if any(v.startswith("ran") for v in r["refused"].values())]
        rec["summary"] = (f"taken {rec['layouts'][0]['taken']}; {len(rec['layouts']) - len(bad)} of "
                          f"{len(rec['layouts'])} configurations bitwise equal to the contiguous call; "
                          f"{len(ran)} ran an operand they should refuse; tier {rec['tier']}")
        print(name, rec["summary"], flush=True)
    res["timing"] = []
    for sh in TIMED:
        name = "ws_op_lazy_hf_w_oq"
        spec = BuildSpec(knobs=specs[name].knobs, arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,),
                         causals=(sh.causal,))
        new = build([spec], _cache_dir() / "build")[spec.key()]
        old = old_library(spec, a.base_src, a.out)
        t = timing(KernelLib(new.library), KernelLib(old), sh, a.budget)
        t["kernel"] = name
        res["timing"].append(t)
        print(json.dumps({k: (v["margin"] if isinstance(v, dict) else v) for k, v in t.items()}), flush=True)
    (a.out / "strided_check.json").write_text(json.dumps(res, indent=1))
    for p in a.out.glob("old_*.so"):
        p.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
