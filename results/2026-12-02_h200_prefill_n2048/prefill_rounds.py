#!/usr/bin/env python3
"""N 2048 prefill of the tune record's Llama, in rounds: is the exported op no slower than cuDNN there?

One process, the model of ../2026-12-02_h200_tune_torch/model_check.py (2 layers, Llama-3-8B-style, GQA 32/8,
bf16, random weights, batch 1, causal prefill without a KV cache, logits of the last position). ROUNDS rounds;
each round pairs, with the tool's own timer (experiments.timing.paired, AB/BA halves, BUDGET s each):
  ours vs SDPA cuDNN, SDPA cuDNN vs itself (the null of that comparison), ours vs SDPA's default backend,
  SDPA default vs itself, ours vs ours.
The spread of the nulls over the rounds is what a margin of ours must leave to say "faster" or "slower".
Then the attention op alone on the model's own q, k, v (ours on the strided tensors the model hands over; SDPA
cuDNN and flash on K/V repeated to 32 heads beforehand, outside the timed call), paired the same way, so the
kernel's share of the model-level figure is seen.

    python3 prefill_rounds.py --config ../2026-12-02_h200_tune_torch/llama_gqa_config.json --out DIR
needs fa5090_kernels (pip install the folder `export --torch` wrote) and transformers. Writes DIR/prefill_rounds.json
after every round."""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-12-02_h200_tune_torch"))

from model_check import build_models, pair  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seqlen", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--budget", type=float, default=4.0, help="seconds per paired measurement")
    a = ap.parse_args(argv)
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from transformers import AttentionInterface

    import fa5090_kernels

    name = fa5090_kernels.register_with_transformers("fa5090")
    cfg, models = build_models(a.config, "cuda", torch.bfloat16, name)
    ref, ours = models["sdpa"], models[name]
    ids = torch.randint(0, cfg.vocab_size, (1, a.seqlen), generator=torch.Generator().manual_seed(a.seqlen)).cuda()
    seen = []
    plain = fa5090_kernels.hf_attention

    def probe(module, query, key, value, *args, **kw):
        if not seen:
            seen.append((query, key, value))
        return plain(module, query, key, value, *args, **kw)

    AttentionInterface.register(name, probe)

    def prefill(model, backend=None):
        def run():
            with torch.inference_mode():
                if backend is None:
                    model(ids, use_cache=False, logits_to_keep=1)
                else:
                    with sdpa_kernel([backend]):
                        model(ids, use_cache=False, logits_to_keep=1)
        return run

    prefill(ours)()
    q, k, v = seen[0]
    why = fa5090_kernels.why_not(q, k, v, causal=True)
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "N": a.seqlen, "budget_s": a.budget,
           "served_by": "fa5090" if why is None else f"SDPA fallback: {why}",
           "q": list(q.shape), "k": list(k.shape), "rounds": []}
    cudnn = prefill(ref, SDPBackend.CUDNN_ATTENTION)
    arms = {"ours vs cudnn": (cudnn, prefill(ours)), "cudnn vs cudnn": (cudnn, prefill(ref, SDPBackend.CUDNN_ATTENTION)),
            "ours vs default": (prefill(ref), prefill(ours)), "default vs default": (prefill(ref), prefill(ref)),
            "ours vs ours": (prefill(ours), prefill(ours))}
    a.out.mkdir(parents=True, exist_ok=True)
    for r in range(a.rounds):
        row = {name_: pair(base, cand, a.budget) for name_, (base, cand) in arms.items()}
        out["rounds"].append(row)
        print(f"round {r + 1}: " + ", ".join(f"{k_} {p['margin']:.4f}" for k_, p in row.items()), flush=True)
        (a.out / "prefill_rounds.json").write_text(json.dumps(out, indent=1))
    out["median"] = {k_: statistics.median(rw[k_]["margin"] for rw in out["rounds"]) for k_ in arms}
    out["range"] = {k_: [min(rw[k_]["margin"] for rw in out["rounds"]), max(rw[k_]["margin"] for rw in out["rounds"])]
                    for k_ in arms}

    # the op alone, on the model's own tensors
    scale = 1 / math.sqrt(q.shape[-1])
    rep = q.shape[1] // k.shape[1]
    with torch.inference_mode():
        ke, ve = (x.repeat_interleave(rep, dim=1).contiguous() for x in (k, v))
        qc = q.contiguous()
    op = torch.ops.fa5090.attention

    def ours_op():
        with torch.inference_mode():
            op(q, k, v, True, scale)

    def sdpa_op(backend):
        def run():
            with torch.inference_mode(), sdpa_kernel([backend]):
                torch.nn.functional.scaled_dot_product_attention(qc, ke, ve, is_causal=True, scale=scale)
        return run

    out["op"] = {"ours vs cudnn": pair(sdpa_op(SDPBackend.CUDNN_ATTENTION), ours_op, a.budget),
                 "ours vs flash": pair(sdpa_op(SDPBackend.FLASH_ATTENTION), ours_op, a.budget),
                 "ours vs ours": pair(ours_op, ours_op, a.budget)}
    (a.out / "prefill_rounds.json").write_text(json.dumps(out, indent=1))
    for k_ in arms:
        print(f"prefill {k_:20s} median {out['median'][k_]:.4f}  range {out['range'][k_][0]:.4f}-{out['range'][k_][1]:.4f}")
    for k_, p in out["op"].items():
        print(f"op {k_:15s} {p['margin']:.4f} (AB {p['margin_ab']:.4f} / BA {p['margin_ba']:.4f}; "
              f"{p['ms_base']:.4f} ms vs ours {p['ms_cand']:.4f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
