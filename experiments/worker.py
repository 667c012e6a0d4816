"""The child process that touches the GPU: `python -m experiments.worker JOB.json RESULT.json`.

A job is a list of typed steps (experiments.job: attributes, check, paired, ceilings, envelope,
streams). The result file is rewritten after every step, so a kernel that faults or hangs half-way still leaves
what was measured before it; the parent turns a dead or silent child into CRASH / TIMEOUT and
carries on with a fresh process. A library arm that does not run here (experiments.sdpa) is a step
skipped with why, not a failed job.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

_STARTED = time.perf_counter()  # where this process's own clock starts (experiments.job.JobResult.clock)

from experiments.job import (
    Arm,
    AttributesStep,
    CeilingsStep,
    CheckStep,
    EnvelopeStep,
    Job,
    PairedStep,
    StepRecord,
    StreamsStep,
)
from experiments.problem import Shape
from experiments.sdpa import Unavailable, call

FATAL_EXIT = 3


def _arm(arm: Arm, shape: Shape, tensors):
    """A callable running one arm on fixed inputs: a built library, or a library's attention
    (experiments.sdpa, which raises Unavailable where that backend does not run these inputs)."""
    import torch

    q, k, v, o, lse = tensors
    if arm.lib is not None:
        from kernel_src.binding import KernelLib

        lib = KernelLib(arm.lib)
        stream = torch.cuda.current_stream().cuda_stream
        return lambda: lib.forward(q, k, v, o, lse, shape.causal, stream)
    return call(arm.sdpa, q, k, v, shape.causal, gqa=shape.kv_heads != shape.H)


def _attributes(step: AttributesStep) -> dict:
    from kernel_src.binding import KernelLib

    return KernelLib(step.lib).attributes("torch." + step.shape.dtype, step.shape.D, step.shape.causal)


def _check(step: CheckStep) -> dict:
    import torch

    from experiments.tier import check
    from kernel_src.binding import KernelLib

    lib = KernelLib(step.lib)
    stream = torch.cuda.current_stream().cuda_stream
    out = []
    for i, shape in enumerate(step.shapes):
        seed = int.from_bytes(os.urandom(4), "little")  # fresh inputs the kernel cannot see
        res = check(lambda q, k, v, o, l: lib.forward(q, k, v, o, l, shape.causal, stream), shape, "cuda", seed,
                    repeat=step.repeat, pattern=step.inputs[i] if i < len(step.inputs) else "normal")
        out.append(res.model_dump(mode="json"))
        if not res.ok:
            break
    return {"ok": all(r["ok"] for r in out) and len(out) == len(step.shapes), "checks": out}


def _paired(step: PairedStep) -> dict:
    import torch

    from experiments.tier import check, random_inputs
    from experiments.timing import paired

    shape = step.shape
    q, k, v = random_inputs(shape, "cuda", int.from_bytes(os.urandom(4), "little"))
    o, lse = torch.empty_like(q), torch.empty(shape.B, shape.H, shape.N, device="cuda")
    t = (q, k, v, o, lse)
    flush = None
    if step.l2 == "cold":  # a write twice the L2's size evicts the inputs before every timed call
        scratch = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device="cuda")
        flush = scratch.zero_
    res = paired(_arm(step.base, shape, t), _arm(step.cand, shape, t), budget_s=step.budget_s, l2=step.l2, flush=flush,
                 settle=step.settle, settle_rule=step.settle_rule, lead_ms=step.lead_ms,
                 pipelined=step.pipelined)
    d = res.model_dump(mode="json")
    if step.recheck and step.cand.lib is not None:
        # the very inputs the timing used, checked again after it (not a fresh easy draw)
        from kernel_src.binding import KernelLib

        lib = KernelLib(step.cand.lib)
        stream = torch.cuda.current_stream().cuda_stream
        rc = check(lambda q_, k_, v_, o_, l_: lib.forward(q_, k_, v_, o_, l_, shape.causal, stream), shape, "cuda",
                   0, inputs=(q, k, v))
        d["recheck"] = rc.model_dump(mode="json")
    d["tflops_base"] = shape.flops() / (res.ms_base * 1e-3) / 1e12
    d["tflops_cand"] = shape.flops() / (res.ms_cand * 1e-3) / 1e12
    return d


def _ceilings(step: CeilingsStep) -> dict:
    from experiments.calibration import measure_ceilings

    return measure_ceilings(step.dtype, step.mma_lib)


def _envelope(step: EnvelopeStep) -> dict:
    from experiments.tolerance import run_envelope

    return run_envelope(step)


def _streams(step: StreamsStep) -> dict:
    from experiments.tier import streams_check
    from kernel_src.binding import KernelLib

    lib = KernelLib(step.lib)
    return streams_check(lambda q, k, v, o, l, s: lib.forward(q, k, v, o, l, step.shape.causal, s), step.shape, "cuda",
                         step.seed or int.from_bytes(os.urandom(4), "little"), streams=step.streams, rounds=step.rounds)


# what runs each kind of step
RUN = {AttributesStep: _attributes, CheckStep: _check, PairedStep: _paired, CeilingsStep: _ceilings,
       EnvelopeStep: _envelope, StreamsStep: _streams}


def _check_failed(results: list[StepRecord]) -> bool:
    return any(r.do == "check" and r.result is not None and not r.result["ok"] for r in results)


def _skip(step, results: list[StepRecord]) -> str | None:
    if step.if_margin_at_least is None:
        return None
    last = next((r for r in reversed(results) if r.do == "paired" and r.result is not None), None)
    if last is None or last.result["margin"] < step.if_margin_at_least:
        return "margin below t_keep"
    if step.if_checks_ok and _check_failed(results):
        return "an earlier check failed"
    return None


def main(job_path: str, result_path: str, clock: dict | None = None) -> int:
    """`clock`: what the process spent before the job (a spare's imports and its wait); the job's own seconds are
    added to it (its CUDA context, each step) and written with the steps."""
    clock = dict(clock or {})
    t = time.perf_counter()
    import torch

    clock["torch_import_s"] = round(time.perf_counter() - t, 3)
    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 oracle must be fp32
    torch.backends.cudnn.allow_tf32 = False
    job = Job.model_validate_json(open(job_path).read())
    results: list[StepRecord] = []
    t = time.perf_counter()
    try:
        torch.empty(1, device="cuda")  # the CUDA context, timed on its own
        clock["cuda_context_s"] = round(time.perf_counter() - t, 3)
    except Exception as e:  # noqa: BLE001 - no usable GPU: the first step fails and says so, as it always has
        clock["cuda_context_error"] = f"{type(e).__name__}: {e}"[:300]

    def save():
        tmp = result_path + ".tmp"
        clock["process_s"] = round(time.perf_counter() - _STARTED, 3)
        with open(tmp, "w") as f:
            json.dump({"steps": [r.model_dump() for r in results], "clock": clock}, f)
        os.replace(tmp, result_path)

    for step in job.steps:
        entry = StepRecord(do=step.do, tag=step.name())
        why = _skip(step, results)
        if why is None and step.stop_if_failed and _check_failed(results):
            why = "an earlier check failed"
        if why:
            entry.skipped = why
            results.append(entry)
            save()
            continue
        t = time.perf_counter()
        try:
            entry.result = RUN[type(step)](step)
            torch.cuda.synchronize()
            entry.seconds = round(time.perf_counter() - t, 3)
        except Unavailable as e:  # torch found no kernel for a library arm: nothing ran, the context is fine
            entry.skipped = f"unavailable: {e}"
        except Exception as e:  # a launch refusal or a device fault; the latter poisons the context
            entry.error = f"{type(e).__name__}: {e}"
            entry.traceback = traceback.format_exc()[-2000:]
            results.append(entry)
            save()
            return FATAL_EXIT
        results.append(entry)
        save()
    return 0


def spare() -> int:
    """`python -m experiments.worker --spare`: the imports first, then the job named on one line of standard input
    ("JOB.json<TAB>RESULT.json"); nothing touches the GPU before it arrives (experiments.child.start_spare)."""
    import torch  # noqa: F401 - the import a job would otherwise wait for

    import experiments.tier  # noqa: F401
    import experiments.timing  # noqa: F401
    import kernel_src.binding  # noqa: F401

    imported = time.perf_counter()
    line = sys.stdin.readline().strip()
    if not line:
        return 0
    job_path, result_path = line.split("\t")
    return main(job_path, result_path, {"spare_imports_s": round(imported - _STARTED, 3),
                                        "spare_waited_s": round(time.perf_counter() - imported, 3)})


if __name__ == "__main__":
    from .child import die_with_parent

    die_with_parent()  # a SIGKILLed tool takes its worker with it: nothing keeps the GPU busy after it
    sys.exit(spare() if sys.argv[1:] == ["--spare"] else main(sys.argv[1], sys.argv[2]))
