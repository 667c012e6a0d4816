"""The child process that touches the GPU: `python -m experiments.worker JOB.json RESULT.json`.

A job is a list of steps (attributes, check, paired). The result file is rewritten after every
step, so a kernel that faults or hangs half-way still leaves what was measured before it; the
parent turns a dead or silent child into CRASH / TIMEOUT and carries on with a fresh process.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

FATAL_EXIT = 3


def _arm(spec: dict, shape, tensors):
    """A callable running one arm on fixed inputs: a built library or a torch SDPA backend."""
    import torch

    q, k, v, o, lse = tensors
    if "lib" in spec:
        from kernel_src.binding import KernelLib

        lib = KernelLib(spec["lib"])
        stream = torch.cuda.current_stream().cuda_stream
        return lambda: lib.forward(q, k, v, o, lse, shape.causal, stream)
    if spec.get("sdpa") == "flash_attn":
        from flash_attn import flash_attn_func  # [B, N, H, D] layout: transposed views, made contiguous once

        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        return lambda: flash_attn_func(qt, kt, vt, causal=shape.causal)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[spec["sdpa"]]
    F = torch.nn.functional

    gqa = {"enable_gqa": True} if shape.kv_heads != shape.H else {}

    def run():
        with sdpa_kernel(backend):
            F.scaled_dot_product_attention(q, k, v, is_causal=shape.causal, **gqa)

    return run


def _step(step: dict, results: list) -> dict:
    import torch

    from experiments.problem import Shape
    from experiments.tier import check, random_inputs
    from experiments.timing import paired

    do = step["do"]
    if do == "attributes":
        from kernel_src.binding import KernelLib

        shape = Shape(**step["shape"])
        return KernelLib(step["lib"]).attributes("torch." + shape.dtype, shape.D, shape.causal)
    if do == "check":
        from kernel_src.binding import KernelLib

        lib = KernelLib(step["lib"])
        stream = torch.cuda.current_stream().cuda_stream
        out = []
        for i, sd in enumerate(step["shapes"]):
            shape = Shape(**sd)
            seed = int.from_bytes(os.urandom(4), "little")  # fresh inputs the kernel cannot see
            patterns = step.get("inputs") or []
            res = check(lambda q, k, v, o, l: lib.forward(q, k, v, o, l, shape.causal, stream), shape, "cuda", seed,
                        repeat=step.get("repeat", 1), pattern=patterns[i] if i < len(patterns) else "normal")
            out.append(res.model_dump(mode="json"))
            if not res.ok:
                break
        return {"ok": all(r["ok"] for r in out) and len(out) == len(step["shapes"]), "checks": out}
    if do == "paired":
        shape = Shape(**step["shape"])
        q, k, v = random_inputs(shape, "cuda", int.from_bytes(os.urandom(4), "little"))
        o, lse = torch.empty_like(q), torch.empty(shape.B, shape.H, shape.N, device="cuda")
        t = (q, k, v, o, lse)
        l2 = step.get("l2", "warm")
        flush = None
        if l2 == "cold":  # a write twice the L2's size evicts the inputs before every timed call
            scratch = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device="cuda")
            flush = scratch.zero_
        res = paired(_arm(step["base"], shape, t), _arm(step["cand"], shape, t), budget_s=step["budget_s"], l2=l2,
                     flush=flush)
        d = res.model_dump(mode="json")
        if step.get("recheck") and "lib" in step["cand"]:
            # the very inputs the timing used, checked again after it (not a fresh easy draw)
            from kernel_src.binding import KernelLib

            lib = KernelLib(step["cand"]["lib"])
            stream = torch.cuda.current_stream().cuda_stream
            rc = check(lambda q_, k_, v_, o_, l_: lib.forward(q_, k_, v_, o_, l_, shape.causal, stream), shape, "cuda",
                       0, inputs=(q, k, v))
            d["recheck"] = rc.model_dump(mode="json")
        d["tflops_base"] = shape.flops() / (res.ms_base * 1e-3) / 1e12
        d["tflops_cand"] = shape.flops() / (res.ms_cand * 1e-3) / 1e12
        return d
    if do == "ceilings":
        from experiments.calibration import measure_ceilings

        return measure_ceilings(step["dtype"], step["mma_lib"])
    if do == "envelope":
        from experiments.tolerance import run_envelope

        return run_envelope(step)
    raise ValueError(f"unknown step {do!r}")


def _skip(step: dict, results: list) -> str | None:
    need = step.get("if_margin_at_least")
    if need is None:
        return None
    last = next((r for r in reversed(results) if r.get("do") == "paired" and "result" in r), None)
    if last is None or last["result"]["margin"] < need:
        return "margin below t_keep"
    if step.get("if_checks_ok", True) and any(r.get("do") == "check" and not r["result"]["ok"] for r in results if "result" in r):
        return "an earlier check failed"
    return None


def main(job_path: str, result_path: str) -> int:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 oracle must be fp32
    torch.backends.cudnn.allow_tf32 = False
    job = json.loads(open(job_path).read())
    results: list[dict] = []

    def save():
        tmp = result_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"steps": results}, f)
        os.replace(tmp, result_path)

    for step in job["steps"]:
        entry = {"do": step["do"], "tag": step.get("tag", step["do"])}
        why = _skip(step, results)
        if why:
            entry["skipped"] = why
            results.append(entry)
            save()
            continue
        if step.get("stop_if_failed") and any(r.get("do") == "check" and "result" in r and not r["result"]["ok"] for r in results):
            entry["skipped"] = "an earlier check failed"
            results.append(entry)
            save()
            continue
        try:
            entry["result"] = _step(step, results)
            torch.cuda.synchronize()
        except Exception as e:  # a launch refusal or a device fault; the latter poisons the context
            entry["error"] = f"{type(e).__name__}: {e}"
            entry["traceback"] = traceback.format_exc()[-2000:]
            results.append(entry)
            save()
            return FATAL_EXIT
        results.append(entry)
        save()
    return 0


if __name__ == "__main__":
    from .child import die_with_parent

    die_with_parent()  # a SIGKILLed tool takes its worker with it: nothing keeps the GPU busy after it
    sys.exit(main(sys.argv[1], sys.argv[2]))
