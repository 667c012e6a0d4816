import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.diagnosis import Diagnosis, Metrics, diagnose, metrics_from_row
from profiler.metrics import METRICS, STALL_REASONS, chip_family, compute_capability, metric_names
from profiler.ncu import (CountersNotPermitted, NcuFailed, NcuFormatError, NcuMissing, NcuTimeout,
                          NoKernelProfiled, UnknownMetric, check_output, ncu_command, parse_raw_csv, run_ncu)
from profiler.ptxas import find_entry, parse_ptxas

ROOT = Path(__file__).resolve().parents[1]
ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_120")

# ---------------------------------------------------------------- metrics


def _gh100_list() -> Path | None:
    for base in (ROOT / "shared", ROOT.parent / "shared"):
        p = base / "device" / "h200" / "ncu_metrics_gh100.txt"
        if p.exists():
            return p
    return None


def test_every_gh100_counter_exists_in_the_chips_own_list():
    path = _gh100_list()
    if path is None:
        pytest.skip("shared/device/h200/ncu_metrics_gh100.txt not in this checkout")
    listed = {line.split()[0] for line in path.read_text().splitlines() if line.strip()}
    for name in metric_names("sm_90").values():
        base = name.split(".")[0]
        # Launch statistics and the occupancy calculator are not counters: --query-metrics omits them.
        if base.startswith(("launch__", "sm__maximum_warps_")):
            continue
        assert base in listed, name


def test_every_counter_the_anatomy_script_asks_for_exists_on_gh100():
    """scripts/device_anatomy.py's EXTRA list (the xu, FMA and ALU pipes beside the tensor pipe among them) names
    counters gh100 has: read from the script's source, not imported (it needs a GPU's torch)."""
    import ast

    path = _gh100_list()
    if path is None:
        pytest.skip("shared/device/h200/ncu_metrics_gh100.txt not in this checkout")
    listed = {line.split()[0] for line in path.read_text().splitlines() if line.strip()}
    tree = ast.parse((ROOT / "scripts" / "device_anatomy.py").read_text())
    extra = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                 and any(getattr(t, "id", None) == "EXTRA" for t in n.targets))
    assert "sm__inst_executed_pipe_xu.sum" in extra
    for name in extra:
        base = name.split(".")[0]
        if base.startswith("launch__"):  # launch statistics are not counters: --query-metrics omits them
            continue
        assert base in listed, name


def test_metrics_model_has_a_field_per_logical_metric():
    from profiler.metrics import _ONLY

    scalars = {k for k in METRICS if not k.startswith("stall_")} | {k for only in _ONLY.values() for k in only}
    fields = set(Metrics.model_fields) - {"arch", "kernel", "stalls"}
    assert scalars == fields
    assert {k[len("stall_"):] for k in METRICS if k.startswith("stall_")} == set(STALL_REASONS)


def test_metric_names_per_arch():
    for arch in ARCHS:  # every chip its table, gh100 (Hopper) also its warpgroup-MMA counters
        extra = ({"gmma_inst", "shared_gmma_wavefronts", "shared_gmma_bank_conflicts", "xu_pipe_pct"}
                 if compute_capability(arch) == 90 else set())
        assert metric_names(arch).keys() == METRICS.keys() | extra
    assert metric_names("sm_90")["tensor_pipe_pct"].startswith("sm__pipe_tensor_op_hmma_cycles_active.")
    assert "_v2." in metric_names("sm_89")["tensor_pipe_pct"]
    assert metric_names("sm_120")["tensor_pipe_pct"].startswith("sm__pipe_tensor_cycles_active.")
    assert [compute_capability(a) for a in ("sm_90a", "9.0", "compute_120", 86)] == [90, 90, 120, 86]
    assert chip_family("sm_121") == "gb20x"
    with pytest.raises(ValueError, match="compute capability 70"):
        metric_names("sm_70")


# ---------------------------------------------------------------- ptxas (real nvcc)

PROBE = r"""
__device__ __noinline__ float helper(float* p, int k) {
  float v[32];
  for (int i = 0; i < 32; i++) v[i] = p[i * k];
  float r = 0;
  for (int i = 0; i < 32; i++) r += v[(i * k) & 31] * v[i];
  return r;
}
__global__ void fa_fwd_probe(const float* __restrict__ a, float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[255 - threadIdx.x] + helper(out, threadIdx.x);
}
__global__ void spill_probe(const float* __restrict__ a, float* out, int n) {
  float acc[128];
#pragma unroll
  for (int k = 0; k < 128; ++k) acc[k] = a[threadIdx.x * 128 + k];
  float r = 0;
#pragma unroll
  for (int j = 0; j < 8; j++)
#pragma unroll
    for (int k = 0; k < 128; ++k) r += acc[k] * acc[(k + j) & 127] * (k + 1);
  out[threadIdx.x] = r * n;
}
"""


def _nvcc() -> str | None:
    return shutil.which("nvcc") or next((p for p in ("/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc")
                                         if Path(p).exists()), None)


@pytest.fixture(scope="module")
def ptxas_report(tmp_path_factory):
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("nvcc not installed")
    d = tmp_path_factory.mktemp("ptxas")
    (d / "probe.cu").write_text(PROBE)
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in (80, 90, 120)]
    # -rdc keeps `helper` a separate function, so the report has non-entry blocks too;
    # -maxrregcount=32 makes spill_probe spill.
    p = subprocess.run([nvcc, *gencode, "-rdc=true", "-maxrregcount=32", "-Xptxas", "-v", "-c",
                        "probe.cu", "-o", "probe.o"], cwd=d, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stderr


def test_ptxas_parses_real_nvcc_output(ptxas_report):
    recs = parse_ptxas(ptxas_report)
    for arch in ("sm_80", "sm_90", "sm_120"):
        k = find_entry(recs, "fa_fwd", arch)
        assert k.function == "_Z12fa_fwd_probePKfPf"
        assert 0 < k.registers <= 32 and k.barriers == 1 and k.smem == 1024 and not k.spills
        s = find_entry(recs, "spill_probe", arch)
        assert s.spills and s.spill_stores > 0 and s.spill_loads > 0 and s.stack_frame >= s.spill_stores
        helpers = [r for r in recs if "helper" in r.function and r.arch == arch]
        assert helpers and not any(r.entry for r in helpers)
    assert {r.arch for r in recs} == {"sm_80", "sm_90", "sm_120"}
    with pytest.raises(LookupError):
        find_entry(recs, "fa_fwd")  # three archs: ambiguous without one


def test_ptxas_line_formats():
    text = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z10fa_fwd_kernelv' for 'sm_90a'
ptxas info    : Function properties for _Z10fa_fwd_kernelv
    8 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 168 registers, used 1 barriers, 8 bytes cumulative stack size, 49152 bytes smem, 400 bytes cmem[0], 8 bytes cmem[2]
"""
    (r,) = parse_ptxas(text)
    assert (r.arch, r.entry, r.registers, r.barriers, r.smem) == ("sm_90a", True, 168, 1, 49152)
    assert (r.stack_frame, r.spill_stores, r.spill_loads, r.cumulative_stack) == (8, 4, 8, 8)
    assert r.cmem == {0: 400, 2: 8}


# ---------------------------------------------------------------- ncu raw-page CSV

IDENTITY = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "CC"]


def raw_csv(rows: list[dict[str, str]], arch: str = "sm_90", units: dict[str, str] | None = None) -> str:
    """ncu --csv --page raw as 2025.3 prints it: a FORMAT test only, values invented. Real H200
    captures will be added by the project lead under tests/fixtures/."""
    names = list(dict.fromkeys(metric_names(arch).values()))
    units = units or {}
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(IDENTITY + names)
    w.writerow([""] * len(IDENTITY) + [units.get(n, "") for n in names])
    for i, r in enumerate(rows):
        w.writerow([str(i), "4242", "python3", "127.0.0.1", "fa_fwd_kernel", "1", "7", "(128, 1, 1)",
                    "(32, 32, 1)", "0", "9.0"] + [r.get(n, "0") for n in names])
    return ("==PROF== Connected to process 4242 (/usr/bin/python3)\n"
            "correctness: max_abs 1.2e-03, bound 2.4e-03, \"pass\"\n"
            "==PROF== Profiling \"fa_fwd_kernel\" - 0: 0%....50%....100% - 38 passes\n"
            "==PROF== Disconnected from process 4242\n" + buf.getvalue())


N = metric_names("sm_90")


def test_parse_raw_csv_layout():
    text = raw_csv([{N["duration_ns"]: "1,234,567", N["tensor_pipe_pct"]: "27.58",
                     N["l2_hit_pct"]: "n/a", N["stall_long_scoreboard"]: "1.1571"},
                    {N["duration_ns"]: "1,200,000"}],
                   units={N["duration_ns"]: "ns", N["tensor_pipe_pct"]: "%"})
    rows = parse_raw_csv(text)
    assert len(rows) == 2
    r = rows[0]
    assert r["Kernel Name"] == "fa_fwd_kernel" and r["Block Size"] == "(128, 1, 1)" and r["ID"] == "0"
    assert r[N["duration_ns"]] == 1234567.0 and r[N["tensor_pipe_pct"]] == 27.58
    assert r[N["l2_hit_pct"]] == "n/a"
    assert r.units[N["tensor_pipe_pct"]] == "%"
    m = metrics_from_row(r, "sm_90")
    assert m.duration_ns == 1234567.0 and m.tensor_pipe_pct == 27.58 and m.l2_hit_pct is None
    assert m.stalls["long_scoreboard"] == 1.1571 and m.kernel == "fa_fwd_kernel"
    assert metrics_from_row(rows[1], "sm_90").duration_ns == 1200000.0


# A slice of a real capture: ncu 2025.3.1 on the H200, a 16x16x16 wmma probe named fa_fwd_probe (not
# our kernel), 345 columns cut to these; cell text, quoting and the preamble are as ncu printed them.
H200_PROBE = """==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 562 (/tmp/p)
==PROF== Disconnected from process 562
"ID","Kernel Name","Block Size","Grid Size","CC","gpu__time_duration.sum","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","smsp__inst_executed_op_ldsm.sum","smsp__sass_inst_executed_op_shared_ld.sum","sm__warps_active.avg.per_cycle_active","launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps","launch__occupancy_limit_blocks","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio","smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"
"","","","","","ns","%","","","inst","inst","warp","block","block","block","block","inst","inst","inst"
"0","fa_fwd_probe(const __half *, const __half *, float *, int)","(32, 1, 1)","(1024, 1, 1)","9.0","9,024","45.90","1,048,576","524,288","131,072","0","7.66","64","32","64","32","4.92","2.63","1"
"""


def test_real_h200_capture_slice():
    (r,) = parse_raw_csv(H200_PROBE)
    m = metrics_from_row(r, "sm_90")
    assert (m.duration_ns, m.tensor_pipe_pct, m.ldsm_inst, m.achieved_warps_per_sm) == (9024, 45.9, 131072, 7.66)
    d = diagnose(m)
    # ldmatrix.x4 on 32-byte rows: 8 wavefronts per instruction where 4 is the floor.
    assert (d.wavefronts_per_shared_ld, d.ideal_wavefronts_per_shared_ld, d.conflict_factor) == (8, 4, 2)
    assert d.occupancy_limiter == "shared_memory+ctas" and d.ctas_per_sm == 32


def test_duration_in_scaled_units_is_brought_to_ns():
    (r,) = parse_raw_csv(raw_csv([{N["duration_ns"]: "567.648"}], units={N["duration_ns"]: "usecond"}))
    assert metrics_from_row(r, "sm_90").duration_ns == pytest.approx(567648.0)


def test_parse_raw_csv_without_a_table_or_of_the_wrong_page():
    assert parse_raw_csv("==PROF== Connected\n==WARNING== No kernels were profiled.\n") == []
    details = '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","k","s","m","%","1"\n'
    with pytest.raises(NcuFormatError):
        parse_raw_csv(details)


def test_ncu_command_layout():
    cmd = ncu_command(["python3", "run.py", "--n", "2048"], "sm_90", launch_skip=3)
    assert cmd[:4] == ["ncu", "--csv", "--page", "raw"]
    for flag, val in (("--clock-control", "none"), ("--kernel-name", "regex:fa_fwd"), ("--launch-skip", "3"),
                      ("--launch-count", "1"), ("--target-processes", "all"), ("--print-units", "base")):
        assert cmd[cmd.index(flag) + 1] == val
    assert cmd[-4:] == ["python3", "run.py", "--n", "2048"]
    metrics = cmd[cmd.index("--metrics") + 1].split(",")
    assert set(metrics) == set(N.values()) and len(metrics) == len(set(metrics))


# ---------------------------------------------------------------- ncu failures, through a stand-in binary

# Nsight Compute's own wording (ncu 2023.x-2025.x), as users have pasted it.
PERM = ("==PROF== Connected to process 11156 (/usr/bin/python3)\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
        "Counters on the target device 0. For instructions on enabling permissions and to get more "
        "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
        "==PROF== Disconnected from process 11156\n")


def fake_ncu(tmp_path: Path, stdout: str, rc: int = 0, sleep: float = 0) -> str:
    (tmp_path / "out.txt").write_text(stdout)
    script = tmp_path / "ncu"
    script.write_text(f"#!{sys.executable}\nimport sys, time\ntime.sleep({sleep})\n"
                      f"sys.stdout.write(open({str(tmp_path / 'out.txt')!r}).read())\nsys.exit({rc})\n")
    script.chmod(0o755)
    return str(script)


def test_counters_not_permitted(tmp_path):
    with pytest.raises(CountersNotPermitted, match="NVreg_RestrictProfilingToAdminUsers=0"):
        check_output(PERM)
    with pytest.raises(CountersNotPermitted, match="root"):
        run_ncu(["./bench"], "sm_90", timeout=30, ncu=fake_ncu(tmp_path, PERM, rc=1))


def test_ncu_missing_unknown_metric_no_kernel_timeout(tmp_path):
    with pytest.raises(NcuMissing):
        run_ncu(["./bench"], "sm_90", timeout=30, ncu=str(tmp_path / "nope" / "ncu"))
    with pytest.raises(UnknownMetric, match="bad_metric"):
        check_output("==ERROR== Failed to find metric regex:^bad_metric\\.(sum|avg)$\n")
    with pytest.raises(NoKernelProfiled, match="regex:fa_fwd"):
        run_ncu(["./bench"], "sm_90", timeout=30, ncu=fake_ncu(tmp_path, "==WARNING== No kernels were profiled.\n"))
    with pytest.raises(NcuFailed, match="exited 3"):
        run_ncu(["./bench"], "sm_90", timeout=30, ncu=fake_ncu(tmp_path, "==ERROR== the application crashed\n", rc=3))
    with pytest.raises(NcuTimeout):
        run_ncu(["./bench"], "sm_90", timeout=0.5, ncu=fake_ncu(tmp_path, "", sleep=30))


def test_run_ncu_returns_rows(tmp_path):
    res = run_ncu(["./bench"], "sm_90", timeout=30,
                  ncu=fake_ncu(tmp_path, raw_csv([{N["tensor_pipe_pct"]: "82.66"}])))
    assert res.returncode == 0 and res.command[-1] == "./bench"
    assert metrics_from_row(res.rows()[0], "sm_90").tensor_pipe_pct == 82.66


# ---------------------------------------------------------------- diagnosis rules, on the seed's figures


def stalls(**kw: float) -> dict[str, float]:
    return {"selected": 1.0, **kw}


def test_v0_tensor_idle_wins_over_everything():
    d = diagnose(Metrics(tensor_pipe_pct=0.0, fma_pipe_pct=61.0, achieved_warps_per_sm=4.0,
                         shared_ld_wavefronts=32e6, shared_ld_bank_conflicts=28e6, lds_inst=1e6,
                         stalls=stalls(short_scoreboard=3.0, long_scoreboard=1.0, mio_throttle=1.0)))
    assert d.label == "tensor_idle_scalar_fma" and "0.0%" in d.summary


def test_v1_bank_conflicts_factor_8():
    # 32 wavefronts per ldmatrix.x4 against 4, 28 conflicts each; shared stalls 35.3%, global 44.7%.
    d = diagnose(Metrics(tensor_pipe_pct=27.58, ldsm_inst=1e6, shared_ld_wavefronts=32e6,
                         shared_ld_bank_conflicts=28e6, achieved_warps_per_sm=16,
                         stalls=stalls(long_scoreboard=0.447, mio_throttle=0.2, short_scoreboard=0.153, wait=0.2)))
    assert d.label == "smem_bank_conflicts"
    assert (d.wavefronts_per_shared_ld, d.ideal_wavefronts_per_shared_ld, d.conflict_factor) == (32.0, 4.0, 8.0)
    assert "32.00" in d.summary and "4.00" in d.summary and "8.0x" in d.summary
    assert d.top_stalls[0] == ("long_scoreboard", pytest.approx(0.447))


def test_v2_global_latency_after_the_swizzle():
    d = diagnose(Metrics(tensor_pipe_pct=40.9, ldsm_inst=1e6, shared_ld_wavefronts=4e6, shared_ld_bank_conflicts=0,
                         l2_hit_pct=95.16, achieved_warps_per_sm=16,
                         stalls=stalls(long_scoreboard=1.3, math_pipe_throttle=0.4, wait=0.3)))
    assert d.label == "global_latency" and d.conflict_factor == 1.0 and "65%" in d.summary


def test_v4_tensor_bound():
    d = diagnose(Metrics(tensor_pipe_pct=82.66, achieved_warps_per_sm=8,
                         stalls=stalls(math_pipe_throttle=4.76, wait=1.66, barrier=0.4)))
    assert d.label == "tensor_bound" and "82.7%" in d.summary


def test_occupancy_limited_names_the_limiter():
    d = diagnose(Metrics(tensor_pipe_pct=30.0, achieved_warps_per_sm=4.0, block_size=128, occ_limit_registers=1,
                         occ_limit_shared_memory=1, occ_limit_warps=16, occ_limit_ctas=32,
                         registers_per_thread=209, smem_static_per_block=0, smem_dynamic_per_block=81920,
                         waves_per_sm=6.0235, stalls=stalls(short_scoreboard=1.0, long_scoreboard=0.9, wait=0.8)))
    assert d.label == "occupancy_limited"
    assert d.occupancy_limiter == "registers+shared_memory" and d.ctas_per_sm == 1
    assert (d.registers, d.smem_per_cta, d.warps_per_sm, d.waves_per_sm) == (209, 81920, 4.0, 6.0235)


def test_barrier_bound_and_issue_chain():
    d = diagnose(Metrics(tensor_pipe_pct=55.0, achieved_warps_per_sm=16,
                         stalls=stalls(barrier=1.357, math_pipe_throttle=1.0, wait=0.8)))
    assert d.label == "barrier_bound"
    # v4 at 2 warps per scheduler: wait 1.6579 and barrier 0.3969 on a serial chain.
    d = diagnose(Metrics(tensor_pipe_pct=55.0, achieved_warps_per_sm=8,
                         stalls=stalls(wait=1.6579, barrier=0.3969, math_pipe_throttle=0.9, short_scoreboard=0.3)))
    assert d.label == "issue_latency_chain" and "2.0 warps per scheduler" in d.summary


def test_unknown_and_stall_shares():
    d = diagnose(Metrics())
    assert isinstance(d, Diagnosis) and d.label == "unknown" and d.top_stalls == []
    d = diagnose(Metrics(tensor_pipe_pct=50.0, achieved_warps_per_sm=32,
                         stalls=stalls(not_selected=1.0, math_pipe_throttle=1.0, dispatch_stall=1.0, drain=1.0)),
                 issue_bound=False)
    assert d.label == "unknown"  # as agents 1-3 read it; from agent 4 half the weight waiting to issue is issue_bound
    assert len(d.top_stalls) == 3 and all(s == pytest.approx(0.25) for _, s in d.top_stalls)
    assert "selected" not in dict(d.top_stalls)


def test_an_issue_bound_mma_sync_kernel_on_hopper_is_told_about_wgmma():
    """On a part with warpgroup MMA an issue- or tensor-bound mma.sync kernel's diagnosis
    names the lever that moves there; on other parts, and for a kernel already issuing wgmma, not."""
    stalls = {"wait": 0.5, "short_scoreboard": 0.4, "long_scoreboard": 0.05}
    base = dict(stalls=stalls, tensor_pipe_pct=40.0, achieved_warps_per_sm=8.0, theoretical_warps_per_sm=8.0)
    hopper = diagnose(Metrics(arch="sm_90", **base))
    assert hopper.label == "issue_latency_chain" and "lever wgmma" in hopper.summary
    assert "wgmma" not in diagnose(Metrics(arch="sm_80", **base)).summary
    assert "lever wgmma" not in diagnose(Metrics(arch="sm_90", gmma_inst=1e6, **base)).summary
