"""The library's host state per device and per stream as built on the CPU (results/2026-12-05_cpu_streams): ptxas's
figures say what the README says (a work list per stream where a build keeps one, nothing else moved), the device
check's kernels are valid knob sets of the kinds it names, and its call runs both sources."""
import re
import subprocess
import sys

from kernel_src.knobs import Knobs
from recorded import RESULTS

HERE = RESULTS / "2026-12-05_cpu_streams"


def test_a_work_list_per_stream_where_a_build_keeps_one_and_nothing_else_moves():
    rows = re.findall(r"^(sm_\d+) (\S+) (before|after): gmem (\d+) B; (.*)$", (HERE / "static_cpu.txt").read_text(), re.M)
    assert len(rows) == 12
    by = {(arch, n, tag): (int(g), figs) for arch, n, tag, g, figs in rows}
    for (arch, n, tag), (gmem, figs) in by.items():
        if tag == "after":
            before_gmem, before_figs = by[(arch, n, "before")]
            assert figs == before_figs, (arch, n)  # registers, stack, spills of every kernel
            assert before_gmem == 8 and gmem == (512 if n in ("mma_persistent", "ws3_dynamic") else 8), (arch, n)
            assert " 0/0 B" in figs.split("; ")[-1] and "spill 0/0 B" in figs.split("non-causal")[1]


def test_the_device_check_covers_a_work_list_a_workspace_and_a_control():
    sys.path.insert(0, str(HERE))
    import device_streams as ds

    k = {n: Knobs.parse(c) for n, c in ds.CONFIGS.items()}
    assert k["mma_persistent"].persistent.value == "on" and k["mma_persistent"].compute.value == "mma"
    assert k["mma_split4"].split_kv == 4
    assert k["ws3_dynamic"].schedule.value == "dynamic" and k["ws3_dynamic"].replace(schedule="static") == k["ws3_static"]
    call = (HERE / "device_call.sh").read_text()
    assert subprocess.run(["bash", "-n", str(HERE / "device_call.sh")]).returncode == 0
    assert "git archive -o before_src.tar 5c61264 kernel_src experiments" in call and "--before" in call


def test_the_ptx_differs_only_where_a_build_keeps_a_work_list_and_only_by_it():
    text = (HERE / "ptx_diff.txt").read_text()
    assert "103 of 719 differ; 102 of them keep a work list" in text and "reported the same: 0" in text
    changed = [ln[1:].strip() for ln in text.splitlines() if ln[:1] in "+-" and not ln.startswith(("---", "+++"))]
    # the pool, the parameter, its load and the list's address, the register declarations, the reset stores
    allowed = (".global .align 4 .b8 [", ".param .", "ld.param.u32", "shl.b32", "mul.wide.s32", "add.s64", ".reg .b",
               "st.global.u32")
    assert changed and all(ln.startswith(allowed) for ln in changed), [ln for ln in changed if not ln.startswith(allowed)]
    rerun = (HERE / "ptx_rerun_nondeterministic.txt").read_text()
    assert "# 3 of 3 same" in rerun
