"""`export --torch DIR`: the dispatch table of the committed H200 databases as an installable PyTorch package.
Here (no GPU) every call is one the kernels do not cover, so what is shown is the package's contract:
it installs, registers torch.ops.fa5090.attention with a fake implementation (meta tensors, torch.compile
with fullgraph), falls back to SDPA with one warning naming why (or raises with fallback="error"), keeps
SDPA's scale convention, and its backward is SDPA's. The CUDA path itself runs only on a GPU."""
import importlib
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from typer.testing import CliRunner

from agent.cli import app

AVR = Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_agent_vs_random"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("torchpkg")
    dbs = []
    for name in ("n8192_agent.db", "c16384_agent.db"):
        shutil.copy(AVR / name, tmp / name)
        dbs += ["--db", str(tmp / name)]
    res = CliRunner().invoke(app, ["export", "--torch", str(tmp / "pkg"), *dbs, "--no-build"])
    assert res.exit_code == 0, res.output
    assert "pip install" in res.output and "without a built library" in res.output
    sys.path.insert(0, str(tmp / "pkg"))
    try:
        mod = importlib.import_module("fa5090_kernels")
        yield tmp / "pkg", mod
    finally:
        sys.path.remove(str(tmp / "pkg"))


def test_the_package_holds_its_table_source_and_metadata(package):
    where, mod = package
    table = json.loads((where / "fa5090_kernels" / "table.json").read_text())
    assert table["gpu"] == "NVIDIA H200" and table["archs"] == ["sm_90"] and table["library"] == "fa_dispatch.so"
    assert {(r["dtype"], r["head_dim"], r["causal"]) for r in table["rows"]} == {("float16", 128, False), ("bfloat16", 128, True)}
    assert (where / "fa5090_kernels" / "fa_dispatch.cu").exists() and (where / "pyproject.toml").exists()
    assert mod.TABLE == table


def test_the_package_installs_with_pip(package, tmp_path):
    where, _ = package
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q",
                          "--target", str(tmp_path / "site"), str(where)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "site" / "fa5090_kernels" / "__init__.py").exists()
    assert (tmp_path / "site" / "fa5090_kernels" / "table.json").exists()


def test_uncovered_calls_run_sdpa_with_one_warning_naming_why(package):
    _, mod = package
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 4, 64, 128, generator=g) for _ in range(3))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        o1 = mod.attention(q, k, v, causal=True)
        o2 = mod.attention(q, k, v, causal=True)
    assert len([x for x in w if "fa5090_kernels" in str(x.message)]) == 1  # one warning per reason
    assert "running torch's scaled_dot_product_attention instead" in str(w[0].message)
    assert torch.equal(o1, F.scaled_dot_product_attention(q, k, v, is_causal=True)) and torch.equal(o1, o2)
    # the plain softmax scale, as SDPA takes it
    assert torch.allclose(mod.attention(q, k, v, scale=0.05, fallback="silent"),
                          F.scaled_dot_product_attention(q, k, v, scale=0.05))
    with pytest.raises(mod.FallbackError, match="does not cover"):
        mod.attention(q, k, v, fallback="error")
    with pytest.raises(ValueError, match="fallback must be"):
        mod.attention(q, k, v, fallback="maybe")
    kv = torch.randn(1, 2, 64, 128, generator=g)  # grouped-query attention falls back with enable_gqa
    assert torch.allclose(mod.attention(q, kv, kv, fallback="silent"),
                          F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True))


def test_why_not_names_each_uncovered_case(package):
    _, mod = package
    q = torch.randn(1, 2, 16, 128)
    assert "no built library" in mod.why_not(q, q, q)  # exported without nvcc: nothing can run ours
    mod._HAVE_LIBRARY = True  # as in a package whose library was built; why_not never loads it
    try:
        assert "attn_mask" in mod.why_not(q, q, q, attn_mask=torch.ones(16, 16, dtype=torch.bool))
        assert "dropout" in mod.why_not(q, q, q, dropout_p=0.1)
        assert "tensors on cpu" in mod.why_not(q, q, q)
    finally:
        mod._HAVE_LIBRARY = False


def test_the_op_is_registered_with_a_fake_implementation_and_compiles_fullgraph(package):
    _, mod = package
    assert hasattr(torch.ops.fa5090, "attention")
    q = torch.empty(2, 8, 256, 128, device="meta", dtype=torch.float16)
    out = torch.ops.fa5090.attention(q, q, q, True, 0.088)
    assert out.shape == q.shape and out.dtype == torch.float16 and out.device.type == "meta"

    def f(q, k, v):
        return mod.attention(q, k, v, causal=True, fallback="silent") * 2

    x = torch.randn(1, 2, 32, 64)
    compiled = torch.compile(f, fullgraph=True, backend="eager")
    assert torch.allclose(compiled(x, x, x), f(x, x, x))


def test_the_backward_is_sdpas(package):
    _, mod = package
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 32, 64, generator=g, dtype=torch.float64, requires_grad=True) for _ in range(3))
    # the op's own autograd formula, exercised through its registered backward on CPU float64 inputs
    class Ctx:
        def save_for_backward(self, *t):
            self.saved_tensors = tuple(x.detach() for x in t)

    ctx = Ctx()
    mod._setup(ctx, (q, k, v, True, 0.125), None)
    grad = torch.randn(1, 2, 32, 64, generator=g, dtype=torch.float64)
    dq, dk, dv, *_ = mod._backward(ctx, grad)
    ref = torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.125), (q, k, v), grad)
    assert all(torch.allclose(a, b) for a, b in zip((dq, dk, dv), ref))


def test_the_launch_runs_on_q_s_device_and_stream(package, monkeypatch):
    """The library launches on the current device, which need not be q's (a model split over two GPUs calls the op
    on each): the op makes q's device current around the launch and passes torch's current stream there. Without a
    GPU, a stand-in library records what was current at its launch."""
    import contextlib

    _, mod = package
    current, seen = ["cuda:0"], []

    @contextlib.contextmanager
    def device(d):
        before = current[0]
        current[0] = d
        try:
            yield
        finally:
            current[0] = before

    class Stream:
        def __init__(self, d):
            self.cuda_stream = 0x5000 + (d.index or 0) if isinstance(d, torch.device) else 0x5000

    class Lib:
        def fa_strided(self, *a):
            return 0

        def fa_fwd_strided(self, *a):
            seen.append((current[0], a[13].value))
            return 0

    monkeypatch.setattr(mod, "_library", lambda: Lib())
    monkeypatch.setattr(torch.cuda, "device", device)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda d=None: Stream(d))
    q = torch.zeros(1, 2, 16, 64, dtype=torch.float16)
    mod._attention(q, q, q, False, 0.125)
    assert seen == [(q.device, 0x5000)] and current == ["cuda:0"]  # q's device current for the launch, then not


def test_export_torch_refuses_bad_input(tmp_path):
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    res = CliRunner().invoke(app, ["export", "--torch", str(not_dir), "--db", str(AVR / "n8192_agent.db"), "--no-build"])
    assert res.exit_code == 2 and "not a folder" in res.output
    res = CliRunner().invoke(app, ["export", "best", "--torch", str(tmp_path / "p"), "--no-build"])
    assert res.exit_code == 2 and "takes no kernel argument" in res.output


def test_a_transformers_llama_runs_through_the_package_as_it_runs_through_sdpa(package, monkeypatch):
    """A real client: a tiny Llama (random weights, GQA 4 heads over 2, 2 layers, built from a config: no
    download) with the package's attention registered through transformers' AttentionInterface, against
    the same weights under attn_implementation="sdpa". On CPU every call falls back to SDPA, so this
    tests the wiring (layout in and out, GQA, the causal decision, padding masks, decode), not our kernels."""
    transformers = pytest.importorskip("transformers")
    _, mod = package
    calls = []
    attention = mod.attention

    def counted(q, k, v, **kw):
        calls.append((tuple(q.shape), tuple(k.shape), kw["causal"], kw["attn_mask"] is not None))
        return attention(q, k, v, **kw)

    monkeypatch.setattr(mod, "attention", counted)
    name = mod.register_with_transformers("fa5090_test")
    cfg = transformers.LlamaConfig(vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=64)
    torch.manual_seed(0)
    ref = transformers.LlamaForCausalLM(cfg).eval()
    ref.set_attn_implementation("sdpa")
    ours = transformers.LlamaForCausalLM(cfg).eval()
    ours.load_state_dict(ref.state_dict())
    ours.set_attn_implementation(name)
    ids = torch.randint(0, 96, (2, 12), generator=torch.Generator().manual_seed(1))
    pad = torch.ones(2, 12, dtype=torch.long)
    pad[1, :3] = 0  # left padding on the second sequence: a mask reaches the function
    with torch.no_grad(), warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for mask in (None, pad):
            got, want = ours(ids, attention_mask=mask).logits, ref(ids, attention_mask=mask).logits
            assert torch.allclose(got, want, atol=1e-5, rtol=1e-5), (got - want).abs().max()
        out = ours.generate(ids[:1], max_new_tokens=3, do_sample=False)  # prefill, then decode steps (N=1)
        assert torch.equal(out, ref.generate(ids[:1], max_new_tokens=3, do_sample=False))
    assert calls[0] == ((2, 4, 12, 16), (2, 2, 12, 16), True, False)  # [B, H, N, D], K/V heads kept (GQA), causal
    assert any(c[3] for c in calls) and any(c[0][2] == 1 and not c[2] for c in calls)  # a padded batch, a decode step
