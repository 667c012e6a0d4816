"""What the partner of a pair does to the kernel's clock: one kernel timed paired, in one process, beside itself,
SDPA cuDNN and SDPA flash in turn, while a thread reads the GPU's SM clock, power draw and clock-event reasons
from NVML every 20 ms. Prints, per segment, the pair's TFLOP/s of each arm and the mean SM clock, power and the
share of samples under the software power cap over the segment's alternations.

    python3 results/2026-12-07_cpu_h200_tier_policy31/pairing_clocks.py OUT_DIR [--kernel NAME] [--shape "B2 H16 N8192 D128 fp16"] [--budget S]

NAME is a kernel of scripts/device_suite.py's table. Writes OUT_DIR/pairing_clocks.json (every segment and every
sample). Needs a GPU and the driver's libnvidia-ml.so.1; reads, never sets, clocks and limits.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from device_suite import KERNELS, shape  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from experiments.device import probe  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402

SW_POWER_CAP, HW_SLOWDOWN, SW_THERMAL, HW_THERMAL, HW_POWER_BRAKE = 0x4, 0x8, 0x20, 0x40, 0x80


class Nvml:
    """The few NVML reads this needs, through ctypes (no pynvml on the GPU machine)."""

    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        if self.lib.nvmlInit_v2() != 0:
            raise RuntimeError("nvmlInit_v2 failed")
        self.h = ctypes.c_void_p()
        first = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0]
        index = int(first) if first.isdigit() else 0  # a UUID there: the machine's one GPU
        if self.lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.h)) != 0:
            raise RuntimeError("nvmlDeviceGetHandleByIndex_v2 failed")
        self.reasons_fn = getattr(self.lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            self.lib.nvmlDeviceGetCurrentClocksThrottleReasons

    def sample(self) -> tuple[int, int, int]:
        """(SM clock MHz, power mW, clock-event reasons bitmask)."""
        mhz, mw, why = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
        self.lib.nvmlDeviceGetClockInfo(self.h, 1, ctypes.byref(mhz))  # NVML_CLOCK_SM
        self.lib.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(mw))
        self.reasons_fn(self.h, ctypes.byref(why))
        return mhz.value, mw.value, why.value

    def power_limit_mw(self) -> int:
        mw = ctypes.c_uint()
        self.lib.nvmlDeviceGetEnforcedPowerLimit(self.h, ctypes.byref(mw))
        return mw.value


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--kernel", default="ws_op_lazy_qp_w_ot_pr_pk_dm_wu_ls")
    ap.add_argument("--shape", default="B2 H16 N8192 D128 fp16")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of alternations per segment")
    ap.add_argument("--partners", default="self,cudnn,flash,cudnn,flash,self")
    a = ap.parse_args()
    if a.kernel not in KERNELS:
        ap.error(f"unknown kernel '{a.kernel}': a name of scripts/device_suite.py's KERNELS")
    if bad := [p for p in a.partners.split(",") if p not in ("self", "cudnn", "flash")]:
        ap.error(f"unknown partner(s) {bad}: self, cudnn or flash")
    if a.budget <= 0:
        ap.error("--budget must be positive")
    try:
        sh = shape(a.shape)
    except Exception as e:
        ap.error(f"--shape '{a.shape}' is not a shape like 'B2 H16 N8192 D128 fp16' ({e})")
    a.out.mkdir(parents=True, exist_ok=True)
    import torch

    from experiments.sdpa import call
    from experiments.tier import random_inputs
    from experiments.timing import paired
    from kernel_src.binding import KernelLib

    dev = probe()
    spec = BuildSpec(knobs=Knobs.parse(KERNELS[a.kernel]), arch=dev.arch, dtypes=(sh.dtype,), dims=(sh.D,),
                     causals=(sh.causal,))
    res = build([spec], Path("/tmp/facache/build"))[spec.key()]
    if not res.ok:
        print(res.log[-2000:])
        return 1
    nv = Nvml()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {dev.name} {dev.arch}; {a.kernel} at {sh.key()}; "
          f"enforced power limit {nv.power_limit_mw() / 1000:.0f} W", flush=True)
    samples: list[tuple[float, int, int, int]] = []
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            samples.append((time.perf_counter(), *nv.sample()))
            time.sleep(0.02)

    q, k, v = random_inputs(sh, "cuda", 1)
    o, lse = torch.empty_like(q), torch.empty(sh.B, sh.H, sh.N, device="cuda")
    lib = KernelLib(res.library)
    stream = torch.cuda.current_stream().cuda_stream
    ours = lambda: lib.forward(q, k, v, o, lse, sh.causal, stream)
    gqa = sh.kv_heads != sh.H
    partner = {"self": ours, "cudnn": call("cudnn", q, k, v, sh.causal, gqa), "flash": call("flash", q, k, v, sh.causal, gqa)}
    th = threading.Thread(target=poll, daemon=True)
    th.start()
    segs = []
    for name in a.partners.split(","):
        t0 = time.perf_counter()
        r = paired(partner[name], ours, budget_s=a.budget)
        t1 = time.perf_counter()
        inside = [s for s in samples if t0 + 0.3 <= s[0] <= t1]  # past the warm-up and block sizing
        mean = lambda i: sum(s[i] for s in inside) / max(1, len(inside))
        share = lambda bit: sum(1 for s in inside if s[3] & bit) / max(1, len(inside))
        seg = {"partner": name, "margin": round(r.margin, 4), "alternations": r.alternations,
               "tflops_ours": round(sh.flops() / (r.ms_cand * 1e-3) / 1e12, 1),
               "tflops_partner": round(sh.flops() / (r.ms_base * 1e-3) / 1e12, 1),
               "samples": len(inside), "sm_mhz": round(mean(1)), "power_w": round(mean(2) / 1000, 1),
               "sw_power_cap": round(share(SW_POWER_CAP), 3), "hw_slowdown": round(share(HW_SLOWDOWN | HW_POWER_BRAKE), 3),
               "thermal": round(share(SW_THERMAL | HW_THERMAL), 3), "t0": t0, "t1": t1}
        segs.append(seg)
        print(f"beside {name:6s}: ours {seg['tflops_ours']:6.1f} TFLOP/s, partner {seg['tflops_partner']:6.1f}; "
              f"SM {seg['sm_mhz']} MHz, {seg['power_w']} W, power cap {seg['sw_power_cap']:.0%} of "
              f"{seg['samples']} samples, hw slowdown {seg['hw_slowdown']:.0%}, thermal {seg['thermal']:.0%}", flush=True)
        time.sleep(0.5)
    stop.set()
    th.join()
    (a.out / "pairing_clocks.json").write_text(json.dumps(
        {"kernel": a.kernel, "shape": sh.key(), "gpu": dev.name, "power_limit_w": nv.power_limit_mw() / 1000,
         "segments": segs, "samples": samples}, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
