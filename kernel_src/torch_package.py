"""`export --torch DIR`: the dispatch library as an installable Python package, `pip install DIR`, then

    import fa5090_kernels
    o = fa5090_kernels.attention(q, k, v, causal=True)        # SDPA's layout [B, H, N, D], scale=None: 1/sqrt(D)

The package holds the library built for the runs' arch, its table (table.json) and one module that
registers `torch.ops.fa5090.attention` through `torch.library.custom_op`, with a fake (meta)
implementation so that `torch.compile(fullgraph=True)` traces through it, and a backward that recomputes
with SDPA. What the table does not cover (another head dim or dtype, an explicit mask, dropout, CPU
tensors, another GPU arch, a (dtype, D, causal) never measured) runs F.scaled_dot_product_attention
instead, with one warning naming why (`fallback="error"` raises instead). `scale` is the plain softmax
scale everywhere, as in SDPA; the dispatch library folds log2(e) in for the kernels that want it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

PACKAGE = "fa5090_kernels"
LIBRARY = "fa_dispatch.so"


def pyproject(version: str = "0.1.0") -> str:
    return f'''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{PACKAGE.replace("_", "-")}"
version = "{version}"
description = "FlashAttention forward kernels tuned by fa5090-search, as a PyTorch op (forward ours, backward SDPA)"
requires-python = ">=3.9"
dependencies = ["torch>=2.4"]

[tool.setuptools]
packages = ["{PACKAGE}"]

[tool.setuptools.package-data]
{PACKAGE} = ["*.so", "*.json", "*.cu"]
'''


MODULE = r'''"""FlashAttention forward kernels tuned by fa5090-search for one GPU, as a PyTorch op.

attention(q, k, v, causal=False, scale=None, fallback="warn") takes SDPA's layout: q [B, H, N, D],
k and v [B, Hkv, N, D] with Hkv dividing H (grouped-query attention), fp16 or bf16, on the GPU the
table was measured on. Anything else runs torch.nn.functional.scaled_dot_product_attention, with one
warning naming why (fallback="error" raises FallbackError instead). `scale` is the softmax scale
(None: 1/sqrt(D)), as in SDPA. The forward is ours; the backward recomputes with SDPA.
The output has q's layout (as SDPA's): for q.transpose(1, 2) of a [B, N, H, D] tensor, a model's usual
layout, O is written as [B, N, H, D] and returned as its [B, H, N, D] view. Strided q, k, v and o are read and
written in place by the kernels that reach them through TMA (the warp-specialised ones the tool finds on
Hopper: fa_strided in the library says which); for the others each such tensor is copied to the contiguous
[B, H, N, D] layout first (a full read and write of it, about the kernel's own time at N 2048).
It runs on whichever GPU q is on (the current device need not be it) and on torch's current stream there;
calls on several streams at once each have their own work list and workspace in the library.
"""
import ctypes
import json
import math
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

_HERE = Path(__file__).resolve().parent
TABLE = json.loads((_HERE / "table.json").read_text())
_DTYPES = {torch.float16: 0, torch.bfloat16: 1}
_COVERED = {(r["dtype"], r["head_dim"], r["causal"]) for r in TABLE["rows"]}
_lib = None
_warned = set()
# read once here, not per call: torch.compile traces why_not, and a file stat or a device query in it would break
# the graph
_HAVE_LIBRARY = (_HERE / TABLE["library"]).exists()
_DEVICE_ARCHS = (["sm_%d%d" % torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())]
                 if torch.cuda.is_available() else [])


class FallbackError(RuntimeError):
    """This call is not one the tuned kernels cover, and fallback="error" was asked."""


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(str(_HERE / TABLE["library"]))
        vp, i, f = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
        lib.fa_fwd.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, i, i, i, f, vp]
        lib.fa_fwd.restype = i
        lib.fa_fwd_strided.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, i, i, i, f, vp, ctypes.POINTER(ctypes.c_longlong)]
        lib.fa_fwd_strided.restype = i
        lib.fa_strided.argtypes = [i, i, i, i]
        lib.fa_strided.restype = i
        lib.fa_error_string.argtypes = [i]
        lib.fa_error_string.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def why_not(q, k, v, causal=False, attn_mask=None, dropout_p=0.0):
    """None when the tuned kernels serve this call, else why SDPA serves it."""
    if not _HAVE_LIBRARY:
        return "no built library in the package (it was exported without nvcc: build fa_dispatch.cu, see its header)"
    if attn_mask is not None:
        return "an explicit attn_mask (the kernels take causal=True or no mask)"
    if dropout_p:
        return "dropout (the kernels have none)"
    if not (q.is_cuda and k.is_cuda and v.is_cuda):
        return f"tensors on {q.device} (the kernels run on CUDA)"
    if k.device != q.device or v.device != q.device:
        return f"q on {q.device}, k on {k.device}, v on {v.device} (the kernels read one device's memory)"
    if q.dtype not in _DTYPES or k.dtype != q.dtype or v.dtype != q.dtype:
        return f"dtype {q.dtype}/{k.dtype}/{v.dtype} (the kernels take fp16 or bf16, one dtype)"
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return "tensors that are not 4-D [B, H, N, D]"
    B, H, N, D = q.shape
    if k.shape != v.shape or k.shape[0] != B or k.shape[2] != N or k.shape[3] != D or H % k.shape[1]:
        return f"shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)} (k, v [B, Hkv, N, D], Hkv dividing H)"
    arch = _DEVICE_ARCHS[q.device.index if q.device.index is not None else torch.cuda.current_device()]
    if arch not in TABLE["archs"]:
        return f"a {arch} device (the library is built for {', '.join(TABLE['archs'])})"
    key = ({torch.float16: "float16", torch.bfloat16: "bfloat16"}[q.dtype], D, bool(causal))
    if key not in _COVERED:
        return f"{key[0]} D={D} {'causal' if causal else 'non-causal'}, which the table never measured"
    return None


_FA_BAD_LAYOUT = -4
_taken = {}  # (dtype, D, causal, N) -> the operands its kernel takes in any layout, bits 1 q, 2 k, 4 v, 8 o


def _in_place(x, bit, taken):
    """x as the kernel gets it: itself when contiguous or when the kernel takes its strides, else a contiguous copy."""
    return x if x.is_contiguous() or (taken & bit and x.stride(3) == 1) else x.contiguous()


@torch.library.custom_op("fa5090::attention", mutates_args=())
def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float) -> torch.Tensor:
    B, H, N, D = q.shape
    lib, dt = _library(), _DTYPES[q.dtype]
    key = (dt, D, bool(causal), N)
    if key not in _taken:
        _taken[key] = max(lib.fa_strided(dt, D, int(causal), N), 0)
    o = torch.empty_like(q)  # q's layout, as SDPA returns it
    lse = torch.empty(B, H, N, device=q.device, dtype=torch.float32)
    stream = ctypes.c_void_p(torch.cuda.current_stream(q.device).cuda_stream)

    def run(taken):
        qq, kk, vv = _in_place(q, 1, taken), _in_place(k, 2, taken), _in_place(v, 4, taken)
        out = o if o.is_contiguous() or taken & 8 else torch.empty(B, H, N, D, device=q.device, dtype=q.dtype)
        strides = (ctypes.c_longlong * 12)(*[s for x in (qq, kk, vv, out) for s in x.stride()[:3]])
        code = lib.fa_fwd_strided(qq.data_ptr(), kk.data_ptr(), vv.data_ptr(), out.data_ptr(), lse.data_ptr(), B, H,
                                  k.shape[1], N, D, dt, int(causal), float(scale), stream, strides)
        if code == 0 and out is not o:
            o.copy_(out)
        return code

    # the library launches on the current device, which need not be q's (a model split over two GPUs calls this on
    # each); on a stream of its own (each stream has its own work list and workspace in the library)
    with torch.cuda.device(q.device):
        code = run(_taken[key])
        if code == _FA_BAD_LAYOUT:  # strides a tensor map cannot take (not 16-byte multiples): every operand copied
            code = run(0)
    if code != 0:
        raise RuntimeError(f"fa5090 fa_fwd: {lib.fa_error_string(code).decode()} (code {code})")
    return o


@_attention.register_fake
def _(q, k, v, causal, scale):
    return torch.empty_like(q)  # the real one's layout: q's


def _setup(ctx, inputs, output):
    q, k, v, causal, scale = inputs
    ctx.save_for_backward(q, k, v)
    ctx.causal, ctx.scale = causal, scale


def _backward(ctx, grad):
    q, k, v = ctx.saved_tensors
    with torch.enable_grad():
        qq, kk, vv = (x.detach().requires_grad_(True) for x in (q, k, v))
        gqa = {"enable_gqa": True} if kk.shape[1] != qq.shape[1] else {}
        out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=ctx.causal, scale=ctx.scale, **gqa)
        dq, dk, dv = torch.autograd.grad(out, (qq, kk, vv), grad)
    return dq, dk, dv, None, None


_attention.register_autograd(_backward, setup_context=_setup)


def attention(q, k, v, causal=False, scale=None, attn_mask=None, dropout_p=0.0, fallback="warn"):
    """softmax(q k^T * scale [causal mask]) v in SDPA's layout; see the module's docstring."""
    if fallback not in ("warn", "silent", "error"):
        raise ValueError(f"fallback must be 'warn', 'silent' or 'error', not {fallback!r}")
    why = why_not(q, k, v, causal, attn_mask, dropout_p)
    if why is not None:
        if fallback == "error":
            raise FallbackError(f"fa5090_kernels does not cover {why}")
        if fallback == "warn" and why not in _warned:
            _warned.add(why)
            warnings.warn(f"fa5090_kernels: {why}: running torch's scaled_dot_product_attention instead", stacklevel=2)
        gqa = {"enable_gqa": True} if k.dim() == 4 and q.dim() == 4 and k.shape[1] != q.shape[1] else {}
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p,
                                              is_causal=causal, scale=scale, **gqa)
    return torch.ops.fa5090.attention(q, k, v, bool(causal), float(scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])))


def hf_attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs):
    """An attention function for Hugging Face transformers (its AttentionInterface signature): q [B, H, N, D],
    k and v [B, Hkv, Nk, D], the output [B, N, H, D]. As transformers' own SDPA function decides: causal when
    no mask is given, the layer is causal and N > 1; keys past N cropped for a causal prefill (an empty
    static cache). A mask (padding) or a decode step (N=1 against a longer cache) runs SDPA."""
    causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    causal = bool(query.shape[2] > 1 and attention_mask is None and causal)
    if causal and key.shape[2] > query.shape[2]:
        key, value = key[:, :, :query.shape[2]], value[:, :, :query.shape[2]]
    if attention_mask is not None and attention_mask.dim() == 4:
        attention_mask = attention_mask[:, :, :, :key.shape[2]]
    out = attention(query, key, value, causal=causal, scale=scaling, attn_mask=attention_mask, dropout_p=dropout)
    return out.transpose(1, 2).contiguous(), None


def register_with_transformers(name="fa5090"):
    """Register hf_attention (and SDPA's mask function, so padding still reaches it) under `name`; then
    `AutoModel.from_pretrained(..., attn_implementation=name)` or `model.set_attn_implementation(name)`."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(name, hf_attention)
    AttentionMaskInterface.register(name, sdpa_mask)
    return name
'''


def write_package(out: Path, rows: list, archs: list[str], gpu: str, cu: Path, library: Path | None) -> list[Path]:
    """DIR/pyproject.toml and DIR/fa5090_kernels/{__init__.py, table.json, fa_dispatch.cu[, fa_dispatch.so]}.
    `rows`: the dispatch table (kernel_src.dispatch.Row); `library`: the built .so, or None (not built)."""
    pkg = out / PACKAGE
    pkg.mkdir(parents=True, exist_ok=True)
    written = [out / "pyproject.toml", pkg / "__init__.py", pkg / "table.json"]
    written[0].write_text(pyproject())
    written[1].write_text(MODULE)
    table = {"gpu": gpu, "archs": archs, "library": LIBRARY,
             "rows": [{**r.model_dump(mode="json", exclude={"knobs"}), "knobs": r.knobs.label(),
                       "knobs_canonical": r.knobs.canonical(), "bucket": r.bucket()} for r in rows]}
    written[2].write_text(json.dumps(table, indent=1))
    if cu.resolve() != (pkg / "fa_dispatch.cu").resolve():
        shutil.copyfile(cu, pkg / "fa_dispatch.cu")
    written.append(pkg / "fa_dispatch.cu")
    if library is not None:
        if library.resolve() != (pkg / LIBRARY).resolve():
            shutil.copyfile(library, pkg / LIBRARY)
        written.append(pkg / LIBRARY)
    return written
