"""Recorded H200 runs (results/<date>_h200_<what>/) as the replay tests read them: an artifacts archive
unpacked once per test module, each run's history as the device printed it, the experiment outcomes a
replay has to repeat, and the two ways a test replays a recording (through the CLI, or through the loop
with a spy on what the agent was asked)."""
import atexit
import gzip
import json
import re
import shutil
import tarfile
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import strategies
from agent.bench import Replay, ReplayMiss
from agent.cli import app
from agent.loop import SearchOptions, run_search
from agent.strategies.limiter import LimiterAgent
from experiments.problem import Shape
from kernel_src.knobs import SEED
from store.db import open_db

RESULTS = Path(__file__).resolve().parents[1] / "results"
runner = CliRunner()

# the margin tables' seed (results/2026-11-30_h200_margins): the first search's final kernel
SCREEN_SEED = ["--seed-knob", "compute=mma", "--seed-knob", "layout=pad", "--seed-knob", "staging=cp_async",
               "--seed-knob", "exp=ex2"]
# the N8192 fp16 table as the H200 printed it (n8192.txt): lever -> (outcome, paired margin)
N8192_MARGINS = {
    "swizzle": ("KEPT", 1.0242), "kv_double_buffer": ("KEPT", 1.0347), "persistent_grid": ("SLOWER", 0.9179),
    "kv_triple_buffer": ("SLOWER", 0.7833), "rescale_skip": ("NULL", 0.9959), "store_streaming": ("NULL", 0.9961),
    "store_write_through": ("NULL", 0.9954), "narrow_kv_tile": ("KEPT", 1.0808), "min_ctas_3": ("KEPT", 1.158),
    "wide_kv_tile": ("KEPT", 1.1882), "tall_q_tile": ("SLOWER", 0.952), "q_from_smem": ("KEPT", 1.1902),
    "tall_q_tile_4_warps": ("SLOWER", 0.9882), "split_kv_2": ("SLOWER", 0.9917), "split_kv_4": ("SLOWER", 0.9735),
    "v_without_ldmatrix_trans": ("SLOWER", 0.8266), "split_kv_8": ("SLOWER", 0.9251),
}


def load_script(path: Path):
    """A record's script (results/<record>/<name>.py) as a module, without running its main()."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def unpack_recording(tmp_path_factory, archive: Path, inner: str) -> Path:
    """`archive` (a .tar.xz or .tgz) unpacked into a fresh temporary directory; the path `inner` inside it."""
    out = tmp_path_factory.mktemp(archive.stem.replace(".", "_"))
    with tarfile.open(archive) as t:
        t.extractall(out, filter="data")
    return out / inner


_UNZIPPED: dict[Path, Path] = {}


def opened(path: Path) -> Path:
    """A committed file to open as it was written: `path` itself, or for `name.gz` (the databases no script
    named are kept compressed, so the tree stays under the device copy's size limit) its contents in a
    temporary directory outside the tree, unpacked once per test process."""
    path = Path(path)
    if path.suffix != ".gz":
        return path
    if path not in _UNZIPPED:
        where = Path(tempfile.mkdtemp(prefix="fa5090-recorded-"))
        atexit.register(shutil.rmtree, where, True)
        out = where / path.stem
        with gzip.open(path) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
        _UNZIPPED[path] = out
    return _UNZIPPED[path]


def recorded_text(path: Path) -> str:
    """A committed text record: `path` itself, or where the record is kept gzipped (`name.gz`, results/README.md) the
    text it holds."""
    path = Path(path)
    if path.exists():
        return path.read_text()
    return gzip.decompress(path.with_name(path.name + ".gz").read_bytes()).decode()


def recordings_fixture(res: Path):
    """A module-scoped fixture: `res`/artifacts.tar.xz unpacked into a temporary directory."""
    @pytest.fixture(scope="module")
    def recordings(tmp_path_factory) -> Path:
        return unpack_recording(tmp_path_factory, res / "artifacts.tar.xz", "")
    return recordings


def db_archive(stem: Path) -> Path:
    """A recorded run's archive (its database, recording and ncu CSVs): STEM_db.tar.xz, the device's STEM_db.tgz as
    committed (recompressed to xz, results/README.md), else a STEM_db.tgz as the device wrote it."""
    xz = stem.with_name(stem.name + "_db.tar.xz")
    return xz if xz.exists() else stem.with_name(stem.name + "_db.tgz")


def _run(name: str) -> str:
    """A recorded agent run's file stem: NAME_agent_4 for `race.sh NAME ... agent:4`, or the name itself where it
    holds the seed (NAME_agent_5)."""
    return name if "_agent_" in name else f"{name}_agent_4"


def agent_runs_fixture(res: Path, names):
    """A module-scoped fixture over runs `names` of a `race.sh ... agent:4` call recorded in `res` (a name that holds
    `_agent_` names the run with its seed): each run's recording (db_archive: NAME_agent_4_db.tar.xz or .tgz) replayed with no GPU, as (name,
    the printed run, `history --json` rows)."""
    @pytest.fixture(scope="module", params=sorted(names))
    def replayed(request, tmp_path_factory):
        rec = unpack_recording(tmp_path_factory, db_archive(res / _run(request.param)),
                               "fa5090_artifacts/run-1/recording.jsonl")
        out, rows = replay(rec, tmp_path_factory.mktemp("db") / "r.db")
        return request.param, out, rows
    return replayed


def assert_replayed_as_printed(res: Path, replayed, x_cudnn: float, tile: str, n_experiments=(16, 20),
                               gpu: str = "NVIDIA H100 80GB HBM3") -> None:
    """The replay of an agent run (agent_runs_fixture) repeats the history the device (`gpu`) printed, its own row
    against SDPA cuDNN reads `x_cudnn` (cuDNN's time over ours) and its final kernel has tile `tile`."""
    name, out, rows = replayed
    printed = (res / f"{_run(name)}.txt").read_text()
    assert outcomes(rows) == printed_history(res / f"{_run(name)}.txt") and len(outcomes(rows)) in n_experiments
    cudnn = next(r for r in rows if r["kind"] == "comparator" and r["lever"] == "sdpa_cudnn")["margin"]
    assert round(1 / cudnn, 3) == x_cudnn and f"{x_cudnn:.3f}x SDPA cuDNN" in printed
    assert f"final kernel wgmma/sw128/tma/ex2/{tile}/" in printed
    assert f"on {gpu} (sm_90, 132 SMs" in printed and "exit 0" in printed


def read_record(path: Path):
    """A recorded JSON file: `path` itself, or `path`.gz where the record is kept compressed (the large
    tier, screen and correctness records are, so the tree stays under the device copy's size limit)."""
    path = Path(path)
    if path.exists():
        return json.loads(path.read_text())
    return json.loads(gzip.decompress(path.with_name(path.name + ".gz").read_bytes()))


def assert_best_rows_as_printed(folder: Path, rows: dict, readme: Path) -> str:
    """`scripts/device_suite.py --plan best`'s record in `folder` (best.json, best.log) as `rows` give it: shape ->
    (best kernel, its confirmed x cuDNN, our TFLOP/s beside cuDNN or None), every check a pass, each row printed so
    and its x cuDNN in bold in `readme`. Returns the printed log."""
    got = {r["shape"]: (r["best"], r["confirm"]["summary"][f"cudnn:{r['best']}"]["margin"]) for r in
           read_record(folder / "best.json")}
    assert set(got) == set(rows)
    printed = (folder / "best.log").read_text()
    assert len(re.findall(r"^  check:\S+: pass$", printed, re.M)) == len(re.findall(r"^  check:", printed, re.M)) > 0
    quoted = readme.read_text()
    for shape, (best, x, tflops) in rows.items():
        assert got[shape] == (best, pytest.approx(x, abs=5e-4)), shape
        rate = rf".* \| {tflops} / \d+ \|" if tflops else " "
        assert re.search(rf"^{shape} \| {best} \(pass\) \| {x:.3f}{rate}", printed, re.M), shape
        assert f"**{x:.3f}**" in quoted
    return printed


def packed_tier(tgz: Path) -> dict:
    """The `device_suite.py --plan tier` record packed in a device call's json.tgz (tier/tier.json)."""
    with tarfile.open(tgz) as t:
        return json.load(t.extractfile("tier/tier.json"))


def assert_tier_passed(tier: dict, counts: dict) -> None:
    """A `device_suite.py --plan tier` record: for each head-dim set, (configurations, libraries, bitwise pairs) as
    `counts` says, no failure, and every bitwise pair equal on every configuration."""
    for key, (n_configs, n_libs, n_pairs) in counts.items():
        s = tier[key]
        assert s["failures"] == [] and len(s["configs"]) == n_configs and len(s["libraries"]) == n_libs
        rows = [r for r in s["rows"] if "==" in r["kernel"]]
        assert len(s["pairs"]) == n_pairs and len(rows) == n_pairs * n_configs
        assert all(r["reason"] == "" and r["ratio"] == 0.0 for r in rows)


def recorded(res: Path, name: str) -> list[dict]:
    """`history --json` of run `name` as written on the device."""
    return json.loads(recorded_text(res / f"{name}_history.json"))


def printed_history(path: Path) -> list[tuple]:
    """(lever, outcome, margin) of every counted experiment in the history table a device call printed."""
    rows = []
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        # an uncounted row (an INTERRUPTED experiment, measured again after the resume) has no #
        if len(cells) > 6 and cells[0].isdigit() and cells[1].isdigit() and cells[2] in ("lever", "compound", "rescreen"):
            rows.append((cells[3], cells[4], float(cells[5])))
    return rows


def outcomes(rows) -> list[tuple]:
    """(lever, outcome, margin to 4 places) of every counted experiment."""
    return [(r["lever"], r["outcome"], round(r["margin"], 4)) for r in rows if r["kind"] in ("lever", "compound", "rescreen")]


def replay(rec: Path, db: Path, *shape: str):
    """`run --replay rec` into a fresh database `db` (options from the recording unless `shape` gives them):
    the printed run and `history --json` of it."""
    res = runner.invoke(app, ["run", *shape, "--replay", str(rec), "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(runner.invoke(app, ["history", "--json", "--db", str(db)]).output)
    return res.output, rows


def spy_replay(rec, tmp_path, version: int, monkeypatch, shape: Shape = Shape(B=2, H=16, N=8192, D=128)):
    """The recording (of `shape`, B2 H16 N8192 D128 fp16 unless given; budget 20) replayed with agent `version`:
    (the State of every ask, the loop's events, the ReplayMiss that ended it, if any). The states are the ones the
    loop built, shelf and figures included."""
    states = []

    class Spy(LimiterAgent):
        def ask(self, state, n=1):
            states.append(state)
            return super().ask(state, n)

    monkeypatch.setattr(strategies, "make", lambda name, seed=0, agent_version=None, **_: Spy(agent_version))
    bench = Replay(rec)
    bench.explicit = {"agent_version"}
    events, miss = [], None
    try:
        run_search(bench, open_db(tmp_path / f"v{version}.db"), shape=shape, seed=SEED,
                   artifacts=tmp_path / f"art{version}", options=SearchOptions(budget=20, agent_version=version),
                   say=lambda e: events.append((e.kind, dict(e))))
    except ReplayMiss as e:
        miss = str(e)
    return states, events, miss


def static_row(knobs: dict, head_dim: str = "128", arch: str = "sm_90") -> dict:
    """`static --json` of one candidate (the device code alone, no GPU): the row the report prints for it."""
    args = ["static", "--arch", arch, "--json", "--head-dim", head_dim]
    for k, v in knobs.items():
        args += ["--knob", f"{k}={v}"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)[0]


def suite_margins(tgz: Path) -> dict:
    """scripts/device_suite.py --plan margins records packed in a call's json.tgz: (shape up to its dtype, BASE->CAND)
    -> the paired margin, rounded to 4 places (warm-up pairs left out)."""
    out = {}
    with tarfile.open(tgz) as tf:
        for m in tf.getmembers():
            if m.name.endswith("margins.json"):
                for tag, r in json.load(tf.extractfile(m))["margins"].items():
                    shape, *rest = tag.split(":")
                    if rest[0] != "warmup":
                        out[shape.split("-float")[0].split("-bfloat")[0], rest[-1]] = round(r["margin"], 4)
    return out


def device_pairs(suffix: str, bases: list[str], **off) -> dict:
    """scripts/device_suite.py's kernels named NAME + suffix: each in one bitwise tier pair with its base NAME (the
    bases given, in any order), and the same knobs as the base once `off` (the knob at its default) is applied.
    Returns device_suite's KERNELS."""
    import sys

    from kernel_src.knobs import Knobs

    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    pairs = [p for dims in ds.TIER.values() for p in dims if p[0].endswith(suffix)]
    assert sorted(pairs) == sorted([f"{n}{suffix}", n] for n in bases)
    for cand, base in pairs:
        assert Knobs.parse(ds.KERNELS[cand]).replace(**off) == Knobs.parse(ds.KERNELS[base]), cand
    return ds.KERNELS


def pairing_segments(folder: Path) -> tuple[dict, dict[str, list[dict]]]:
    """The pairing's clocks record in `folder` (pairing_clocks.json.gz, written by
    results/2026-12-07_cpu_h200_tier_policy31/pairing_clocks.py): the record, and its segments by partner (self, cudnn,
    flash), each asserted under the software power cap with no thermal or hardware slowdown, 400 alternations."""
    rec = json.loads(gzip.decompress((folder / "pairing_clocks.json.gz").read_bytes()))
    seg: dict[str, list[dict]] = {}
    for s in rec["segments"]:
        seg.setdefault(s["partner"], []).append(s)
        assert s["sw_power_cap"] == 1.0 and s["thermal"] == 0.0 and s["hw_slowdown"] == 0.0 and s["alternations"] == 400
    assert rec["power_limit_w"] == 700.0
    return rec, seg
