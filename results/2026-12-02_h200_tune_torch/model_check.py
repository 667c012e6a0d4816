#!/usr/bin/env python3
"""The exported PyTorch package in a real client: a Hugging Face Llama built from a config (random
weights, no download) whose attention runs through fa5090_kernels, registered with transformers'
AttentionInterface, against the same weights on SDPA.

Per sequence length N (batch 1, a causal prefill without a KV cache):
- logits, by the tier's two-reference rule (experiments.tier) at the model's output: the oracle is the
  same model with its attention computed in fp32 (experiments.tier.reference); the floor is the model
  on SDPA's default backend. Ours passes iff max|ours - oracle| <= 2 x max|floor - oracle| + 1e-4 and
  every logit is finite. cuDNN's error is printed beside it.
- prefill time, paired in this one process by the tool's own timer (experiments.timing.paired, AB/BA
  halves): ours against SDPA's default backend, against SDPA cuDNN, and against itself (the A/A null of
  this model). Prefill as `generate` runs it: logits of the last position only.
- which attention kernels each arm ran (torch.profiler's CUDA kernel names of one forward).
- the op's layout cost: torch.ops.fa5090.attention on the model's own strided q, k, v (read in place by a
  kernel that takes strides, copied to [B, H, N, D] by the op otherwise) against the same tensors made
  contiguous beforehand, paired.
Then torch.compile(fullgraph=True) of a function calling torch.ops.fa5090.attention, against eager.

    python3 results/2026-12-02_h200_tune_torch/model_check.py --config CONFIG.json --seqlen 2048 --seqlen 8192 --out DIR

needs fa5090_kernels (pip install the folder `export --torch` wrote) and transformers; on a machine
without a GPU (--device cpu) every call falls back to SDPA and nothing is timed: the wiring alone.
Writes DIR/model_check.json.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # experiments.tier and experiments.timing

from experiments.tier import TOL_ABS, TOL_FACTOR, reference  # noqa: E402
from experiments.timing import paired  # noqa: E402

ORACLE = "fa5090_oracle"
ATTENTION_KERNELS = ("flash", "fmha", "cudnn", "attention", "fa_fwd", "sdpa", "efficient", "cutlass")


def oracle_attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs):
    """Attention in fp32 from the model's own (bf16/fp16) q, k, v: the tier's oracle, inside the model."""
    assert attention_mask is None or query.shape[2] == 1, "the oracle serves an unpadded prefill"
    causal = bool(query.shape[2] > 1 and (is_causal if is_causal is not None else getattr(module, "is_causal", True)))
    if scaling is not None and abs(scaling - 1 / math.sqrt(query.shape[-1])) > 1e-6:
        raise ValueError(f"the oracle takes the 1/sqrt(D) scale, not {scaling}")
    o, _ = reference(query, key[:, :, :query.shape[2]], value[:, :, :query.shape[2]], causal)
    return o.to(query.dtype).transpose(1, 2).contiguous(), None


def build_models(config: Path, device: str, dtype: torch.dtype, name: str):
    """ref (SDPA), ours (the package's attention), oracle (fp32 attention): one set of weights."""
    import transformers
    from transformers import AttentionInterface

    AttentionInterface.register(ORACLE, oracle_attention)
    cfg = transformers.LlamaConfig.from_json_file(str(config))
    torch.manual_seed(0)
    with torch.device(device):
        ref = transformers.LlamaForCausalLM(cfg).to(dtype).eval()
    ref.set_attn_implementation("sdpa")
    models = {"sdpa": ref}
    for impl in (name, ORACLE):
        m = copy.deepcopy(ref)
        m.set_attn_implementation(impl)
        models[impl] = m
    return cfg, models


def attention_kernels(fn) -> list[str]:
    """The CUDA kernels of one call of fn whose names say attention (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = {e.key for e in prof.key_averages()}
    return sorted(n[:120] for n in names if any(w in n.lower() for w in ATTENTION_KERNELS))


def default_backend(q, k, v) -> str:
    """The backend SDPA picks for the model's call (torch._fused_sdp_choice), by name."""
    from torch.nn.attention import SDPBackend

    try:
        i = torch._fused_sdp_choice(q, k, v, None, 0.0, True, None, True)
    except Exception as e:  # noqa: BLE001 - a private API: say so, the profiler's kernel names still tell
        return f"unknown ({type(e).__name__}: {e})"
    by_value = {int(b.value) if hasattr(b, "value") else int(b): b.name for b in SDPBackend.__members__.values()}
    return by_value.get(int(i), str(i))


def pair(base, cand, budget_s: float) -> dict:
    r = paired(base, cand, budget_s=budget_s)
    return {"margin": r.margin, "margin_ab": r.margin_ab, "margin_ba": r.margin_ba, "margin_lo": r.margin_lo,
            "margin_hi": r.margin_hi, "alternations": r.alternations, "ms_base": r.ms_base, "ms_cand": r.ms_cand}


def check_n(models: dict, name: str, vocab: int, n: int, device: str, budget_s: float, timed: bool) -> dict:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import fa5090_kernels

    ids = torch.randint(0, vocab, (1, n), generator=torch.Generator().manual_seed(n)).to(device)
    ref, ours, oracle = models["sdpa"], models[name], models[ORACLE]
    row: dict = {"N": n}
    seen = []  # the first attention call's q, k, v, as the model hands them to the package
    plain = fa5090_kernels.hf_attention

    def probe(module, query, key, value, *a, **kw):
        if not seen:
            seen.append((query, key, value))
        return plain(module, query, key, value, *a, **kw)

    from transformers import AttentionInterface

    AttentionInterface.register(name, probe)
    with torch.inference_mode():
        want = oracle(ids, use_cache=False).logits.float()
        got = ours(ids, use_cache=False).logits.float()
        floor = ref(ids, use_cache=False).logits.float()
        err = {"ours": (got - want).abs().max().item(), "sdpa_default": (floor - want).abs().max().item()}
        try:
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                err["sdpa_cudnn"] = (ref(ids, use_cache=False).logits.float() - want).abs().max().item()
        except RuntimeError as e:
            err["sdpa_cudnn"], row["cudnn_refused"] = None, str(e).splitlines()[0][:300]
        del want, got, floor
    bound = TOL_FACTOR * err["sdpa_default"] + TOL_ABS
    row.update(logits_max_abs=err, bound=bound, finite=True, passes=err["ours"] <= bound)
    q, k, v = seen[0]
    row["layout"] = {"q": list(q.shape), "q_stride": list(q.stride()), "k": list(k.shape), "k_stride": list(k.stride()),
                     "contiguous": [x.is_contiguous() for x in (q, k, v)]}
    why = fa5090_kernels.why_not(q, k, v, causal=True)
    row["served_by"] = "fa5090" if why is None else f"SDPA fallback: {why}"
    if not timed:
        return row
    row["sdpa_default_backend"] = default_backend(q, k, v)

    def prefill(model, backend=None):
        def run():
            with torch.inference_mode():
                if backend is None:
                    model(ids, use_cache=False, logits_to_keep=1)
                else:
                    with sdpa_kernel([backend]):
                        model(ids, use_cache=False, logits_to_keep=1)
        return run

    row["kernels"] = {"ours": attention_kernels(prefill(ours)), "sdpa_default": attention_kernels(prefill(ref))}
    arms = {"sdpa_default": prefill(ref), "ours_again": prefill(ours)}
    if err["sdpa_cudnn"] is not None:
        arms["sdpa_cudnn"] = prefill(ref, SDPBackend.CUDNN_ATTENTION)
        row["kernels"]["sdpa_cudnn"] = attention_kernels(arms["sdpa_cudnn"])
    # margin > 1: ours is faster than the base arm; ours_again is the A/A null of this model at this N
    row["prefill"] = {arm: pair(base, prefill(ours), budget_s) for arm, base in arms.items()}
    with torch.inference_mode():
        qc, kc, vc = (x.contiguous() for x in (q, k, v))
    scale = 1 / math.sqrt(q.shape[-1])
    op = torch.ops.fa5090.attention
    def op_on(*qkv):
        def run():
            with torch.inference_mode():
                op(*qkv, True, scale)
        return run

    row["op_layout"] = pair(op_on(qc, kc, vc), op_on(q, k, v), budget_s)
    row["op_layout"]["note"] = ("base: contiguous inputs; candidate: the model's strided q, k, v (read in place by the "
                                "kernels that take strides, copied by the op for the others)")
    return row


def compile_check(device: str, dtype: torch.dtype) -> dict:
    """torch.compile(fullgraph=True) of a function calling the package's attention (torch.ops.fa5090.attention on a
    covered call, SDPA on CPU): no graph break, and the output eager gives."""
    import fa5090_kernels

    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(1, 32 if i == 0 else 8, 2048, 128, generator=g).to(device, dtype) for i in range(3))
    scale = 1 / math.sqrt(128)

    def f(q, k, v):
        return fa5090_kernels.attention(q, k, v, causal=True, scale=scale, fallback="silent") * 2.0 + 1.0

    t0 = time.perf_counter()
    explained = torch._dynamo.explain(f)(q, k, v)
    compiled = torch.compile(f, fullgraph=True)
    out = compiled(q, k, v)
    if device != "cpu":
        torch.cuda.synchronize()
    return {"graph_breaks": explained.graph_break_count, "graphs": explained.graph_count,
            "served_by": "fa5090" if fa5090_kernels.why_not(q, k, v, causal=True) is None else "SDPA fallback",
            "max_abs_vs_eager": (out.float() - f(q, k, v).float()).abs().max().item(),
            "seconds": time.perf_counter() - t0, "device": device}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--seqlen", type=int, action="append", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16"))
    ap.add_argument("--budget", type=float, default=2.0, help="seconds per paired measurement")
    ap.add_argument("--no-compile", action="store_true", help="leave out the torch.compile check")
    a = ap.parse_args(argv)
    import fa5090_kernels

    dtype = getattr(torch, a.dtype)
    timed = a.device != "cpu"
    name = fa5090_kernels.register_with_transformers("fa5090")
    cfg, models = build_models(a.config, a.device, dtype, name)
    out = {"config": str(a.config), "device": torch.cuda.get_device_name() if timed else "cpu",
           "torch": torch.__version__, "package": fa5090_kernels.__file__, "table_gpu": fa5090_kernels.TABLE["gpu"],
           "rows": []}
    import transformers

    out["transformers"] = transformers.__version__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in a.seqlen:
            t0 = time.perf_counter()
            row = check_n(models, name, cfg.vocab_size, n, a.device, a.budget, timed)
            row["seconds"] = time.perf_counter() - t0
            out["rows"].append(row)
            print(json.dumps(row), flush=True)
        out["compile"] = None if a.no_compile else compile_check(a.device, dtype)
    out["warnings"] = sorted({str(w.message)[:300] for w in caught})
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "model_check.json").write_text(json.dumps(out, indent=1))
    print(summary(out))
    return 0 if all(r["passes"] for r in out["rows"]) and (out["compile"] or {}).get("graph_breaks", 0) == 0 else 1


def summary(out: dict) -> str:
    lines = [f"{out['device']}, torch {out['torch']}, transformers {out['transformers']}"]
    for r in out["rows"]:
        e = r["logits_max_abs"]
        lines.append(f"N={r['N']}: {r['served_by']}; logits max|err| ours {e['ours']:.4g}, SDPA default "
                     f"{e['sdpa_default']:.4g}, cuDNN {e['sdpa_cudnn'] if e['sdpa_cudnn'] is None else format(e['sdpa_cudnn'], '.4g')}"
                     f" (bound {r['bound']:.4g}): {'pass' if r['passes'] else 'FAIL'}")
        for arm, p in (r.get("prefill") or {}).items():
            lines.append(f"  prefill ours vs {arm}: {p['margin']:.4f} (AB {p['margin_ab']:.4f} / BA {p['margin_ba']:.4f}, "
                         f"{p['alternations']} alternations; {p['ms_base']:.3f} ms vs ours {p['ms_cand']:.3f} ms)")
        if "op_layout" in r:
            p = r["op_layout"]
            lines.append(f"  the op on the model's strided q/k/v vs contiguous: {p['margin']:.4f} "
                         f"({p['ms_base']:.3f} ms contiguous, {p['ms_cand']:.3f} ms strided)")
    c = out["compile"]
    if c is None:
        return "\n".join(lines)
    lines.append(f"torch.compile(fullgraph=True) on {c['device']}: {c['graph_breaks']} graph breaks, {c['graphs']} graph(s), "
                 f"max|compiled - eager| {c['max_abs_vs_eager']:.3g}, {c['seconds']:.1f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
