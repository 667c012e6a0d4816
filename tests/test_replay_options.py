"""`run --replay` reuses the recorded run's options: from the run's row in the database beside the recording
(read-only), or from the recording's own header; an option given on the command line wins, and a divergence
names it. On the committed H200 runs."""
import json
from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "results"
RUN2 = RES / "2026-11-30_h200_run2"
AVR = RES / "2026-11-30_h200_agent_vs_random"
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _digest(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_replay_as_the_readme_says_reuses_the_recorded_options(tmp_path):
    """No --budget 12 --reanchor-every 0: the budget and command come from the run's row in the
    database beside the recording (read-only), the end-only re-anchor from the recording's age."""
    db = RUN2 / "fa5090.db"
    before = _digest(db)
    res = invoke("run", "--replay", RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl", "--db", tmp_path / "r.db")
    assert res.exit_code == 0, res.output
    assert f"replaying run 1 of {db}: fa5090-search run --budget 12" in res.output
    assert _digest(db) == before and sorted(p.name for p in RUN2.glob("fa5090.db*")) == ["fa5090.db"]
    rows = json.loads(invoke("history", "--json", "--db", tmp_path / "r.db").output)
    assert [(r["lever"], r["outcome"]) for r in rows if r["outcome"] == "KEPT"] == [
        ("tensor_cores", "KEPT"), ("swizzle", "KEPT"), ("cp_async", "KEPT"), ("exp2", "KEPT"), ("padding", "KEPT")]
    assert [r["kind"] for r in rows][-2:] == ["reanchor", "comparator"]
    kept = [r["detail"] for r in rows if r["outcome"] == "KEPT"]
    assert not any("pending" in d for d in kept) and all("not replicated (recorded before" in d for d in kept)


def test_a_replay_option_given_here_wins_and_a_divergence_names_it(tmp_path):
    rec = RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl"
    res = invoke("run", "--seed-knob", "exp=ex2", "--replay", rec, "--db", tmp_path / "d.db")
    assert res.exit_code == 1 and "(changed here: --seed-knob)" in res.output
    assert "has no answer for" in res.output and "this command line changed the recorded run's --seed-knob" in res.output


def test_a_recording_away_from_its_database_or_with_its_own_header(tmp_path):
    from agent.bench import Recorder, _key

    lines = (RUN2 / "fa5090_artifacts" / "run-1" / "recording.jsonl").read_text().splitlines()
    alone = tmp_path / "alone.jsonl"  # no database beside it: the options are given, re-anchors still by age
    alone.write_text("\n".join(lines) + "\n")
    res = invoke("run", "--budget", 12, "--replay", alone, "--db", tmp_path / "a.db")
    assert res.exit_code == 0 and "replaying" not in res.output, res.output
    # recordings since this change carry a header with every option of the run (Recorder.header)
    header = {"command": "fa5090-search run --budget 12", "budget": 12, "problem": {"B": 2, "H": 16, "N": 2048, "D": 128},
              "params": {"budget": 12, "seqlen": 2048, "seed_knob": [], "profile": True}}
    own = tmp_path / "own.jsonl"
    Recorder(None, own).header(header)  # what a real run writes first
    with own.open("a") as f:
        f.write("\n".join(lines) + "\n")
    assert json.loads(own.read_text().splitlines()[0]) == {"key": _key("run"), "result": header}
    res = invoke("run", "--replay", own, "--db", tmp_path / "o.db")
    assert res.exit_code == 0 and f"replaying the header of {own}: fa5090-search run --budget 12" in res.output, res.output
    rows = json.loads(invoke("history", "--json", "--db", tmp_path / "o.db").output)
    assert sum(r["outcome"] == "KEPT" for r in rows) == 5
