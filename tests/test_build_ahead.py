"""The background build (experiments.lab.Lab.build_ahead): the next step's candidates compile at low priority while
the GPU measures; a later build of the same knobs takes them finished, a later build of other knobs stops it first,
and a stopped build leaves nothing that reads as a cache hit. Real nvcc and ninja, no GPU."""
import time

import pytest

from experiments.build import nvcc_path
from experiments.lab import Lab
from experiments.problem import Shape
from kernel_src.arch import TABLE
from kernel_src.knobs import Knobs

SHAPE = Shape(B=1, H=2, N=256, D=64)
try:
    nvcc_path()
    HAVE_NVCC = True
except Exception:  # noqa: BLE001
    HAVE_NVCC = False
pytestmark = pytest.mark.skipif(not HAVE_NVCC, reason="nvcc is not installed")


def _lab(cache):
    lab = Lab(SHAPE, TABLE["sm_80"], cache)
    lab.cache_dir = cache  # Lab builds under <cache_dir>/build
    return lab


def _wait(lab, until, timeout=300):
    t0 = time.monotonic()
    while not until():
        assert time.monotonic() - t0 < timeout
        time.sleep(0.05)


def test_a_build_ahead_is_taken_by_the_next_build(shared_cache):
    lab = _lab(shared_cache)
    k = Knobs()
    lab.build_ahead([k, k])
    _wait(lab, lambda: lab.ahead_log)
    got = lab.build([k])[k.key()]
    assert got.ok and got.ahead  # finished in the background: the foreground ran no ninja
    assert lab.ahead_log[0]["built"] == 1 and not lab.ahead_log[0]["stopped"]
    lab.build_ahead([k])  # already built: nothing starts
    assert len(lab.ahead_log) == 1


def test_what_then_names_is_built_after_them(shared_cache):
    lab = _lab(shared_cache)
    first, after = Knobs(), Knobs().replace(layout="pad")
    lab.build_ahead([first], then=lambda: [first, after])
    _wait(lab, lambda: len(lab.ahead_log) == 2)
    assert lab._libs[first.key()].ahead  # a library
    assert lab._light[after.key()].ahead and after.key() not in lab._libs  # what `then` names: a figure build
    assert [(e["n"], e["light"]) for e in lab.ahead_log] == [(1, False), (1, True)]


def test_a_figure_build_reads_as_the_library_does(shared_cache):
    """The figures of a candidate not yet built as a library come from its figure build (device code, the
    problem's mask mode only): the same registers, spills and occupancy as its library's."""
    from profiler.static import figures

    lab = _lab(shared_cache)
    k = Knobs.parse_assignments(["compute=mma", "layout=swizzle", "staging=cp_async"])
    light = lab.build_figures([k])[k.key()]
    assert light.ok and light.library.endswith("fa.cubin") and k.key() not in lab._libs
    full = lab.build([k])[k.key()]
    read = lambda b: figures(b.log, k, TABLE["sm_80"], SHAPE.D, SHAPE.causal)
    assert read(light) == read(full) and read(full).registers > 0
    assert lab.build_figures([k])[k.key()] is full  # once the library exists, it is what is read


def test_a_paused_build_is_stopped_until_continued(tmp_path):

    from experiments.build import pause_build, process_tree

    lab = _lab(tmp_path)
    lab.build_ahead([Knobs.parse_assignments(["compute=mma", "layout=pad"])])
    _wait(lab, lambda: lab._ahead_proc is not None and len(process_tree(lab._ahead_proc.pid)) > 2)
    proc = lab._ahead_proc
    pause_build(proc, True)
    def states():
        out = []
        for pid in process_tree(proc.pid):
            try:
                out.append(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0])
            except OSError:  # gone meanwhile
                pass
        return out

    # a signal takes effect when its process next runs: each stopped, or a compiler's finished child its stopped
    # parent has not reaped yet (a zombie uses no CPU)
    _wait(lab, lambda: all(st in ("T", "t", "Z") for st in states()), timeout=5)
    assert process_tree(proc.pid)[0] == proc.pid
    pause_build(proc, False)
    _wait(lab, lambda: all(st not in ("T", "t") for st in states()), timeout=5)
    lab.close()


def test_a_foreground_build_of_other_knobs_stops_the_background_one(tmp_path):
    lab = _lab(tmp_path)
    ahead, wanted = Knobs(), Knobs().replace(layout="pad")
    lab.build_ahead([ahead])
    _wait(lab, lambda: lab._ahead_proc is not None)
    got = lab.build([wanted])[wanted.key()]
    assert got.ok and not got.ahead
    _wait(lab, lambda: lab.ahead_log)
    assert lab.ahead_log[0]["stopped"] and lab.ahead_log[0]["built"] == 0
    assert ahead.key() not in lab._libs  # a stopped build is no result: it is built again where it is asked for
    assert not list((tmp_path / "build").glob(f"{lab.spec(ahead).key()}/fa.so"))
    lab.close()


def test_the_search_builds_each_candidates_next_step_ahead(tmp_path):
    """The loop asks the bench to build, before each experiment, the moves that would follow were that candidate
    kept (its single levers, then the compounds their figures call for; the seed's before the first null): every
    candidate a step's figures are read from was asked for ahead."""
    from fakes import SimBench

    from agent.loop import SearchOptions, run_search
    from store import queries as q
    from store.db import open_db

    class Watching(SimBench):
        def __init__(self):
            super().__init__()
            self.ahead, self.static_asked = [], []

        def build_ahead(self, knobs, then=None):
            self.ahead.append({k.key() for k in knobs})
            if then is not None:  # the compounds their figures call for, asked after them
                self.ahead[-1] |= {k.key() for k in then(SimBench.static(self, knobs))}

        def static(self, knobs):
            self.static_asked.append({k.key() for k in knobs})
            return super().static(knobs)

    bench = Watching()
    seed = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])
    db = open_db(tmp_path / "a.db")
    rid = run_search(bench, db, shape=Shape(B=2, H=16, N=8192, D=128), seed=seed, artifacts=tmp_path / "art",
                     options=SearchOptions(budget=6))
    exps = [e for e in q.history(db, rid) if e["seq"] is not None]
    assert len(bench.ahead) == len(exps) + 1  # the seed's, then one per experiment
    assert any(e["outcome"] == "KEPT" for e in exps)
    asked = set().union(*bench.ahead)
    # every candidate the figures step built, its compounds included, was asked for ahead
    assert bench.static_asked and all(s <= asked for s in bench.static_asked)


def test_random_search_builds_its_next_draws_ahead(tmp_path):
    """A sampler reads no figures: while a draw is measured, the draws it will make next (if this one is not kept)
    are asked for ahead, and they are the ones it then draws."""
    from fakes import SimBench

    from agent.loop import SearchOptions, run_search
    from store import queries as q
    from store.db import open_db

    class Watching(SimBench):
        def __init__(self):
            super().__init__()
            self.ahead = []

        def build_ahead(self, knobs, then=None):
            self.ahead.append([k.key() for k in knobs])

    bench = Watching()
    db = open_db(tmp_path / "r.db")
    rid = run_search(bench, db, shape=Shape(B=2, H=16, N=2048, D=128), seed=Knobs(), artifacts=tmp_path / "art",
                     options=SearchOptions(budget=8, strategy="random", rng_seed=3))
    drawn = [e["knob_key"] for e in q.history(db, rid) if e["seq"] is not None]
    asked = [a for a in bench.ahead if a]
    assert len(asked) == len(drawn)  # one request per experiment (the last one's draws are never made)
    hits = sum(drawn[i + 1] == a[0] for i, a in enumerate(asked[:-1]))
    assert hits >= len(drawn) - 1 - sum(e["outcome"] == "KEPT" for e in q.history(db, rid) if e["seq"] is not None)


@pytest.mark.parametrize("quiet", [False, True])
def test_a_timed_job_stops_background_builds_only_with_quiet_pairs(tmp_path, monkeypatch, quiet):
    """Beside pipelined pairs a background build runs on (results/2026-12-03_h200_builds_beside_pairs); with
    quiet_pairs no build may start while a job times a pair, and may again once the job is done."""
    import experiments.lab as lab_mod
    from experiments.job import PairedStep

    lab = Lab(SHAPE, TABLE["sm_80"], tmp_path, quiet_pairs=quiet)
    seen = []
    monkeypatch.setattr(lab_mod, "run_group", lambda *a, **k: (seen.append(lab._may_build.is_set()), (0, "", ""))[1])
    arm = {"lib": "/nonexistent.so"}
    lab.run_job([PairedStep(base=arm, cand=arm, shape=SHAPE, budget_s=0.1)], timeout=5)
    assert seen == [not quiet] and lab._may_build.is_set()
