"""The suite's answers do not depend on how pytest was started: started from a script in the background
(`nohup`, `&`), a process inherits SIGINT ignored and Python then raises no KeyboardInterrupt for it, and
the Ctrl-C tests must pass there too; none of them leaves a file in results/. (On the 2-core CPU machine
the whole suite was run so, `trap '' INT; nohup python3 -m pytest -q`: all passed, and
`git status --porcelain --ignored results/` printed nothing.)"""
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CTRL_C = ["tests/test_resume.py::test_ctrl_c_while_a_worker_runs_kills_its_process_group",
          "tests/test_resume.py::test_ctrl_c_in_a_run_exits_130_naming_run_resume_and_leaves_it_resumable"]


def _results_files() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in (ROOT / "results").rglob("*")}


def test_the_ctrl_c_tests_pass_in_a_suite_started_with_sigint_ignored(tmp_path):
    before = _results_files()
    got = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                          "--basetemp", str(tmp_path / "t"), *CTRL_C],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert got.returncode == 0 and "2 passed" in got.stdout, got.stdout[-3000:] + got.stderr[-2000:]
    assert _results_files() == before
