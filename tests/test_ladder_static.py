"""The kernel ladder on CPU: the covering set compiles for sm_80/90/120, the static report (registers,
spills, smem, occupancy, SASS census) and the exported standalone file."""

import itertools
import json
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from recorded import read_record
from agent.cli import app
from experiments.build import BuildSpec, build
from kernel_src.covering import (DOMAINS, MATRIX_ARCHS, MATRIX_DIMS, MATRIX_DTYPES, _completable, _pairs, compile_matrix,
                                 covering_set, matrix_pairs)
from profiler.ptxas import parse_ptxas

nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
runner = CliRunner()


def test_covering_set_holds_every_valid_pair():
    cs = covering_set()
    seen = set()
    for k in cs:
        d = k.model_dump(mode="json")
        d["tile"] = (d.pop("br"), d.pop("bc"), d.pop("warps"))
        seen |= _pairs(d)
    for a, b in itertools.combinations(sorted(DOMAINS), 2):
        for va, vb in itertools.product(DOMAINS[a], DOMAINS[b]):
            if _completable({a: va, b: vb}):
                assert ((a, va), (b, vb)) in seen, (a, va, b, vb)
    assert 20 <= len(cs) <= 60


ARCHS = MATRIX_ARCHS
# CI's matrix is kernel_src.covering.compile_matrix: every covering configuration compiles at least once, and every
# value of every knob on each arch, in each dtype and at each head dim (each compile both mask modes), device code
# only (host=False: the front end still checks the host code's templates; the libraries with host code and all
# eight instantiations on three archs are the seed's, the best's and the named kernels' in test_kernel_build.py).
# 61 compiles of two instantiations where every configuration on every arch was 180 compiles of 2-4: the kernel's
# mma.sync and scalar paths have no arch branch (kernel_src/target.cuh guards the wgmma arm alone, outside the
# set), so what an arch changes is ptxas's code for each knob's instructions, which the pairs hold.
# FA5090_FULL_MATRIX=1 compiles every configuration with every instantiation as a library on every arch, as before a
# restructuring lands (the suite's slowest step then: 60 configurations x 3 archs x 8 instantiations).
FULL = bool(__import__("os").environ.get("FA5090_FULL_MATRIX"))


def _matrix_specs() -> dict[str, list[BuildSpec]]:
    if FULL:
        return {a: [BuildSpec(knobs=k, arch=a, dtypes=("float16", "bfloat16"), dims=(64, 128)) for k in covering_set()]
                for a in ARCHS}
    out = {a: [] for a in ARCHS}
    for k, arch, dtype, dim in compile_matrix():
        out[arch].append(BuildSpec(knobs=k, arch=arch, dtypes=(dtype,), dims=(dim,), host=False))
    return out


def _value(k, name):
    return (k.br, k.bc, k.warps) if name == "tile" else k.model_dump(mode="json")[name]


def test_the_ci_matrix_holds_every_configuration_and_every_pair_of_knob_value_and_instantiation():
    cs, m = covering_set(), compile_matrix()
    assert {k.key() for k, *_ in m} == {k.key() for k in cs}
    # every value of every knob that the set holds compiles on each arch, in each dtype and at each head dim
    for name in DOMAINS:
        for v in {_value(k, name) for k in cs}:
            on = [(a, t, d) for k, a, t, d in m if _value(k, name) == v]
            assert {a for a, _, _ in on} == set(ARCHS), (name, v, on)
            assert {t for _, t, _ in on} == set(MATRIX_DTYPES) and {d for _, _, d in on} == set(MATRIX_DIMS), (name, v, on)
    # each arch in each dtype and at each head dim, each dtype at each head dim
    cells = {(a, t, d) for _, a, t, d in m}
    assert {(a, t) for a, t, _ in cells} == set(itertools.product(ARCHS, MATRIX_DTYPES))
    assert {(a, d) for a, _, d in cells} == set(itertools.product(ARCHS, MATRIX_DIMS))
    assert {(t, d) for _, t, d in cells} == set(itertools.product(MATRIX_DTYPES, MATRIX_DIMS))
    # matrix_pairs (what the design counts) says the same, and fails a matrix that leaves an arch out
    every = set().union(*(matrix_pairs(k, a, t, d) for k in cs for a in ARCHS for t in MATRIX_DTYPES for d in MATRIX_DIMS))
    assert set().union(*(matrix_pairs(*u) for u in m)) == every
    assert set().union(*(matrix_pairs(k, "sm_90", t, d) for k, _, t, d in m)) != every
    # and about one compile a configuration, not the product
    assert len(m) <= len(cs) * 5 // 4, len(m)


@pytest.fixture(scope="session")
def covering_builds(build_cache):
    """The covering set's compile matrix, built once per session (a warm FA5090_TEST_CACHE makes it a lookup). One
    ninja call per arch, so the cache's lock is never held for the whole matrix."""
    specs = _matrix_specs()
    res = {}
    for a in ARCHS:
        res.update(build(specs[a], build_cache, timeout=3600))
    return specs, res


@nvcc
@pytest.mark.compile_matrix
@pytest.mark.parametrize("arch", ARCHS)
def test_covering_set_compiles(arch, covering_builds):
    specs, res = covering_builds[0][arch], covering_builds[1]
    assert specs
    failed = [s.knobs.label() for s in specs if not res[s.key()].ok]
    assert not failed, failed
    # every instantiation asked for is there (dtypes x head dims x 2 mask modes), and split-KV's combine
    # kernel (dtypes x head dims) only where the keys are split
    for s in specs:
        entries = [x.function for x in parse_ptxas(res[s.key()].log) if x.entry]
        assert all(x.arch == arch for x in parse_ptxas(res[s.key()].log) if x.entry)
        n = len(s.dtypes) * len(s.dims)
        assert len([f for f in entries if "fa_fwd_kernel" in f]) == 2 * n
        assert len([f for f in entries if "fa_combine_kernel" in f]) == (n if s.knobs.split_kv > 1 else 0)


@nvcc
def test_static_report_for_a_99kb_part(cli_build_cache):
    res = runner.invoke(app, ["static", "--arch", "sm_120", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["label"]: r for r in json.loads(res.output)}
    seed, best = rows["scalar/row_major/scalar/expf/t64x64w4"], rows["mma/pad/cp_async/ex2/t64x64w4"]
    assert seed["census"].get("HMMA", 0) == 0
    assert best["census"]["HMMA"] == 128  # the seed's closed form: HMMA = head_dim at D=128
    assert best["census"]["MUFU.EX2"] == 34  # and MUFU.EX2 = 34, independent of D
    assert best["census"]["LDGSTS"] > 0 and seed["census"].get("LDGSTS", 0) == 0
    assert best["spill_bytes"] == 0 and best["registers"] <= 255
    # padding at D=128: 52,224 B/CTA fits two CTAs on the H200 but one on a 99 KB part (the seed's finding)
    assert best["ctas_per_sm"] == 1 and best["limiter"] == "shared_memory"
    deep = rows["mma/pad/cp_async/ex2/t64x64w4/kv_stages=3"]
    assert deep["refusal"] and "101376" in deep["refusal"]


@nvcc
def test_exported_file_builds_with_one_nvcc_command(tmp_path):
    out = tmp_path / "attn.cu"
    res = runner.invoke(app, ["export", "compute=mma", "layout=pad", "staging=cp_async", "exp=ex2", "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "#define FA_LAYOUT 2" in text and "int main(" in text and '#include "mma.cuh"' not in text
    p = subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90", str(out), "-o", str(tmp_path / "attn")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "warning" not in p.stderr


@nvcc
def test_an_exported_wgmma_kernel_says_sm_90a_and_builds_with_it(tmp_path):
    """A wgmma kernel's instructions exist on sm_90a alone: the build line in the file and the one printed name
    the sm_90a target (they said -arch=sm_90, which has no wgmma; nvcc 13's -arch=sm_90a also emits compute_90 PTX and
    fails the same way), and the file compiles with that command."""
    out = tmp_path / "wg.cu"
    res = runner.invoke(app, ["export", "compute=wgmma", "layout=sw128", "staging=cp_async", "exp=ex2", "q_in=smem",
                              "-o", str(out)])
    assert res.exit_code == 0, res.output
    flag = "-gencode arch=compute_90a,code=sm_90a"
    assert f"nvcc -O3 -std=c++17 {flag} {out} -o attn" in res.output.replace("\n", "")
    assert f"// build: nvcc -O3 -std=c++17 {flag} attn.cu -o attn   (sm_90a only" in out.read_text()
    p = subprocess.run(["nvcc", "-O3", "-std=c++17", *flag.split(), "-c", str(out), "-o", str(tmp_path / "wg.o")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]


def test_export_refuses_bad_input(tmp_path):
    res = runner.invoke(app, ["export", "compute=tensor", "-o", str(tmp_path / "x.cu")])
    assert res.exit_code == 1 and "knob 'compute' cannot be 'tensor'" in res.output
    res = runner.invoke(app, ["export", "--head-dim", "96", "compute=mma", "-o", str(tmp_path / "x.cu")])
    assert res.exit_code == 2 and "--head-dim" in res.output and "'96' is not one of" in res.output


LADDER = __import__("pathlib").Path(__file__).resolve().parents[1] / "results" / "2026-11-30_h200_ladder"


def test_covering_set_passed_the_tier_on_the_h200():
    """scripts/device_ladder.py on the H200: every covering configuration on 96 shapes (fp16/bf16,
    D 64/128, causal or not, N 1..1000, MHA, GQA and MQA), and every bitwise lever against its off
    setting. Re-run with the FA2-era knobs (results/2026-11-30_h200_fa2_levers, 100 libraries, 40
    bitwise pairs); the first run, before them, is results/2026-11-30_h200_ladder."""
    s = read_record(LADDER.parent / "2026-11-30_h200_fa2_levers" / "covering_correctness.json")
    assert s["failures"] == [] and s["worst_fraction_of_bound"] < 1
    assert {k.key() for k in covering_set()} <= set(s["libraries"])  # every covering configuration ran
    pair_rows = [r for r in s["rows"] if "==" in r["kernel"]]
    assert len(pair_rows) == len(s["pairs"]) * len(s["configs"]) and all(r["reason"] == "" for r in pair_rows)
    assert any("Hkv1" in c for c in s["configs"]) and any("Hkv2" in c for c in s["configs"])


def test_replay_of_the_n8192_lever_run(tmp_path):
    """results/2026-11-30_h200_ladder/levers_n8192.txt, replayed with the catalog it recorded."""
    rec = LADDER / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    db = tmp_path / "l.db"
    args = ["run", "--seed-knob", "compute=mma", "--seed-knob", "layout=pad", "--seed-knob", "staging=cp_async",
            "--seed-knob", "exp=ex2", "--seqlen", "8192", "--budget", "4", "--no-profile", "--exclude-lever", "swizzle",
            "--replay", str(rec), "--db", str(db)]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(db)]).output)
    assert [(r["lever"], r["outcome"]) for r in rows if r["seq"]] == [
        ("kv_double_buffer", "KEPT"), ("kv_triple_buffer", "SLOWER"), ("rescale_skip", "NULL"), ("store_streaming", "NULL")]


@nvcc
def test_static_reports_the_attention_kernel_of_a_split_kv_library(cli_build_cache):
    """A split-KV library holds two kernels; the report is about the attention kernel, not the
    combine (which has no HMMA at all)."""
    res = runner.invoke(app, ["static", "--arch", "sm_90", "--json", "--knob", "compute=mma", "--knob", "layout=pad",
                              "--knob", "staging=cp_async", "--knob", "exp=ex2", "--knob", "split_kv=4",
                              "--knob", "br=128", "--knob", "warps=4", "--knob", "bc=32", "--knob", "q_in=smem"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    # per key block and warp: 2 m-tiles x (D/16 x BC/8 for S + BC/16 x D/8 for PV) = 2 x (32 + 32)
    assert row["census"]["HMMA"] == 128 and row["registers"] > 100
    assert row["smem_per_cta"] == (128 + 2 * 32) * 136 * 2
