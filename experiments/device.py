"""What GPU is here, read off the device (never assumed), and the toolchain beside it."""

from __future__ import annotations

import shutil
import subprocess

from pydantic import BaseModel

from kernel_src.arch import ArchLimits, from_device_properties


class NoGpu(RuntimeError):
    pass


class DeviceInfo(BaseModel):
    name: str
    arch: str
    sm_count: int
    limits: ArchLimits
    driver: str
    torch: str
    torch_cuda: str | None


def driver_version() -> str:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "unknown"
    try:
        out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return out.splitlines()[0] if out else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def probe(index: int = 0) -> DeviceInfo:
    import torch

    if not torch.cuda.is_available():
        why = "this torch build has no CUDA" if torch.version.cuda is None else "no CUDA device is visible"
        raise NoGpu(f"no usable GPU: {why} (torch {torch.__version__}); run on a machine with an NVIDIA GPU and a CUDA build of torch")
    props = torch.cuda.get_device_properties(index)
    lim = from_device_properties(props)
    return DeviceInfo(name=props.name, arch=lim.arch, sm_count=props.multi_processor_count, limits=lim,
                      driver=driver_version(), torch=torch.__version__, torch_cuda=torch.version.cuda)
