"""Where a TPE run's draws spend their time: each complete TPE run of this record replayed on the CPU from its recording
(no GPU, no builds: the measurements come from the recording), counting Optuna's asks and timing them against the
replay's wall time. CPU only: PYTHONPATH=. python3 results/2026-12-04_h200_race/tpe_asks.py > .../tpe_asks.txt"""
import tarfile
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app

HERE = Path(__file__).resolve().parent


def main() -> None:
    import optuna

    spent = {"ask": 0.0, "tell": 0.0, "suggest": 0.0, "asks": 0}

    def timed(f, key):
        def g(self, *a, **kw):
            t = time.perf_counter()
            try:
                return f(self, *a, **kw)
            finally:
                spent[key] += time.perf_counter() - t
                spent["asks"] += key == "ask"
        return g

    optuna.Study.ask, optuna.Study.tell = timed(optuna.Study.ask, "ask"), timed(optuna.Study.tell, "tell")
    optuna.Trial.suggest_categorical = timed(optuna.Trial.suggest_categorical, "suggest")
    optuna.Trial.suggest_int = timed(optuna.Trial.suggest_int, "suggest")
    print(f"optuna {optuna.__version__}")
    for run in ("call3/d128_tpe_1", "call6/d128_tpe_2", "call4/d128_tpe_3"):
        spent.update(ask=0.0, tell=0.0, suggest=0.0, asks=0)
        with tempfile.TemporaryDirectory() as d:
            with tarfile.open(HERE / f"{run}_db.tar.xz") as tf:
                tf.extractall(d, filter="data")
            t0 = time.perf_counter()
            res = CliRunner().invoke(app, ["run", "--replay", f"{d}/fa5090_artifacts/run-1/recording.jsonl",
                                           "--db", f"{d}/r.db"])
            wall = time.perf_counter() - t0
        assert res.exit_code == 0, res.output
        print(f"{run}: replay {wall:.1f} s; {spent['asks']} asks for 20 draws; in Optuna: ask {spent['ask']:.1f} s, "
              f"suggest {spent['suggest']:.1f} s, tell {spent['tell']:.1f} s")


if __name__ == "__main__":
    main()
