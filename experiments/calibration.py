"""The instrument's own numbers: the environment it ran in and the ceilings a measurement is
judged against. Clocks are read (nvidia-smi), never set."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

CLOCK_FIELDS = ("clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
                "clocks.applications.graphics", "clocks.applications.memory", "temperature.gpu", "power.draw")


def read_clocks() -> dict:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return {"error": "nvidia-smi not found"}
    try:
        out = subprocess.run([smi, f"--query-gpu={','.join(CLOCK_FIELDS)}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError) as e:
        return {"error": str(e)}
    vals = [v.strip() for v in out.split(",")]
    return {k: _num(v) for k, v in zip(CLOCK_FIELDS, vals)}


def _num(v: str):
    try:
        return float(v)
    except ValueError:
        return v


def _timed(fn, reps: int, burn_s: float = 0.5) -> tuple[float, dict]:
    """Median ms of `reps` calls with CUDA events; then the clocks, read while a queued burst of
    about `burn_s` keeps the GPU busy."""
    import statistics

    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    ms = statistics.median(times)
    for _ in range(max(1, int(burn_s * 1e3 / ms))):
        fn()
    clocks = read_clocks()  # the queue is still draining while nvidia-smi answers
    torch.cuda.synchronize()
    return ms, clocks


def measure_ceilings(dtype: str, mma_lib: str) -> dict:
    """Two ceilings for `dtype`: torch's GEMM (what the library reaches on this card, random data)
    and an mma.sync m16n8k16 register loop (what the instruction our kernel uses can reach)."""
    import torch

    dt = getattr(torch, dtype)
    n = 8192
    a, b = torch.randn(n, n, device="cuda").to(dt), torch.randn(n, n, device="cuda").to(dt)
    ms, clocks_gemm = _timed(lambda: torch.matmul(a, b), 20)
    gemm = 2 * n**3 / (ms * 1e-3) / 1e12

    lib = ctypes.CDLL(mma_lib)
    lib.mma_peak_launch.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.mma_peak_flops.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.mma_peak_flops.restype = ctypes.c_double
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    blocks, iters = sms * 8, 4096
    sink = torch.zeros(256, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    code = {"float16": 0, "bfloat16": 1}[dtype]

    def launch():
        rc = lib.mma_peak_launch(code, blocks, iters, ctypes.c_void_p(sink.data_ptr()), ctypes.c_void_p(stream))
        if rc:
            raise RuntimeError(f"mma_peak launch failed ({rc})")

    ms2, clocks_mma = _timed(launch, 20)
    mma = lib.mma_peak_flops(blocks, iters) / (ms2 * 1e-3) / 1e12
    return {"dtype": dtype, "gemm_tflops": gemm, "gemm_ms": ms, "mma_sync_tflops": mma, "mma_sync_ms": ms2,
            "clocks_under_gemm": clocks_gemm, "clocks_under_mma": clocks_mma,
            "cudnn": torch.backends.cudnn.version(), "torch": torch.__version__}
