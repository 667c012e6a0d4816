"""`tune`: a model's attention shapes as one campaign of `run` searches, one per dispatch N bucket, in one
database, resumable, ending in the PyTorch package. The bench is the synthetic SimBench (tests/fakes.py):
nothing here is a measurement; what is tested is which problems are searched, where, how a second
invocation resumes, and that the exported table covers the campaign's buckets."""
import json

import pytest
from fakes import SimBench
from typer.testing import CliRunner

from agent.campaign import ConfigError, from_hf_config, plan, read_shapes
from experiments.problem import Shape
from store import queries as q
from store.db import open_db

runner = CliRunner()

# a Llama-3-8B-style config: grouped-query attention, 32 query heads over 8 K/V heads, D 128, bf16
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 128, "torch_dtype": "bfloat16", "num_hidden_layers": 32}
# three buckets: N<=512 (256, 512), 1025-2048 (1100, 2048), 2049-4096 (3000)
SEQLENS = (256, 512, 1100, 2048, 3000)
SEARCHED = ["B4-H32-Hkv8-N512-D128-bfloat16-causal", "B4-H32-Hkv8-N2048-D128-bfloat16-causal",
            "B4-H32-Hkv8-N3000-D128-bfloat16-causal"]


def _config(tmp_path, **change) -> str:
    cfg = {k: v for k, v in {**LLAMA, **change}.items() if v is not None}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return str(tmp_path / "config.json")


class Sim:
    """GpuBench's place in the command: SimBench instances (so agent.distributed never takes them for
    a real GPU's bench), the shapes asked for, and an optional Ctrl-C at one problem's Nth evaluation."""
    made: list = []
    interrupt_at: tuple | None = None  # (N, evaluation number)

    @staticmethod
    def require_device():
        return None

    def __new__(cls, shape, cache, **kw):
        Sim.made.append(shape)
        bench = SimBench()
        if Sim.interrupt_at and Sim.interrupt_at[0] == shape.N:
            evaluate, seen = bench.evaluate, []

            def interrupting(*a, **k):
                seen.append(1)
                if len(seen) == Sim.interrupt_at[1]:
                    Sim.interrupt_at = None  # once
                    raise KeyboardInterrupt
                return evaluate(*a, **k)

            bench.evaluate = interrupting
        return bench


@pytest.fixture
def sim(monkeypatch):
    import agent.bench

    Sim.made, Sim.interrupt_at = [], None
    monkeypatch.setattr(agent.bench, "GpuBench", Sim)
    return Sim


def _tune(tmp_path, *extra):
    args = ["tune", "--config", _config(tmp_path), *[a for n in SEQLENS for a in ("--seqlen", str(n))],
            "--batch", "1", "--batch", "4", "--budget", "3", "--no-profile", "--db", str(tmp_path / "llama.db"), *extra]
    return runner.invoke(app(), args)


def app():
    from agent.cli import app as cli

    return cli


def test_a_llama_config_plans_one_search_per_n_bucket_at_its_longest_length_and_largest_batch(tmp_path):
    attn = from_hf_config(_config(tmp_path))
    assert (attn.heads, attn.kv_heads, attn.head_dim, attn.dtype, attn.causal) == (32, 8, 128, "bfloat16", True)
    planned = plan(attn.problems(list(SEQLENS), [1, 4]))
    assert [p.shape.key() for p in planned] == SEARCHED
    assert [p.bucket for p in planned] == ["N<=512", "N 1025-2048", "N 2049-4096"]
    assert [p.seqlens for p in planned] == [(256, 512), (1100, 2048), (3000,)] and planned[0].batches == (1, 4)
    # the head dim from hidden_size / heads, transformers 5's `dtype`, MHA without num_key_value_heads
    other = from_hf_config(_config(tmp_path, head_dim=None, num_key_value_heads=None, torch_dtype=None, dtype="float16",
                                   hidden_size=2048))
    assert (other.heads, other.kv_heads, other.head_dim, other.dtype) == (32, 32, 64, "float16")
    assert plan(other.problems([128], [2]))[0].shape.key() == "B2-H32-N128-D64-float16-causal"


@pytest.mark.parametrize("change, words", [
    ({"num_attention_heads": None}, "no 'num_attention_heads'"),
    ({"num_attention_heads": "32"}, "'num_attention_heads' must be a positive integer"),
    ({"num_key_value_heads": 6}, "num_attention_heads=32 is not a multiple of num_key_value_heads=6"),
    ({"head_dim": 80}, "head dim 80 is not one the kernel is built for (D must be 64 or 128"),
    ({"head_dim": None, "hidden_size": 2560}, "head dim 80 is not one"),  # 2560 / 32
    ({"head_dim": None, "hidden_size": None}, "neither 'head_dim' nor 'hidden_size'"),
    ({"torch_dtype": "float32"}, "is float32: the kernel is built for float16 and bfloat16 only; say which one"),
    ({"torch_dtype": "float13"}, "unknown dtype 'float13'"),
    ({"torch_dtype": None}, "no 'torch_dtype' or 'dtype'; say which dtype to serve with --dtype"),
    ({"architectures": ["SomethingModel"]}, "give --causal (a decoder) or --no-causal"),
])
def test_a_config_the_kernel_cannot_serve_is_refused_in_one_sentence_before_anything_is_created(tmp_path, sim, change,
                                                                                                words):
    path = _config(tmp_path, **change)
    with pytest.raises(ConfigError, match=None) as e:
        from_hf_config(path)
    assert words in str(e.value)
    res = runner.invoke(app(), ["tune", "--config", path, "--seqlen", "512", "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 1 and words in " ".join(res.output.split()) and "Traceback" not in res.output
    assert not (tmp_path / "x.db").exists() and not sim.made


def test_the_command_line_says_what_is_missing(tmp_path, sim):
    cfg = _config(tmp_path)
    for args, words in ((["tune", "--seqlen", "512"], "give the model's --config"),
                        (["tune", "--config", cfg], "say the sequence lengths to serve"),
                        (["tune", "--config", cfg, "--shapes", cfg], "one of them"),
                        (["tune", "--config", cfg, "--seqlen", "0"], "positive integers"),
                        (["tune", "--config", cfg, "--seqlen", "512", "--dtype", "float32"], "Invalid value for '--dtype'"),
                        (["tune", "--config", str(tmp_path / "none.json"), "--seqlen", "512"], "no config at")):
        res = runner.invoke(app(), [*args, "--db", str(tmp_path / "x.db")])
        assert res.exit_code in (1, 2) and words in " ".join(res.output.split()), (args, res.output)
    assert not (tmp_path / "x.db").exists() and not sim.made
    # an explicit dtype and mask win over the file: a float32 encoder config served in fp16, causal
    attn = from_hf_config(_config(tmp_path, torch_dtype="float32", architectures=["BertForMaskedLM"]), dtype="float16",
                          causal=True)
    assert (attn.dtype, attn.causal) == ("float16", True)
    assert from_hf_config(_config(tmp_path, architectures=["BertForMaskedLM"])).causal is False


def test_a_shapes_file_is_one_problem_key_a_line(tmp_path):
    f = tmp_path / "shapes.txt"
    f.write_text("# prefill of a GQA model\nB1-H32-Hkv8-N4096-D128-bfloat16-causal\n\nB2-H32-Hkv8-N3000-D128-bfloat16-causal"
                 "  # same bucket\nB2-H16-N512-D64-float16-noncausal\n")
    shapes = read_shapes(f)
    assert shapes[2] == Shape(B=2, H=16, N=512, D=64)
    assert [p.shape.key() for p in plan(shapes)] == ["B2-H16-N512-D64-float16-noncausal",
                                                     "B2-H32-Hkv8-N4096-D128-bfloat16-causal"]
    for bad, words in (("B1-H32-N4096-D96-float16-causal", "line 1: head dim 96 is not one"),
                       ("B1-H32-N4096-D128-float32-causal", "line 1 is float32"),
                       ("B1-H32-Hkv5-N4096-D128-float16-causal", "Hkv=5 must divide H=32"),
                       ("B1 H32 N4096", "is not a problem key like")):
        f.write_text(bad + "\n")
        with pytest.raises(ConfigError) as e:
            read_shapes(f)
        assert words in str(e.value), str(e.value)


def test_a_campaign_runs_one_search_per_bucket_in_one_database_resumes_and_exports_the_buckets(tmp_path, sim):
    res = _tune(tmp_path, "--export-torch", str(tmp_path / "pkg"), "--no-build")
    assert res.exit_code == 0, res.output
    db = open_db(tmp_path / "llama.db", read_only=True)
    runs = q.runs(db)
    assert [r["problem_key"] for r in runs] == SEARCHED  # one run per bucket, in one database
    assert all(r["status"] in ("plateau", "budget", "exhausted") and r["budget"] == 3 for r in runs)
    assert [s.key() for s in sim.made] == SEARCHED
    assert all(q.history(db, r["id"]) for r in runs)
    # each search is `run`'s: its recording replays as `run --replay` (the header holds run's parameters)
    header = json.loads((tmp_path / "llama_artifacts" / "run-2" / "recording.jsonl").read_text().splitlines()[0])
    assert header["result"]["params"]["seqlen"] == 2048 and header["result"]["params"]["kv_heads"] == 8
    # the package's table: each tuned bucket served by the kernel measured there, the rest by the nearest
    table = json.loads((tmp_path / "pkg" / "fa5090_kernels" / "table.json").read_text())
    rows = {r["bucket"]: r for r in table["rows"] if (r["dtype"], r["head_dim"], r["causal"]) == ("bfloat16", 128, True)}
    assert {b: (r["measured_n"], r["fallback"]) for b, r in rows.items() if not r["fallback"]} == \
        {"N<=512": (512, False), "N 1025-2048": (2048, False), "N 2049-4096": (3000, False)}
    assert rows["N 513-1024"]["fallback"] and len(rows) == 8
    assert "pip install" in res.output

    # the same command again: every problem finished before, nothing searched, nothing added
    sim.made.clear()
    again = _tune(tmp_path, "--json")
    assert again.exit_code == 0, again.output
    done = json.loads(again.stdout)
    assert [(d["problem"], d["action"]) for d in done] == [(k, "finished before") for k in SEARCHED]
    assert not sim.made and len(q.runs(open_db(tmp_path / "llama.db", read_only=True))) == 3
    plan_now = json.loads(runner.invoke(app(), ["tune", "--config", _config(tmp_path), "--seqlen", "4096", "--seqlen", "3000",
                                                "--batch", "4", "--plan", "--json", "--db", str(tmp_path / "llama.db")]).stdout)
    assert [(s["problem"], s["state"], s["run"]) for s in plan_now["searches"]] == \
        [("B4-H32-Hkv8-N4096-D128-bfloat16-causal", "new", None)]  # another representative: not the run at N 3000


def test_an_interrupted_campaign_resumes_its_interrupted_run_and_searches_the_problems_after_it(tmp_path, sim):
    sim.interrupt_at = (2048, 2)  # Ctrl-C during the second search's second evaluation
    res = _tune(tmp_path)
    assert res.exit_code == 130 and "run 2 (B4-H32-Hkv8-N2048-D128-bfloat16-causal) keeps every finished" in \
        " ".join(res.output.split())
    db = open_db(tmp_path / "llama.db", read_only=True)
    assert [(r["problem_key"], r["status"]) for r in q.runs(db)] == [(SEARCHED[0], q.runs(db)[0]["status"]),
                                                                     (SEARCHED[1], "interrupted")]
    assert q.runs(db)[0]["status"] in ("plateau", "budget", "exhausted")
    sim.made.clear()
    res = _tune(tmp_path, "--json")
    assert res.exit_code == 0, res.output
    done = json.loads(res.stdout)
    assert [(d["problem"], d["run"], d["action"]) for d in done] == [
        (SEARCHED[0], 1, "finished before"), (SEARCHED[1], 2, "resumed"), (SEARCHED[2], 3, "searched")]
    runs = q.runs(open_db(tmp_path / "llama.db", read_only=True))
    assert len(runs) == 3 and all(r["status"] in ("plateau", "budget", "exhausted") for r in runs)
    assert runs[1]["resumes"] and [s.N for s in sim.made] == [2048, 3000]
    assert (tmp_path / "llama_artifacts" / "run-2" / "recording.resume-1.jsonl").exists()


def test_a_campaign_database_keys_lever_evidence_by_problem(tmp_path, sim):
    """Margins measured at one bucket's problem are never another bucket's evidence (a plain run's
    database holds one problem, where the filter changes nothing)."""
    assert _tune(tmp_path).exit_code == 0
    db = open_db(tmp_path / "llama.db", read_only=True)
    base = db.execute("select base_key from experiments where run_id = 1 and kind = 'lever' limit 1").fetchone()[0]
    assert q.lever_evidence(db, base, before_run=4)  # without a problem: the three runs' margins
    assert q.lever_evidence(db, base, before_run=4, problem_key="B4-H32-Hkv8-N9999-D128-bfloat16-causal") == {}
    mine = q.lever_evidence(db, base, before_run=4, problem_key=SEARCHED[0])
    assert mine and {v["run_id"] for v in mine.values()} == {1}
    # a plain `run` still refuses a database holding another problem
    res = runner.invoke(app(), ["run", "--budget", "1", "--seqlen", "512", "--db", str(tmp_path / "llama.db")])
    assert res.exit_code == 1 and "use another --db" in res.output


def test_without_a_gpu_the_campaign_refuses_before_it_creates_a_database(tmp_path):
    """GPU first (agent/commands/common.py _need_gpu): the real bench is asked; on a CPU machine it says no."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is here")
    res = runner.invoke(app(), ["tune", "--config", _config(tmp_path), "--seqlen", "512", "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 1 and "error:" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "x_artifacts").exists()


def test_every_search_starts_from_the_seed_knobs_and_a_bad_one_is_refused_before_anything_is_created(tmp_path, sim):
    from kernel_src.knobs import Knobs

    res = _tune(tmp_path, "--seed-knob", "compute=mma", "--seed-knob", "layout=swizzle")
    assert res.exit_code == 0, res.output
    seed = Knobs.parse_assignments(["compute=mma", "layout=swizzle"])
    runs = q.runs(open_db(tmp_path / "llama.db", read_only=True))
    assert len(runs) == 3 and all(Knobs.parse(r["seed_knobs"]) == seed for r in runs)
    header = json.loads((tmp_path / "llama_artifacts" / "run-1" / "recording.jsonl").read_text().splitlines()[0])
    assert header["result"]["params"]["seed_knob"] == ["compute=mma", "layout=swizzle"]  # a replay starts there too

    bad = runner.invoke(app(), ["tune", "--config", _config(tmp_path), "--seqlen", "512", "--seed-knob", "nosuch=1",
                                "--db", str(tmp_path / "other.db")])
    assert bad.exit_code == 1 and "nosuch" in bad.output and "Traceback" not in bad.output, bad.output
    assert not (tmp_path / "other.db").exists()
