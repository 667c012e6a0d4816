"""The library arms a kernel is paired against: torch SDPA with one backend forced, or flash_attn; and,
where one does not run these inputs on this machine, why, in one phrase.

Which SDPA backends run depends on torch's version and build, the GPU's arch, the dtype, the head dim
and the mask: cuDNN attention is missing from older torch (no `SDPBackend.CUDNN_ATTENTION`), off
unless enabled in some releases, and refuses inputs its checks do not cover. torch says why in
warnings ("CuDNN attention kernel not used because:" then one warning per failed check) before it
raises "No available kernel"; `call` turns that into `Unavailable` with those reasons, so a pair
against a backend that cannot run is a record that says so, not a crashed job.
"""
from __future__ import annotations

import re
import warnings

# the headline torch warns before each backend's reasons (torch/aten sdp_utils.cpp), lower-cased
HEADLINE = {"flash": "flash attention kernel not used because", "cudnn": "cudnn attention kernel not used because",
            "efficient": "memory efficient"}
# what torch raises once every enabled backend refused the inputs (CUDA builds; CPU builds)
NO_KERNEL = ("no available kernel", "no viable backend")
NAMES = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION", "efficient": "EFFICIENT_ATTENTION", "math": "MATH"}


class Unavailable(Exception):
    """A backend that does not run these inputs here; str(e) is why, in one phrase."""


def _clean(message: str) -> str:
    return re.sub(r"\s*\(Triggered internally at [^)]*\)\.?\s*$", "", str(message)).strip()


def why_not(backend: str, messages: list[str], error: str) -> str:
    """The reasons torch gave for `backend` among `messages` (the warnings of one refused call, in
    order): those after its headline up to the next backend's; without them, the error itself."""
    head = HEADLINE.get(backend)
    out, inside = [], False
    for m in map(_clean, messages):
        low = m.lower()
        if "not used because" in low:
            inside = head is not None and low.startswith(head)
            continue
        if inside and m:
            out.append(m.rstrip("."))
    phrase = "; ".join(dict.fromkeys(out)) or _clean(error).splitlines()[0].rstrip(".")
    return phrase[:240]


def probe(backend: str, run) -> None:
    """One call of `run` (an SDPA call under `sdpa_kernel(backend)`), its warnings kept: raises
    Unavailable when torch found no kernel for it; any other error is the pair's own and propagates."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run()
        except RuntimeError as e:
            if not any(s in str(e).lower() for s in NO_KERNEL):
                raise
            raise Unavailable(why_not(backend, [str(w.message) for w in caught], str(e))) from None


def call(backend: str, q, k, v, causal: bool, gqa: bool):
    """A callable running SDPA on (q, k, v) with `backend` forced; Unavailable when it cannot run here."""
    import torch

    if backend == "flash_attn":
        try:
            from flash_attn import flash_attn_func  # [B, N, H, D] layout: transposed views, made contiguous once
        except ImportError as e:
            raise Unavailable(f"flash_attn does not import here ({type(e).__name__})") from None
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        return lambda: flash_attn_func(qt, kt, vt, causal=causal)
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        raise Unavailable(f"torch {torch.__version__} has no torch.nn.attention.sdpa_kernel") from None
    chosen = getattr(SDPBackend, NAMES[backend], None)
    if chosen is None:
        raise Unavailable(f"torch {torch.__version__} has no SDPBackend.{NAMES[backend]}")
    F = torch.nn.functional
    extra = {"enable_gqa": True} if gqa else {}

    def run():
        with sdpa_kernel(chosen):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)

    probe(backend, run)
    return run
