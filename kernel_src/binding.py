"""ctypes binding to a built candidate library (the extern "C" ABI at the end of kernel_src/fa_fwd.cu).

A plain nvcc shared library loads in ~1 s; a torch extension recompiles torch headers for
every candidate (53 s on the H200 machine, ../shared/device/README.md). Tensors are passed as
raw device pointers; torch is only touched through duck-typed attributes here.
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path

from . import knob_table as table
from .knobs import _CODES, Knobs

CONFIG_BUFFER = 64  # ints; fa_config writes len(knob_table.KNOBS) of them
assert len(table.KNOBS) <= CONFIG_BUFFER
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
        self.takes_strides = hasattr(lib, "fa_fwd_strided")  # (a library built before the strided entry: contiguous only)
        if self.takes_strides:
            lib.fa_fwd_strided.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, i, i, i, f, vp,
                                           ctypes.POINTER(ctypes.c_longlong)]
            lib.fa_fwd_strided.restype = i
            lib.fa_strided.argtypes = [i, i, i]
            lib.fa_strided.restype = i
        lib.fa_attributes.argtypes = [i, i, i, ctypes.POINTER(i)]
        lib.fa_attributes.restype = i
        lib.fa_config.argtypes = [ctypes.POINTER(i)]
        lib.fa_config.restype = None
        lib.fa_error_string.argtypes = [i]
        lib.fa_error_string.restype = ctypes.c_char_p
        self._lib = lib
        self.knobs = self._read_knobs()

    def _read_knobs(self) -> Knobs:
        # fa_config writes one int per knob of kernel_src/knob_table.py, in its order (FA_CONFIG_COUNT of
        # knobs_gen.cuh); the buffer has room to spare, so a library with more knobs than this binding knows
        # never writes past it
        out = (ctypes.c_int * CONFIG_BUFFER)()
        self._lib.fa_config(out)
        data = {k.name: _CODES[k.name][out[i]].value if k.is_enum else out[i] for i, k in enumerate(table.KNOBS)}
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
        Hkv = H is MHA, 1 is MQA); device tensors of one dtype, each row's D values contiguous; lse:
        [B, H, N] fp32, contiguous. Any strides for the operands the library reaches by TMA
        (strided_operands), the contiguous layout for the others (KernelError otherwise)."""
        B, H, N, D = q.shape
        Hkv = k.shape[1]
        dt = _DTYPES.get(str(q.dtype))
        if dt is None:
            raise KernelError(f"dtype {q.dtype} is not supported (fp16 or bf16)")
        args = (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(),
                B, H, Hkv, N, D, dt, int(bool(causal)), self.scale(D), ctypes.c_void_p(stream))
        # (profiler.launch's torch-free buffers have no strides: always contiguous)
        if all(x.is_contiguous() if hasattr(x, "is_contiguous") else True for x in (q, k, v, o)):
            self._check(self._lib.fa_fwd(*args), "fa_fwd launch")
            return
        if not self.takes_strides:
            raise KernelError(f"{self.path} was built before fa_fwd_strided: it takes contiguous tensors only")
        if any(x.stride(3) != 1 for x in (q, k, v, o) if x.shape[3] > 1):
            raise KernelError("a row's D values must be contiguous (stride 1 in the last dimension)")
        strides = (ctypes.c_longlong * 12)(*[st for x in (q, k, v, o) for st in x.stride()[:3]])
        self._check(self._lib.fa_fwd_strided(*args, strides), "fa_fwd_strided launch")

    def strided_operands(self, dtype: str, head_dim: int, causal: bool) -> set[str]:
        """The operands of q, k, v, o that the (dtype, D, causal) kernel takes in any layout (through TMA maps)."""
        if not self.takes_strides:
            return set()
        bits = self._lib.fa_strided(_DTYPES[dtype if dtype.startswith("torch.") else "torch." + dtype], head_dim, int(causal))
        if bits < 0:
            self._check(bits, "fa_strided")
        return {n for i, n in enumerate("qkvo") if bits & (1 << i)}

    def last_round(self, items: int, grid: int, key_blocks: int, head_dim: int) -> tuple[int, int] | None:
        """last_round=key_split: (the items the launch splits at the end of its list, log2 of their pieces) for
        `items` whole items of `key_blocks` key blocks at `head_dim` on `grid` CTAs; last_round=key_stream: (the items
        streamed, each CTA's share of their key blocks); None for a library without either. The launch's own choice,
        read without a GPU."""
        fn = getattr(self._lib, "fa_last_round", None)
        if fn is None:
            return None
        out = (ctypes.c_int * 2)()
        fn.argtypes = [ctypes.c_longlong, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        fn.restype = ctypes.c_int
        return None if fn(items, grid, key_blocks, head_dim, out) else (out[0], out[1])

    def attributes(self, dtype: str, head_dim: int, causal: bool) -> dict:
        out = (ctypes.c_int * 6)()
        self._check(self._lib.fa_attributes(_DTYPES[dtype], head_dim, int(causal), out), "fa_attributes")
        names = ("registers", "local_bytes", "static_smem", "smem_per_cta", "threads", "ctas_per_sm")
        return dict(zip(names, list(out)))
