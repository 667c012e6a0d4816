"""`export --dispatch`: the table is the databases' best kernels per (dtype, D,
causal, N bucket), empty buckets fall back to the nearest measured one, and the generated library
compiles for sm_90 and sm_80 with its entry points and reports the same table. On copies of the
committed H200 databases; nothing runs on a GPU."""
import ctypes
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.summary import best_of_run
from kernel_src.dispatch import EDGES, N_MAX, Measured, bucket_of, bucket_range, choose
from kernel_src.knobs import Knobs
from store import queries as q
from store.db import open_db

ROOT = Path(__file__).resolve().parents[1] / "results"
AVR = ROOT / "2026-11-30_h200_agent_vs_random"
SOURCES = {"n8192_agent.db": AVR / "n8192_agent.db",  # fp16 D128 non-causal N8192
           "c16384_agent.db": AVR / "c16384_agent.db",  # bf16 D128 causal N16384
           "fa5090.db": ROOT / "2026-11-30_h200_run2" / "fa5090.db"}  # fp16 D128 non-causal N2048
runner = CliRunner()
nvcc = pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("nm") is None, reason="nvcc (or nm) not installed")


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture
def dbs(tmp_path) -> list[Path]:
    out = []
    for name, src in SOURCES.items():
        (tmp_path / "in").mkdir(exist_ok=True)
        shutil.copy(src, tmp_path / "in" / name)
        out.append(tmp_path / "in" / name)
    return out


def _db_args(dbs):
    return [a for db in dbs for a in ("--db", db)]


def _expected(dbs) -> dict[tuple, str]:
    """Each database's best as `export best` finds it, at its run's problem."""
    out = {}
    for path in dbs:
        db = open_db(path, create=False, read_only=True)
        run = q.latest_run(db)
        p = run["problem"]
        out[(p["dtype"], p["D"], bool(p["causal"]), p["N"])] = best_of_run(db, run["id"]).label()
    return out


def test_buckets_have_power_of_two_edges_and_fall_back_to_the_nearest():
    assert [bucket_range(bucket_of(n)) for n in (1, 512, 513, 8192, 8193, 32768, 32769)] == [
        (1, 512), (1, 512), (513, 1024), (4097, 8192), (8193, 16384), (16385, 32768), (32769, N_MAX)]
    a, b, c = (Knobs(compute="mma", bc=bc) for bc in (32, 64, 128))
    rows = choose([Measured(dtype="float16", head_dim=128, causal=False, n=2048, knobs=a, tflops=200.0, source="a"),
                   Measured(dtype="float16", head_dim=128, causal=False, n=2000, knobs=c, tflops=210.0, source="c"),
                   Measured(dtype="float16", head_dim=128, causal=False, n=8192, knobs=b, tflops=290.0, source="b")])
    assert len(rows) == len(EDGES) + 1 and all(r.key() == ("float16", 128, False) for r in rows)
    by = {r.n_hi: r for r in rows}
    assert by[2048].knobs == c and not by[2048].fallback  # the faster of two measurements in one bucket
    assert by[8192].knobs == b and not by[8192].fallback
    assert by[4096].knobs == b and by[4096].fallback  # equally near 2048 and 8192: the longer N
    assert by[512].knobs == c and by[512].fallback and by[512].measured_n == 2000
    assert by[N_MAX].knobs == b and by[N_MAX].fallback


def test_the_table_is_the_databases_best_kernels(dbs, tmp_path):
    before = {db: _digest(db) for db in dbs}
    res = invoke("export", "--dispatch", *_db_args(dbs), "-o", tmp_path / "d.cu", "--no-build", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    measured = {(r["dtype"], r["head_dim"], r["causal"], r["measured_n"]): r["knobs"] for r in rows if not r["fallback"]}
    assert measured == _expected(dbs)
    assert {(r["dtype"], r["head_dim"], r["causal"]) for r in rows} == {("float16", 128, False), ("bfloat16", 128, True)}
    fp16 = {r["n_hi"]: r for r in rows if r["dtype"] == "float16"}
    assert fp16[1024]["fallback"] and fp16[1024]["measured_n"] == 2048
    assert fp16[N_MAX]["fallback"] and fp16[N_MAX]["measured_n"] == 8192
    # said in the command's output and in the generated file's header
    assert "fall back to the nearest measured N bucket" in res.stderr and "float16 D64 non-causal" in res.stderr
    head = (tmp_path / "d.cu").read_text().split("#include", 1)[0]
    assert "float16 D128 non-causal N 513-1024: " + fp16[1024]["knobs"] + "  [fallback: nothing measured here; nearest measured N=2048" in head
    assert "FA_NOT_BUILT): float16 D64 non-causal" in head
    assert {db: _digest(db) for db in dbs} == before
    assert sorted(p.name for p in (tmp_path / "in").iterdir()) == sorted(SOURCES)  # no -wal/-shm left behind


def test_dispatch_refuses_with_one_sentence(dbs, tmp_path):
    out = tmp_path / "d.cu"
    for args, code, words in (
        (["--db", tmp_path / "nope.db"], 1, "There is no database at"),
        (["--db", ROOT / "2026-11-30_h200_run1_failed_gnu_unique" / "fa5090.db"], 1, "no KEPT kernel in"),
        ([*_db_args(dbs), "--arch", "sm_99"], 2, "unknown arch 'sm_99'"),
        ([*_db_args(dbs), "-o", tmp_path / "no" / "d.cu"], 2, "does not exist"),
        ([*_db_args(dbs), "best"], 2, "takes no kernel argument"),
    ):
        res = invoke("export", "--dispatch", "-o", out, "--no-build", *args)
        assert res.exit_code == code and words in res.output and "Traceback" not in res.output, (args, res.output)
    assert not out.exists()
    assert invoke("export", "best", *_db_args(dbs), "-o", out).exit_code == 2  # several databases: only --dispatch


def test_dispatch_refuses_mixed_gpus_and_kernels_the_arch_cannot_launch(dbs, tmp_path):
    import sqlite3

    other = tmp_path / "other.db"
    shutil.copy(dbs[1], other)
    with sqlite3.connect(other) as c:  # a copy, edited: as if recorded on another card, three K/V stages kept
        c.execute("UPDATE runs SET gpu_name = 'NVIDIA GeForce RTX 5090'")
    res = invoke("export", "--dispatch", "--db", dbs[0], "--db", other, "-o", tmp_path / "d.cu", "--no-build")
    assert res.exit_code == 1 and "recorded on different GPUs" in res.output, res.output
    with sqlite3.connect(other) as c:
        c.execute("UPDATE runs SET gpu_name = 'NVIDIA H200'")
        c.execute("UPDATE experiments SET knobs = json_set(knobs, '$.kv_stages', 3) WHERE outcome = 'KEPT'")
    res = invoke("export", "--dispatch", "--db", other, "-o", tmp_path / "d.cu", "--no-build", "--arch", "sm_86")
    assert res.exit_code == 1 and "cannot launch on sm_86" in res.output and "opt-in limit" in res.output, res.output


@nvcc
def test_the_library_builds_for_sm90_and_sm80_and_reports_its_table(dbs, tmp_path):
    out = tmp_path / "fa_dispatch.cu"
    res = invoke("export", "--dispatch", *_db_args(dbs), "-o", out, "--arch", "sm_90", "--arch", "sm_80", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    so = out.with_suffix(".so")
    assert "built " in res.stderr and so.exists(), res.output
    log = Path(str(so) + ".log").read_text()
    assert "code=sm_80" in log and "code=sm_90" in log and "bytes spill stores" in log
    assert all(" 0 bytes spill stores" in ln for ln in log.splitlines() if "bytes spill stores" in ln)
    nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True).stdout
    names = {ln.split()[-1] for ln in nm.splitlines()}
    assert {"fa_fwd", "fa_fwd_strided", "fa_strided", "fa_error_string", "fa_dispatch_table", "fa_dispatch_pick",
            "fa_dispatch_attributes"} <= names
    kernels = sorted(n for n in names if n.endswith("_fa_config"))
    assert len(kernels) == 3  # one per (knobs, dtype, D, causal) the table uses
    # Loaded on the CPU: the table and the pick touch no device, neither does each kernel's fa_config.
    lib = ctypes.CDLL(str(so))
    lib.fa_dispatch_table.restype = ctypes.c_char_p
    lines = lib.fa_dispatch_table().decode().splitlines()
    assert lines == ["\t".join(str(x) for x in (r["dtype"], r["head_dim"], int(r["causal"]), r["n_lo"], r["n_hi"],
                                                 r["knobs"], r["measured_n"], int(r["fallback"]))) for r in rows]
    for i, r in enumerate(rows):
        for n in {r["n_lo"], r["n_hi"], (r["n_lo"] + min(r["n_hi"], 1 << 20)) // 2}:
            assert lib.fa_dispatch_pick(0 if r["dtype"] == "float16" else 1, r["head_dim"], int(r["causal"]), n) == i
    assert lib.fa_dispatch_pick(0, 64, 0, 2048) == -2 and lib.fa_dispatch_pick(1, 128, 0, 2048) == -2  # never measured
    assert lib.fa_dispatch_pick(2, 128, 0, 2048) == -3 and lib.fa_dispatch_pick(0, 96, 0, 2048) == -3
    # these mma.sync kernels address every operand by pointer: none taken in another layout (the package copies)
    assert [lib.fa_strided(0 if r["dtype"] == "float16" else 1, r["head_dim"], int(r["causal"]), r["n_lo"])
            for r in rows] == [0] * len(rows)
    order = ["compute", "layout", "staging", "exp", "br", "bc", "warps", "kv_stages", "q_in", "rescale_skip",
             "causal_mask", "cta_order", "min_ctas", "store", "v_load", "persistent", "split_kv",
             "softmax", "kv_overlap", "epilogue", "rescale_lazy", "pipeline", "kv_release", "pingpong", "copies",
             "exp_poly", "pv_slab"]  # fa_config's array
    built = []
    for name in kernels:
        # the library writes one int a knob: a buffer shorter than that is a write past its end (the knob
        # count grew from 24 to 26 and a 24-int buffer here corrupted the heap: a segfault later)
        cfg = (ctypes.c_int * 64)()
        getattr(lib, name)(cfg)
        built.append(list(cfg)[:len(order)])
    want = [[Knobs.parse(json.loads(c)).defines()[f"FA_{k.upper()}"] for k in order]
            for c in {r["knobs_canonical"] for r in rows}]
    assert sorted(built) == sorted(want)


def test_without_nvcc_the_cu_is_written_with_its_build_command(dbs, tmp_path, monkeypatch):
    import experiments.build

    def missing():
        raise experiments.build.BuildError("nvcc was not found on PATH or in /usr/local/cuda/bin")

    monkeypatch.setattr(experiments.build, "nvcc_path", missing)
    res = invoke("export", "--dispatch", *_db_args(dbs), "-o", tmp_path / "d.cu")
    assert res.exit_code == 0 and "wrote the .cu only; build: cd" in res.output, res.output
    assert (tmp_path / "d.cu").exists() and not (tmp_path / "d.so").exists()


def test_export_reads_fa5090_db_whole_even_with_a_space(dbs, tmp_path, monkeypatch):
    spaced = tmp_path / "with space.db"
    shutil.copy(dbs[0], spaced)
    monkeypatch.setenv("FA5090_DB", str(spaced))
    res = invoke("export", "best", "-o", tmp_path / "k.cu")
    assert res.exit_code == 0 and "D=128, float16" in res.output, res.output
