"""The device calls written for two GPUs (results/2026-12-03_cpu_two_gpus_plan), checked where a CPU can: the worker
killer against a local cluster built as `--gpus 2` builds it (agent.distributed.gpu_cluster: two Nannies, a worker
process each), the scripts' syntax and the problems they tune. The database check is exercised by
tests/test_distributed.py's killed-worker campaign."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "results" / "2026-12-03_cpu_two_gpus_plan"


def test_the_killer_kills_the_measuring_worker_and_its_nanny_starts_another(tmp_path):
    """A cluster of two workers (no GPU needed: the Nannies pin CUDA_VISIBLE_DEVICES 0 and 1) runs one task that
    measures (a child process, as a GPU job is); kill_worker.py finds that worker by its child and kills it: the task
    fails with KilledWorker (the scheduler retries nothing), and two workers answer again, one of them new."""
    hold = tmp_path / "hold_cluster.py"
    hold.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})

        def measure():
            import subprocess
            subprocess.run(["sleep", "8"])
            return "measured"

        def main():
            import dask
            from distributed import Client, KilledWorker
            from agent.distributed import CONFIG, gpu_cluster
            with dask.config.set(CONFIG):
                cluster = gpu_cluster(2, visible="0,1")
                c = Client(cluster)
                c.wait_for_workers(2, timeout=60)
                before = set(c.run(lambda: __import__("os").getpid()).values())
                fut = c.submit(measure, resources={{"GPU": 1}}, pure=False)
                try:
                    print("result", fut.result(timeout=60))
                except KilledWorker:
                    print("killed worker")
                c.wait_for_workers(2, timeout=60)
                after = set(c.run(lambda: __import__("os").getpid()).values())
                print("kept", len(before & after), "new", len(after - before), flush=True)
                c.close()
                cluster.close()

        if __name__ == "__main__":
            main()
    """))
    mark = f"hold_cluster.py {tmp_path.name}"
    held = subprocess.Popen([sys.executable, str(hold), tmp_path.name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        kill = subprocess.run([sys.executable, str(PLAN / "kill_worker.py"), "--pattern", mark, "--after", "1",
                               "--timeout", "60"], capture_output=True, text=True, timeout=90)
        out = held.communicate(timeout=90)[0]
    finally:
        held.kill()
    assert kill.returncode == 0 and "killed worker pid" in kill.stdout and "measuring" in kill.stdout, kill
    assert "killed worker" in out and "kept 1 new 1" in out, out


def test_the_scripts_parse_and_the_problems_are_three_buckets():
    for sh in PLAN.glob("*.sh"):
        assert subprocess.run(["bash", "-n", str(sh)], capture_output=True).returncode == 0, sh
    from experiments.problem import Shape  # noqa: F401  (the keys are the ones `history` prints)
    keys = [x for x in (PLAN / "shapes.txt").read_text().splitlines() if x and not x.startswith("#")]
    assert keys == [f"B1-H32-Hkv8-N{n}-D128-bfloat16-causal" for n in (2048, 4096, 8192)]
