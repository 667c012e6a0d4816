"""ctypes binding to a built candidate library (the extern "C" ABI at the end of fa_fwd.cu).

A plain nvcc shared library loads in ~1 s; a torch extension recompiles torch headers for
every candidate (53 s on the H200 machine, ../shared/device/README.md). Tensors are passed as
raw device pointers; torch is only touched through duck-typed attributes here.
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path

from .knobs import _CODES, _INTS, Knobs

_DTYPES = {"torch.float16": 0, "torch.bfloat16": 1}


class KernelError(RuntimeError):
    pass


class KernelLib:
    def __init__(self, path: str | Path):
        self.path = str(path)
        lib = ctypes.CDLL(self.path)
        vp, i, f = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
        lib.fa_fwd.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, i, i, i, f, vp]
        lib.fa_fwd.restype = i
        lib.fa_attributes.argtypes = [i, i, i, ctypes.POINTER(i)]
        lib.fa_attributes.restype = i
        lib.fa_config.argtypes = [ctypes.POINTER(i)]
        lib.fa_config.restype = None
        lib.fa_error_string.argtypes = [i]
        lib.fa_error_string.restype = ctypes.c_char_p
        self._lib = lib
        self.knobs = self._read_knobs()

    def _read_knobs(self) -> Knobs:
        # one int a knob (29); room to spare, so a library with more knobs than this binding
        # knows never writes past the buffer
        out = (ctypes.c_int * 64)()
        self._lib.fa_config(out)
        # the order of fa_config's array in fa_fwd.cu
        order = ["compute", "layout", "staging", "exp", "br", "bc", "warps", "kv_stages", "q_in", "rescale_skip",
                 "causal_mask", "cta_order", "min_ctas", "store", "v_load", "persistent", "split_kv",
                 "softmax", "kv_overlap", "epilogue", "rescale_lazy", "pipeline", "kv_release", "pingpong", "copies", "exp_poly", "pv_slab", "mainloop",
                 "q_load"]
        data = {n: (out[i] if n in _INTS else _CODES[n][out[i]].value) for i, n in enumerate(order)}
        return Knobs.parse(data)

    def _check(self, code: int, what: str) -> None:
        if code != 0:
            raise KernelError(f"{what}: {self._lib.fa_error_string(code).decode()} (code {code})")

    def scale(self, head_dim: int) -> float:
        s = 1.0 / math.sqrt(head_dim)
        # ex2 variant: log2(e) folded into the scale on the host, zero instructions in the kernel
        return s * math.log2(math.e) if self.knobs.exp.value == "ex2" else s

    def forward(self, q, k, v, o, lse, causal: bool, stream: int = 0) -> None:
        """q, o: [B, H, N, D]; k, v: [B, Hkv, N, D] with Hkv dividing H (grouped-query attention;
        Hkv = H is MHA, 1 is MQA); contiguous device tensors of one dtype; lse: [B, H, N] fp32."""
        B, H, N, D = q.shape
        Hkv = k.shape[1]
        dt = _DTYPES.get(str(q.dtype))
        if dt is None:
            raise KernelError(f"dtype {q.dtype} is not supported (fp16 or bf16)")
        code = self._lib.fa_fwd(
            q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(),
            B, H, Hkv, N, D, dt, int(bool(causal)), self.scale(D), ctypes.c_void_p(stream),
        )
        self._check(code, "fa_fwd launch")

    def attributes(self, dtype: str, head_dim: int, causal: bool) -> dict:
        out = (ctypes.c_int * 6)()
        self._check(self._lib.fa_attributes(_DTYPES[dtype], head_dim, int(causal), out), "fa_attributes")
        names = ("registers", "local_bytes", "static_smem", "smem_per_cta", "threads", "ctas_per_sm")
        return dict(zip(names, list(out)))
