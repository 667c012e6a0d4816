"""The check of a library on several streams at once (experiments.tier.streams_check, the worker's `streams` step),
exercised without a GPU on a model of the persistent grid's work list: each launch is a grid of CTAs that pull
items from a list (a counter and a count of CTAs done, reset by the last CTA), and the launches queued on the
streams run interleaved, one CTA step at a time, as launches on two streams may run on the GPU. With one list for
the library (what kernel_src/scheduler.cuh kept before each stream had its own) the check finds outputs wrong; with
a list per stream it passes. On the GPU the same check runs the real library (the device call of
results/2026-12-05_cpu_streams)."""
import torch

from experiments.job import Job
from experiments.problem import Shape
from experiments.tier import reference, streams_check


class Grid:
    """Launches queued on streams, run when every stream is waited for. `shared`: one work list for every stream."""

    def __init__(self, shared: bool, ctas: int = 5, rows: int = 16):
        self.shared, self.ctas, self.rows = shared, ctas, rows
        self.lists: dict = {}
        self.queued: list = []

    def launch(self, q, k, v, o, lse, stream):
        full, full_lse = reference(q, k, v, False, torch.float32)
        self.queued.append((stream, full.to(o.dtype), full_lse, o, lse))

    def sync(self):
        runs = []
        for stream, full, full_lse, o, lse in self.queued:
            B, H, N, _ = o.shape
            items = B * H * ((N + self.rows - 1) // self.rows)
            wl = self.lists.setdefault("library" if self.shared else stream, [0, 0])
            for _ in range(self.ctas):
                runs.append(self._cta(wl, items, full, full_lse, o, lse))
        self.queued = []
        while runs:  # every CTA of every launch one step at a time: the launches overlap
            runs = [r for r in runs if next(r, StopIteration) is not StopIteration]

    def _cta(self, wl, items, full, full_lse, o, lse):
        B, H, N, _ = o.shape
        tiles = (N + self.rows - 1) // self.rows
        while True:
            i = wl[0]
            wl[0] += 1
            yield
            if i >= items:
                break
            bh, t = divmod(i, tiles)
            b, h = divmod(bh, H)
            r = slice(t * self.rows, min(N, (t + 1) * self.rows))
            o[b, h, r] = full[b, h, r]
            lse[b, h, r] = full_lse[b, h, r]
            yield
        wl[1] += 1
        if wl[1] == self.ctas:  # the last CTA of the launch to finish puts the list back
            wl[0] = wl[1] = 0


def _check(grid):
    handles = iter(range(100, 200))
    return streams_check(grid.launch, Shape(B=2, H=2, N=64, D=64, dtype="bfloat16"), "cpu", 3, streams=3, rounds=4,
                         new_stream=lambda: next(handles), stream_of=lambda s: s, sync=grid.sync)


def test_a_work_list_shared_by_the_streams_is_found():
    res = _check(Grid(shared=True))
    assert not res["ok"] and res["wrong_count"] >= 1 and res["wrong"][0]["elements_nan"] > 0


def test_a_work_list_per_stream_passes():
    res = _check(Grid(shared=False))
    assert res["ok"] and res["wrong_count"] == 0 and res["rounds"] == 4 and res["streams"] == 3


def test_the_step_is_typed():
    job = Job.model_validate({"steps": [{"do": "streams", "lib": "/x/fa.so", "shape": {"B": 1, "H": 2, "N": 64, "D": 64},
                                         "streams": 4, "rounds": 8}]})
    assert job.steps[0].do == "streams" and job.steps[0].rounds == 8
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError):
        Job.model_validate({"steps": [{"do": "streams", "lib": "x", "shape": {"B": 1, "H": 2, "N": 64, "D": 64},
                                       "streams": 1}]})
