"""`fa5090-search doctor`: each requirement checked for real, with the fix beside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OK, WARN, MISSING = "ok", "warn", "missing"


def diagnose_environment(cache_dir: Path, arch: str | None) -> tuple[list[tuple[str, str, str]], bool]:
    rows: list[tuple[str, str, str]] = []
    fatal = False

    def add(name, status, detail):
        nonlocal fatal
        rows.append((name, status, detail))
        fatal |= status == MISSING

    import torch

    add("python", OK, sys.version.split()[0])
    add("torch", OK if torch.version.cuda else MISSING,
        f"{torch.__version__} (CUDA {torch.version.cuda})" if torch.version.cuda
        else f"{torch.__version__} is a CPU build: install a CUDA build of torch")
    dev = None
    try:
        from experiments.device import probe

        dev = probe()
        add("GPU", OK, f"{dev.name}, {dev.arch}, {dev.sm_count} SMs, {dev.limits.smem_per_block_optin} B smem/block "
                       f"opt-in, {dev.limits.max_warps_per_sm} warps/SM, driver {dev.driver}")
    except Exception as e:  # noqa: BLE001 - any failure here is the answer
        add("GPU", MISSING, str(e))
    target = dev.arch if dev else (arch or "sm_90")

    from experiments.build import BuildError, BuildSpec, build, ninja_path, nvcc_path, nvcc_version
    from kernel_src.knobs import SEED

    try:
        add("nvcc", OK, f"{nvcc_path()}: {nvcc_version()}")
        add("ninja", OK, ninja_path())
        with tempfile.TemporaryDirectory() as tmp:
            spec = BuildSpec(knobs=SEED, arch=target)
            res = build([spec], Path(tmp))[spec.key()]
            add(f"compile seed for {target}", OK if res.ok else MISSING,
                "built" if res.ok else "nvcc failed: " + res.log.strip().splitlines()[-1][:200])
            if dev is not None and res.ok:
                _ncu_row(add, res.library, target)
    except BuildError as e:
        add("nvcc", MISSING, str(e))
    if dev is None:
        ncu = shutil.which("ncu")
        add("ncu", OK if ncu else WARN, (ncu + " (counter permission needs a GPU to test)") if ncu
            else "Nsight Compute not on PATH: the search runs without diagnoses")
    return rows, fatal


def _ncu_row(add, library: str, arch: str) -> None:
    from profiler.ncu import ProfilerError, run_ncu

    if not shutil.which("ncu"):
        add("ncu", WARN, "Nsight Compute not on PATH: the search runs without diagnoses (install it with the CUDA toolkit)")
        return
    shape = '{"B":1,"H":1,"N":256,"D":128,"dtype":"float16","causal":false}'
    try:
        out = subprocess.run(["ncu", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
        res = run_ncu([sys.executable, "-m", "profiler.launch", library, shape], arch, timeout=300)
        add("ncu counters", OK, f"{out}; profiled the seed, {len(res.rows())} kernel row(s)")
    except ProfilerError as e:
        add("ncu counters", WARN, f"{e} The search will run without diagnoses.")
