"""The GPU fault battery on the H200 (scripts/device_faults.sh), read from its records: an illegal address, a side
stream and a hang, each with the GPU freed and the next candidate measured in a fresh worker; then SIGKILL x20 at
random moments and the resume that ends with the uninterrupted run's keeps."""
import json
import tarfile

from recorded import RESULTS

FAULTS_FIRST = RESULTS / "2026-11-30_h200_tma_pipeline_tier"  # illegal address, side stream, hang; the kill phase planned short
FAULTS_KILLS = RESULTS / "2026-11-30_h200_kv_release_ws"  # faults.tgz: SIGKILL x20 then resume


def test_the_gpu_fault_battery_as_far_as_it_ran():
    """On the H200: an illegal address -> CRASH, a side stream -> WRONG, each with the GPU freed
    and the next candidate measured; a hang -> TIMEOUT at a shortened 95.5 s deadline, the GPU freed, the
    next candidate measured (second call). The kill phase made 0 kills: the planning kept 333 s for the
    final resume with 218 s left (a FAIL, recorded as such)."""
    s = (FAULTS_FIRST / "faults_summary.txt").read_text()
    for fault in ("illegal_address |", "illegal_address: GPU freed", "side_stream |", "side_stream: next candidate"):
        assert any(line.startswith(f"| {fault}") and line.endswith("| PASS |") for line in s.splitlines()), fault
    assert "| SIGKILL x20 at random moments |" in s and "0 kills" in s
    h = (FAULTS_FIRST / "faults_hang_summary.txt").read_text()
    assert any(line.startswith("| hang |") and "TIMEOUT after 95.7 s" in line and line.endswith("| PASS |")
               for line in h.splitlines())
    assert any(line.startswith("| hang: GPU freed") and line.endswith("| PASS |") for line in h.splitlines())


def test_sigkill_twenty_times_then_resume_ends_with_the_uninterrupted_keeps(tmp_path):
    """The GPU kill phase (scripts/device_faults.sh, PHASES="build ref kills"): 20 SIGKILLs of the whole
    process group at seeded random moments (4.7 ... 5.9 s; before the database, after the seed, in and
    after each lever), integrity ok after every kill, nothing doubled or lost, no process or GPU
    compute app of ours left, 11 resumes recorded; the final resume ends on its budget with the
    uninterrupted run's keeps in order (hopper_tile, exp2) and the same final kernel."""
    with tarfile.open(FAULTS_KILLS / "faults.tgz") as t:
        t.extractall(tmp_path, filter="data")
    f = tmp_path / "faults"
    s = (f / "summary.txt").read_text()
    for row in ("| SIGKILL x20 at random moments |", "| integrity after each kill |", "| nothing doubled, nothing lost |",
                "| no process of ours left after a kill |", "| resumed run finishes |", "| same keeps |"):
        line = next(x for x in s.splitlines() if x.startswith(row))
        assert line.endswith("| PASS |"), line
    k = json.loads((f / "kills.json").read_text())
    assert k["kills_wanted"] == 20 and len(k["cycles"]) == 20
    assert "same keeps: yes (uninterrupted: hopper_tile, exp2; killed and resumed: hopper_tile, exp2)" in s
    assert "final kernel: f05a7b7cd398 vs f05a7b7cd398" in (f / "compare.txt").read_text()
