"""The program ncu profiles (profiler.launch): its torch-free inputs (FA5090_PROFILE_INPUTS=driver) are N(0,1) in
the input dtype, and where the driver path cannot run it says why and falls back to torch. Its GPU half (libcuda,
the kernel launched on those buffers under ncu) runs only on a GPU machine."""
import ctypes

import numpy as np
import pytest
import torch

from profiler import launch


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_the_host_inputs_are_normal_in_the_input_dtype(dtype):
    raw = launch.host_normal(1 << 16, dtype, 1234)
    assert len(raw) == 2 << 16
    t = torch.frombuffer(bytearray(raw), dtype=getattr(torch, dtype)).float()
    assert abs(t.mean().item()) < 0.02 and abs(t.std().item() - 1) < 0.02 and torch.isfinite(t).all()
    ref = torch.from_numpy(np.random.default_rng(1234).standard_normal(1 << 16, dtype=np.float32))
    assert torch.equal(t, ref.to(getattr(torch, dtype)).float())  # the same rounding torch's conversion does


def test_without_a_driver_the_inputs_come_from_torch(monkeypatch):
    def no_driver(name, *a, **k):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", no_driver)
    with pytest.raises(launch.NoDriverPath, match="no CUDA driver library"):
        launch.driver_inputs({"B": 1, "H": 1, "N": 8, "D": 64})
    with pytest.raises(launch.NoDriverPath, match="not fp16 or bf16"):
        launch.host_normal(4, "float32", 0)
