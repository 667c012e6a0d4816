"""Where this record's run spent its wall time, from its database alone, by the fast-run record's reader
(../2026-12-02_h200_fast_run/where_the_time_went.py): python3 results/2026-12-02_h200_figures_wait/where_the_time_went.py"""
import importlib.util
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("fast_run_time", HERE.parent / "2026-12-02_h200_fast_run" / "where_the_time_went.py")
reader = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reader)
reader.HERE = HERE
reader.RUNS = [("call1/d128", "B2 H16 N2048 D128, the README's run again, figures_s recorded, fresh database, cold build cache"),
               ("call2/d128", "the same run once more, on a fresh machine, after an ncu of two kernels")]

if __name__ == "__main__":
    reader.main(Path(tempfile.mkdtemp()))
