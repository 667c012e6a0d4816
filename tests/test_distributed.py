"""Screens and sweeps on a Dask cluster, run here on a local cluster of two CPU processes
(one thread each) with the synthetic bench and with a replay of the H200's N=8192 screen. The
outcomes must equal the one-process path's, and a worker that dies under a candidate re-queues it
once and is recorded; a second death is that candidate's outcome, never a lost run."""
import json
import logging
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from typer.testing import CliRunner

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from agent.cli import app  # noqa: E402
from agent.distributed import CONFIG, DaskBench, DistributedError, check_one_model  # noqa: E402
from agent.loop import SearchOptions, run_search, run_summary  # noqa: E402
from agent.levers import candidate, get  # noqa: E402
from experiments.problem import Shape  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from store import queries as q  # noqa: E402
from store.db import open_db  # noqa: E402

from fakes import DyingSimBench, NoisyWorkerSimBench, SimBench, SlowSimBench, SpillingSimBench  # noqa: E402
from recorded import N8192_MARGINS as N8192  # noqa: E402
from recorded import RESULTS as ROOT  # noqa: E402
from recorded import SCREEN_SEED as BEST  # noqa: E402
from recorded import load_script  # noqa: E402
from recorded import unpack_recording as _recording  # noqa: E402

SHAPE = Shape(B=2, H=16, N=8192, D=128)
FINAL = Knobs.parse_assignments([a for a in BEST if a != "--seed-knob"])  # mma/pad/cp_async/ex2


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """Two worker processes, one thread each, for the whole module; like every test here they see a
    database and build cache of their own, never the user's (the autouse `hermetic` comes later)."""
    home = tmp_path_factory.mktemp("workers")
    with dask.config.set(CONFIG):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, resources={"GPU": 1},
                                           dashboard_address=None, memory_limit=0, silence_logs=logging.ERROR,
                                           env={"FA5090_DB": str(home / "fa5090.db"), "FA5090_CACHE": str(home / "cache")})
        c = distributed.Client(cluster)
        yield c
        c.close()
        cluster.close()


def test_gpus_starts_one_pinned_worker_per_gpu(tmp_path_factory, tmp_path):
    """`--gpus 2` on the replay: the local cluster of two Nannies (CUDA_VISIBLE_DEVICES 0 and 1 there).
    First in the file, before the module's cluster starts: never more than two workers at a time here."""
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_margins" / "n8192_artifacts.tgz",
                     "n8192_artifacts/run-1/recording.jsonl")
    db = tmp_path / "g.db"
    res = CliRunner().invoke(app, ["run", *BEST, "--seqlen", "8192", "--time-budget", "2.0", "--screen", "--budget", "4",
                                   "--no-profile", "--replay", str(rec), "--db", str(db), "--gpus", "2"])
    assert res.exit_code == 0, res.output
    rows = json.loads(CliRunner().invoke(app, ["history", "--json", "--db", str(db)]).output)
    levers = {r["lever"]: (r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] == "lever"}
    assert len(levers) == 4 and all(N8192[k] == v for k, v in levers.items())
    conn = open_db(db)
    seen = {json.loads(p)["device"]["cuda_visible_devices"] for (p,) in
            conn.execute("select payload from measurements where kind = 'paired'").fetchall()}
    assert seen <= {"0", "1"} and seen


def _screen(tmp_path, name, bench):
    db = open_db(tmp_path / f"{name}.db")
    rid = run_search(bench, db, shape=SHAPE, seed=FINAL, artifacts=tmp_path / f"{name}_art",
                     options=SearchOptions(screen=True, budget=30))
    levers = [e for e in q.history(db, rid) if e["kind"] == "lever"]
    return db, rid, levers


def _table(levers):
    return {e["lever"]: (e["outcome"], e["margin"]) for e in levers}


def _device(db, exp_id):
    rows = db.execute("select payload from measurements where experiment_id = ? and kind = 'paired'", [exp_id]).fetchall()
    return [json.loads(r[0]).get("device") for r in rows]


def test_a_screen_on_two_workers_equals_the_one_process_screen(tmp_path, client):
    _, _, alone = _screen(tmp_path, "alone", SimBench())
    bench = DaskBench(client, SimBench, SimBench(), null_repeats=5)
    db, rid, spread = _screen(tmp_path, "spread", bench)
    assert len(alone) >= 15 and _table(spread) == _table(alone)
    assert [e["lever"] for e in spread] == [e["lever"] for e in alone]  # the loop's own order
    devices = [d for e in spread for d in _device(db, e["id"]) if d]
    assert {d["worker"] for d in devices} == set(bench.workers) and len(bench.workers) == 2
    # each pair judged with the A/A null of the worker that measured it, recorded beside it
    assert all(d["null_repeats"] == 5 and len(d["aa_margins"]) == 5 and d["t_keep"] == 1 + d["t_noise"] for d in devices)
    assert not bench.requeued and not bench._ahead  # every evaluation started ahead was the one the loop asked for
    assert client.get_metadata(["fa5090-search", "gpu"]) == {w: "NVIDIA H200 (simulated)" for w in bench.workers}
    # a keep's replicate ran on the other worker, judged with that worker's own null (recorded in the payload)
    replicated = [(e, d) for e in spread for d in _device(db, e["id"]) if d and "replicate" in d]
    kept = [e["lever"] for e in alone if e["outcome"] == "KEPT"]
    assert kept and {e["lever"] for e, _ in replicated} >= set(kept)
    for e, d in replicated:
        r = d["replicate"]
        assert r["worker"] != d["worker"] and not r.get("same_worker")
        assert r["null_repeats"] == 5 and r["t_keep"] == 1 + r["t_noise"] and len(r["aa_margins"]) == 5
        said = f"replicate on {r['worker']} " if e["outcome"] == "KEPT" else f"did not replicate in a fresh process on {r['worker']} "
        assert said in e["detail"] and f"its t_keep {r['t_keep']:.4f}" in e["detail"]


def test_a_screen_on_two_workers_measures_the_singles_first_in_the_one_process_order(tmp_path, client):
    """The screen fans out the loop's own order, every single lever before any compound."""
    _, _, alone = _screen(tmp_path, "alone", SpillingSimBench())
    bench = DaskBench(client, SpillingSimBench, SpillingSimBench(), null_repeats=5)
    db, rid, spread = _screen(tmp_path, "spread", bench)
    order = [(e["kind"], e["lever"]) for e in q.history(db, rid) if e["seq"] is not None]
    assert "compound" in {k for k, _ in order} and [k for k, _ in order] == sorted((k for k, _ in order), key=lambda k: k == "compound")
    assert [e["lever"] for e in spread] == [e["lever"] for e in alone] and _table(spread) == _table(alone)
    assert not bench.requeued and not bench._ahead


def test_with_one_worker_alive_a_keep_s_replicate_runs_on_the_same_worker_and_says_so(tmp_path, client):
    _, _, alone = _screen(tmp_path, "alone", SimBench())
    bench = DaskBench(client, SimBench, SimBench(), null_repeats=5)
    alive, home = bench._alive(), bench.home
    bench._alive = lambda: {home: alive[home]}  # the other worker is gone for this run
    db, rid, spread = _screen(tmp_path, "one", bench)
    assert _table(spread) == _table(alone)
    replicated = [(e, d) for e in spread for d in _device(db, e["id"]) if d and "replicate" in d]
    assert any(e["outcome"] == "KEPT" for e, _ in replicated)
    for e, d in replicated:
        assert d["worker"] == d["replicate"]["worker"] == home and d["replicate"]["same_worker"]
        assert f"no other worker alive: the replicate ran on {home} too" in e["detail"]


def test_a_replicate_is_judged_with_the_t_keep_of_the_worker_that_measured_it():
    from experiments.lab import decide
    from experiments.outcome import Outcome

    sim = SimBench()
    base, cand = FINAL, candidate(get("q_from_smem"), FINAL)[0]
    ev = sim.evaluate(base, cand, t_keep=1.01, t_noise=0.01, replicate=False)
    assert ev.outcome is Outcome.KEPT and ev.detail.endswith("replicate pending") and ev.confirm_job is None
    confirm, built = sim.replicate(base, cand), ev.build
    c = confirm.value("paired")["margin"]
    assert decide(ev.job, built, t_keep=1.01, t_noise=0.01, confirm_job=confirm).outcome is Outcome.KEPT
    strict = decide(ev.job, built, t_keep=1.01, t_noise=0.01, confirm_job=confirm, replicate={"worker": "1", "t_keep": c + 0.01})
    assert strict.outcome is Outcome.NULL and f"on 1 ({c:.4f} < its t_keep {c + 0.01:.4f})" in strict.detail
    lax = decide(ev.job, built, t_keep=1.01, t_noise=0.01, confirm_job=confirm, replicate={"worker": "1"})
    assert lax.outcome is Outcome.KEPT and "its t_keep 1.0100" in lax.detail  # no null of its own: the run's


def test_a_task_longer_than_the_client_s_poll_is_waited_for(tmp_path, client):
    """A worker's answer that takes longer than one 2 s poll (every real seed check does) is
    waited for, not raised as a TimeoutError: on the H200 `--gpus 2` died there, after experiment 0
    (results/2026-11-30_h200_wgmma_first_battery)."""
    bench = DaskBench(client, SlowSimBench, SimBench(), null_repeats=2)
    db = open_db(tmp_path / "slow.db")
    rid = run_search(bench, db, shape=SHAPE, seed=FINAL, artifacts=tmp_path / "slow_art",
                     options=SearchOptions(screen=True, budget=2))
    assert q.get_run(db, rid)["status"] != "error"
    assert len([e for e in q.history(db, rid) if e["kind"] == "lever"]) == 2


def test_a_killed_worker_requeues_its_candidate_once_and_a_second_death_is_its_outcome(tmp_path, client):
    _, _, alone = _screen(tmp_path, "alone", SimBench())
    once = candidate(get("q_from_smem"), FINAL)[0].key()
    always = candidate(get("wide_kv_tile"), FINAL)[0].key()
    make = partial(DyingSimBench, once, str(tmp_path / "died_once"))
    bench = DaskBench(client, make, SimBench(), null_repeats=5)
    db, rid, spread = _screen(tmp_path, "dying", bench)
    assert q.get_run(db, rid)["status"] != "error"
    row = next(e for e in spread if e["lever"] == "q_from_smem")
    assert _table(spread) == _table(alone)  # the re-queued candidate measured as if nothing happened
    assert "re-queued once after worker" in row["detail"] and _device(db, row["id"])[0]["requeued"]
    assert [r["what"] for r in bench.requeued] == [f"evaluate {candidate(get('q_from_smem'), FINAL)[0].label()}"]

    bench = DaskBench(client, partial(DyingSimBench, always, str(tmp_path / "died"), always=True), SimBench(),
                      null_repeats=5)
    db, rid, spread = _screen(tmp_path, "dead", bench)
    row = next(e for e in spread if e["lever"] == "wide_kv_tile")
    assert row["outcome"] == "CRASH" and "died twice" in row["detail"]
    assert {k: v for k, v in _table(spread).items() if k != "wide_kv_tile"} == \
           {k: v for k, v in _table(alone).items() if k != "wide_kv_tile"}
    assert len(bench.requeued) == 1 and q.get_run(db, rid)["status"] != "error"  # re-queued once, then its outcome
    client.wait_for_workers(2, timeout=60)  # both nannies restart their workers before the next test


def test_a_recorded_cluster_screen_replays_in_one_process_with_each_device_s_null(tmp_path, client):
    """Worker "1" is noisier (t_noise 3%): its pairs are judged with its own null, recorded beside
    each pair, and a replay of the recording in one process decides with the same nulls."""
    from agent.bench import Recorder, Replay

    rec = tmp_path / "recording.jsonl"
    bench = DaskBench(client, NoisyWorkerSimBench, SimBench(), null_repeats=5)
    db, rid, spread = _screen(tmp_path, "recorded", Recorder(bench, rec))
    nulls = {d["worker"]: round(d["t_noise"], 4) for e in spread for d in _device(db, e["id"]) if d}
    assert nulls["1"] > 0.02 > nulls["0"]
    crossed = [d for e in spread for d in _device(db, e["id"]) if d and "replicate" in d]
    assert crossed and all(d["replicate"]["worker"] != d["worker"] for d in crossed)  # replicates on the other GPU
    _, _, replayed = _screen(tmp_path, "replayed", Replay(rec))
    assert _table(replayed) == _table(spread)
    assert [e["detail"] for e in replayed] == [e["detail"] for e in spread]  # each replicate judged as recorded


def test_the_h200_screen_replayed_on_two_workers_through_the_cli(tmp_path_factory, tmp_path, client):
    """The N=8192 margin table of the H200 (test_margins), each worker answering from its own copy of
    the recording: the same table as the one-process replay."""
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_margins" / "n8192_artifacts.tgz",
                     "n8192_artifacts/run-1/recording.jsonl")
    db = tmp_path / "m.db"
    res = CliRunner().invoke(app, ["run", *BEST, "--seqlen", "8192", "--time-budget", "2.0", "--screen", "--budget", "30",
                                   "--no-profile", "--replay", str(rec), "--db", str(db),
                                   "--scheduler", client.scheduler.address])
    assert res.exit_code == 0, res.output
    rows = json.loads(CliRunner().invoke(app, ["history", "--json", "--db", str(db)]).output)
    assert {r["lever"]: (r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] == "lever"} == N8192


def test_a_sweep_on_two_workers_equals_the_one_process_sweep(client):
    from agent.sweep import draw, sweep
    from kernel_src.arch import TABLE

    configs = draw(8, 3, SHAPE, TABLE["sm_90"], Knobs())
    alone = sweep(SimBench(), SHAPE, configs)
    spread = sweep(DaskBench(client, SimBench, SimBench()), SHAPE, configs)
    assert [{k: v for k, v in r.items() if k != "device"} for r in spread] == alone
    assert all(r["device"]["worker"] for r in spread if r["status"] == "timed")


def _random(tmp_path, name, bench, budget=12, rng_seed=3):
    db = open_db(tmp_path / f"{name}.db")
    rid = run_search(bench, db, shape=SHAPE, seed=Knobs(), artifacts=tmp_path / f"{name}_art",
                     options=SearchOptions(strategy="random", rng_seed=rng_seed, budget=budget))
    return db, rid, [e for e in q.history(db, rid) if e["kind"] == "sample"]


def _decisions(rows):
    return [(e["seq"], e["base_key"], e["knob_key"], e["outcome"], e["margin"]) for e in rows]


def test_random_on_two_workers_decides_as_one_process_and_discards_what_a_keep_superseded(tmp_path, client):
    """Random search's next draws measured at once on two workers, taken in the draws' order: the
    same experiments, keeps, margins and budget as one process with the same seed; after a keep the
    draw measured ahead against the old best is discarded (no experiment, no budget) and measured
    again against the new best, as one process measures it next."""
    db1, rid1, alone = _random(tmp_path, "alone", SimBench())
    bench = DaskBench(client, SimBench, SimBench(), null_repeats=0)
    db2, rid2, spread = _random(tmp_path, "spread", bench)
    assert _decisions(spread) == _decisions(alone) and len(spread) == 12  # the budget, spent alike
    kept = [e for e in alone if e["outcome"] == "KEPT"]
    assert 1 <= len(kept) < len(alone)  # a keep before the end of the run: something to supersede
    assert {d["worker"] for e in spread for d in _device(db2, e["id"]) if d} == set(bench.workers)
    measured = [d for d in bench.discarded if d["measured"]]
    assert measured and not bench._ahead  # every evaluation started ahead was asked for, or discarded
    by_seq = {e["knob_key"]: e for e in spread}
    keeps = {e["knob_key"] for e in kept}
    for d in bench.discarded:  # never recorded against the base it was measured on ...
        assert not any(e["base_key"] == d["base"] and e["knob_key"] == d["cand"] for e in spread)
    again = [d for d in measured if d["cand"] in by_seq]  # ... but against the new best, where one process measured it
    assert again and all(by_seq[d["cand"]]["base_key"] != d["base"] and by_seq[d["cand"]]["base_key"] in
                         keeps for d in again)
    s1, s2 = run_summary(db1, rid1), run_summary(db2, rid2)
    assert s1["experiments"] == s2["experiments"] == 12 and s1["kept"] == s2["kept"]
    assert s1["speculation"] is None and s2["speculation"]["measured"] == len(measured)
    assert s2["speculation"]["discarded"] == len(bench.discarded)
    assert [e["kind"] for e in q.history(db1, rid1)] == [e["kind"] for e in q.history(db2, rid2)]


def _agent(tmp_path, name, bench, budget=12):
    # eager nulls in both: a cluster's evaluations ahead are judged by the null in force, so a fanned-out run
    # never owes one (agent.loop._after_keep), and the one-process run it is compared with must not either
    db = open_db(tmp_path / f"{name}.db")
    rid = run_search(bench, db, shape=SHAPE, seed=Knobs(), artifacts=tmp_path / f"{name}_art",
                     options=SearchOptions(budget=budget, lazy_null=False))
    return db, rid, [e for e in q.history(db, rid) if e["seq"]]


def test_the_agent_on_two_workers_measures_its_top_proposals_ahead_and_decides_as_one_process(tmp_path, client):
    """The agent fans out too: its top two proposals measured at once, one per worker; the loop
    still asks after every outcome and uses a measurement only when it asks for that candidate against
    that best with that null. Same experiments, predictions, outcomes, margins and keeps as one process;
    what was measured ahead and never asked for is dropped, counted, and never recorded."""
    db1, rid1, alone = _agent(tmp_path, "agent_alone", SimBench())
    bench = DaskBench(client, SimBench, SimBench(), null_repeats=0)
    db2, rid2, spread = _agent(tmp_path, "agent_spread", bench)
    assert _decisions(spread) == _decisions(alone) and len(alone) >= 4
    assert [(e["predicted_lo"], e["predicted_hi"], e["lever"]) for e in spread] == \
        [(e["predicted_lo"], e["predicted_hi"], e["lever"]) for e in alone]
    assert {d["worker"] for e in spread for d in _device(db2, e["id"]) if d} == set(bench.workers)
    assert not bench._ahead  # asked for, or dropped at a keep or at the end
    for d in bench.discarded:  # a dropped evaluation is in no experiment row against the base it was measured on
        assert not any(e["base_key"] == d["base"] and e["knob_key"] == d["cand"] for e in spread)
    s1, s2 = run_summary(db1, rid1), run_summary(db2, rid2)
    assert s1["kept"] == s2["kept"] and s1["speculation"] is None
    assert (s2["speculation"] or {}).get("discarded", 0) == len(bench.discarded)


def test_a_recorded_two_worker_random_run_replays_in_one_process(tmp_path, client):
    """Recorded on two workers, worker "1" noisier (its own null judges its pairs): a replay of the
    recording in one process makes the same decisions, discarded evaluations never in it."""
    from agent.bench import Recorder, Replay

    rec = tmp_path / "recording.jsonl"
    bench = DaskBench(client, NoisyWorkerSimBench, SimBench(), null_repeats=5)
    db, rid, spread = _random(tmp_path, "recorded", Recorder(bench, rec), budget=10, rng_seed=5)
    assert len(spread) == 10 and bench.discarded
    keys = [json.loads(line)["key"] for line in rec.read_text().splitlines()]
    assert sum("evaluate" in k for k in keys) == 10  # only what the loop asked for
    rdb, rrid, replayed = _random(tmp_path, "replayed", Replay(rec), budget=10, rng_seed=5)
    assert _decisions(replayed) == _decisions(spread)
    assert run_summary(rdb, rrid)["kept"] == run_summary(db, rid)["kept"]


def test_the_h200_random_run_replayed_on_two_workers_through_the_cli(tmp_path_factory, tmp_path, client):
    """The H200's random run (N=8192, twenty draws, two keeps) replayed with --scheduler: each worker
    answers from its own copy of the recording, the draws measured ahead of a keep are not in it
    (one GPU never measured them) and are discarded unasked; the decisions are the one-process replay's."""
    rec = _recording(tmp_path_factory, ROOT / "2026-11-30_h200_agent_vs_random" / "call1_artifacts.tgz",
                     "random_artifacts/run-1/recording.jsonl")

    def replay(db, *more):
        res = CliRunner().invoke(app, ["run", "--seqlen", "8192", "--replay", str(rec), "--db", str(db), *more])
        assert res.exit_code == 0, res.output
        rows = json.loads(CliRunner().invoke(app, ["history", "--json", "--db", str(db)]).output)
        return res.output, [(r["seq"], r["base_key"], r["knob_key"], r["outcome"], r["margin"]) for r in rows]

    _, alone = replay(tmp_path / "alone.db")
    out, spread = replay(tmp_path / "spread.db", "--scheduler", client.scheduler.address)
    assert spread == alone and sum(r[3] == "KEPT" for r in spread) == 2
    assert "measured against a superseded best were discarded" in out


def test_refusals_in_one_sentence(client):
    sim = SimBench().device()
    other = sim.model_copy(update={"name": "NVIDIA H100 80GB HBM3"})
    with pytest.raises(DistributedError, match="different models .*NVIDIA H100.*NVIDIA H200"):
        check_one_model({"gpu0": sim, "gpu1": other})
    res = CliRunner().invoke(app, ["run", "--gpus", "2", "--budget", "3", "--strategy", "ladder"])
    assert res.exit_code == 2 and "--screen" in res.output and "--strategy random" in res.output
    assert "agent's top proposals" in res.output
    res = CliRunner().invoke(app, ["run", "--gpus", "2", "--budget", "3", "--strategy", "tpe"])
    assert res.exit_code == 2 and "TPE's next draw depends on the outcome" in res.output
    res = CliRunner().invoke(app, ["run", "--screen", "--gpus", "2", "--scheduler", "tcp://127.0.0.1:1"])
    assert res.exit_code == 2 and "one of them" in res.output


def test_one_gpu_imports_no_dask():
    code = ("import sys, agent.cli, agent.loop, agent.sweep, agent.bench, agent.trial; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr[-500:]


def test_a_worker_finds_a_build_by_its_content_key_or_asks_for_the_bytes(tmp_path):
    from agent.distributed import LibraryMissing, _place
    from experiments.build import BuildResult
    from experiments.lab import Lab
    from kernel_src.arch import TABLE

    class Worker:  # a GPU worker's bench as far as placing libraries goes
        lab = Lab(SHAPE, TABLE["sm_90"], tmp_path / "worker_cache")

    so = b"\x7fELF a library"
    client_so = tmp_path / "client_cache" / "build" / "k1" / "fa.so"
    built = BuildResult(key="k1", ok=True, library=str(client_so), log="", seconds=0.0, cached=False)
    with pytest.raises(LibraryMissing):  # another host: not at the client's path, not in its own cache
        _place(Worker, [(FINAL, built, len(so), None)])
    _place(Worker, [(FINAL, built, len(so), so)])  # the bytes sent once land in the host's cache
    here = tmp_path / "worker_cache" / "build" / "k1" / "fa.so"
    assert here.read_bytes() == so and Worker.lab.library(FINAL) == str(here)
    _place(Worker, [(FINAL, built, len(so), None)])  # found there next time
    client_so.parent.mkdir(parents=True)
    client_so.write_bytes(so)
    _place(Worker, [(FINAL, built, len(so), None)])  # a shared file system: read in place
    assert Worker.lab.library(FINAL) == str(client_so)



def _sim_campaign(tmp_path, client, monkeypatch, worker_bench=None):
    """`tune` over a Llama-like config at N512 and N2048 (budget 4) as a function of the database and extra options,
    with GpuBench's place on the client and each worker's bench simulated (SimBench, or `worker_bench`)."""
    from contextlib import contextmanager

    import agent.bench
    import agent.distributed
    from fakes import sim_worker_bench

    class Sim:  # GpuBench's place on the client: SimBench instances, never taken for a real GPU's bench
        require_device = staticmethod(lambda: None)

        def __new__(cls, shape, cache, **kw):
            return SimBench()

    @contextmanager
    def this_cluster(gpus, scheduler):
        assert gpus == 2 and scheduler is None
        yield client

    monkeypatch.setattr(agent.bench, "GpuBench", Sim)
    monkeypatch.setattr(agent.distributed, "open_cluster", this_cluster)
    monkeypatch.setattr(agent.distributed, "gpu_worker_bench", worker_bench or sim_worker_bench)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "num_attention_heads": 32, "num_key_value_heads": 8,
                               "head_dim": 128, "torch_dtype": "bfloat16"}))

    def campaign(db, *extra):
        res = CliRunner().invoke(app, ["tune", "--config", str(cfg), "--seqlen", "512", "--seqlen", "2048", "--budget", "4",
                                       "--no-profile", "--db", str(db), *extra])
        assert res.exit_code == 0, res.output
        conn = open_db(db)
        return conn, [[(e["lever"], e["outcome"], round(e["margin"], 6)) for e in q.history(conn, r["id"]) if e["seq"]]
                      for r in q.runs(conn)]
    return campaign


def test_tune_with_gpus_runs_each_search_on_the_cluster_and_decides_as_one_process(tmp_path, client, monkeypatch):
    """`tune --gpus 2`: one cluster for the campaign, each bucket's search a DaskBench on it (its top
    proposals measured ahead, one per worker), the problems one after another; the same runs and
    decisions as the campaign in one process. The workers' benches are SimBench (fakes.sim_worker_bench)."""
    campaign = _sim_campaign(tmp_path, client, monkeypatch)
    _, alone = campaign(tmp_path / "alone.db")
    conn, spread = campaign(tmp_path / "spread.db", "--gpus", "2")
    assert spread == alone and len(spread) == 2 and all(spread)
    assert [r["problem_key"] for r in q.runs(conn)] == ["B1-H32-Hkv8-N512-D128-bfloat16-causal",
                                                        "B1-H32-Hkv8-N2048-D128-bfloat16-causal"]
    workers = {json.loads(p)["device"]["worker"] for (p,) in
               conn.execute("select payload from measurements where kind = 'paired'").fetchall() if json.loads(p).get("device")}
    assert len(workers) == 2


def test_a_worker_killed_mid_campaign_requeues_its_candidate_and_nothing_is_lost_or_doubled(tmp_path, client, monkeypatch):
    """`tune --gpus 2` where the worker that takes one candidate of the second problem's search dies (os._exit, as an
    OOM kill or a lost node ends a Dask worker) once: the candidate is measured again on a worker, the campaign
    decides as the one-process campaign did, and each run records each experiment once."""
    campaign = _sim_campaign(tmp_path, client, monkeypatch)
    conn, alone = campaign(tmp_path / "alone.db")
    second = q.runs(conn)[1]
    dies_on = next(Knobs.parse(e["knobs"]).key() for e in q.history(conn, second["id"]) if e["seq"] == 2)
    marker = tmp_path / "died_once"

    def dying_worker_bench(shape, budget_s, l2, profile):  # the second problem's benches only
        return DyingSimBench(dies_on, str(marker)) if shape.N == 2048 else SimBench()

    campaign = _sim_campaign(tmp_path, client, monkeypatch, partial(dying_worker_bench))
    conn, spread = campaign(tmp_path / "spread.db", "--gpus", "2")
    assert marker.exists()  # a worker died on it
    assert spread == alone and all(r["status"] != "error" for r in q.runs(conn))
    # nothing doubled (one experiment a sequence number, one first pair each), as the two-GPU call will read its own
    check = load_script(ROOT / "2026-12-03_cpu_two_gpus_plan" / "campaign_check.py")
    rows = check.check(conn)
    assert [(x["problem"], x["requeued"]) for x in rows] == [("B1-H32-Hkv8-N512-D128-bfloat16-causal", []),
                                                             ("B1-H32-Hkv8-N2048-D128-bfloat16-causal", [2])]
    assert all(not x["doubled"] and not x["two_first_pairs"] and not x["crashed"] for x in rows)
    assert check.main([str(tmp_path / "spread.db")]) == 0
    client.wait_for_workers(2, timeout=60)  # the nanny restarts its worker before the next test
