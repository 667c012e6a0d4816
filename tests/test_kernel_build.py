"""The kernel compiles for real with nvcc for sm_80, sm_90 and sm_120, at the seed and at the
best configuration the H200 run kept; registers and spills are read from ptxas."""

import shutil
import subprocess

import pytest

from experiments.build import BuildSpec, build
from kernel_src.knobs import SEED, Knobs
from profiler.ptxas import parse_ptxas

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")

# The run's final kernel (results/2026-11-30_h200_run2: tensor_cores, swizzle, cp_async, exp2, padding kept).
BEST = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2")


# The compile tests below read ptxas's report only: they build the device code alone (host=False, nvcc -cubin;
# the front end still checks the host code), 10-30% of a library's time (results/2026-12-01_cpu_ci_time).
def test_seed_and_best_compile_for_three_archs_without_spills(build_cache):
    specs = [BuildSpec(knobs=k, arch=a, dtypes=("float16", "bfloat16"), dims=(64, 128), host=False)
             for k in (SEED, BEST) for a in ("sm_80", "sm_90", "sm_120")]
    res = build(specs, build_cache)
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry]
        assert len(recs) == 8, f"{spec.arch}: 2 dtypes x 2 head dims x 2 mask modes, got {len(recs)}"
        for rec in recs:
            assert rec.arch == spec.arch
            assert 32 <= rec.registers <= 255
            assert rec.spill_stores == 0 and rec.spill_loads == 0, (spec.knobs.label(), spec.arch, rec)


def test_only_the_c_api_is_exported(build_cache):
    """Default visibility made template statics STB_GNU_UNIQUE and merged them across two
    candidates in one process (results/2026-11-30_h200_run1_failed_gnu_unique)."""
    if shutil.which("nm") is None:
        pytest.skip("nm not installed")
    spec = BuildSpec(knobs=SEED, arch="sm_80")  # a library of the default two instantiations: the exports are the file's
    r = build([spec], build_cache)[spec.key()]
    assert r.ok, r.log[-2000:]
    out = subprocess.run(["nm", "-D", "--defined-only", r.library], capture_output=True, text=True).stdout
    names = sorted(line.split()[-1] for line in out.splitlines() if line.split()[-2] not in ("A",))
    assert names == ["fa_attributes", "fa_config", "fa_error_string", "fa_fwd", "fa_fwd_strided", "fa_item_trace",
                     "fa_last_round", "fa_strided"], names


def test_compile_error_is_a_result_not_an_exception(tmp_path, monkeypatch):
    import experiments.build as b

    bad = tmp_path / "broken.cu"
    bad.write_text("this is not CUDA\n")
    monkeypatch.setattr(BuildSpec, "source_path", lambda self: bad)
    spec = BuildSpec(knobs=SEED, arch="sm_90")
    r = b.build([spec], tmp_path / "c")[spec.key()]
    assert not r.ok and r.library is None and "error" in r.log


def test_rebuild_is_a_cache_hit(tmp_path):
    spec = BuildSpec(knobs=SEED, arch="sm_90")
    first = build([spec], tmp_path)[spec.key()]
    second = build([spec], tmp_path)[spec.key()]
    assert first.ok and not first.cached and second.cached


def test_ceiling_microbenchmark_compiles_for_three_archs(build_cache):
    specs = [BuildSpec(knobs=SEED, arch=a, source="mma_peak.cu", host=False) for a in ("sm_80", "sm_90", "sm_120")]
    res = build(specs, build_cache)
    for s in specs:
        assert res[s.key()].ok, res[s.key()].log[-1000:]
        recs = [x for x in parse_ptxas(res[s.key()].log) if x.entry]
        assert len(recs) == 2 and all(r.spill_stores == 0 for r in recs)


def test_defect_switch_compiles_and_changes_the_binary(build_cache):
    from experiments.defects import BASE, DEFECTS

    specs = [BuildSpec(knobs=BASE, arch="sm_90", defect=code) for code, _ in DEFECTS.values()]
    assert len({s.key() for s in specs} | {BuildSpec(knobs=BASE, arch="sm_90").key()}) == len(DEFECTS) + 1
    # the device code of each defect; side_stream's is host code alone, built as the library the battery loads
    specs = [s if s.defect == DEFECTS["side_stream"][0] else s.model_copy(update={"host": False}) for s in specs]
    res = build(specs, build_cache)
    assert all(res[s.key()].ok for s in specs), [res[s.key()].log[-800:] for s in specs if not res[s.key()].ok]


def test_fault_switches_compile_match_the_kernels_enum_and_stay_out_of_the_defect_battery(build_cache):
    """The hang and the illegal-address fault (scripts/device_faults.py) are FA_DEFECT values of
    their own, numbered as the kernel's enum (defects.cuh) numbers them, and never in DEFECTS: derive-tolerance
    runs every defect in one process, which a hang or a sticky fault would end."""
    import re

    from experiments.defects import BASE, DEFECTS, FAULTS, NUMERICS
    from kernel_src.knobs import inlined

    body = re.search(r"enum \{\s*DEF_NONE = 0,(.*?)\};", inlined(), re.S).group(1)
    names = re.findall(r"\bDEF_([A-Z_]+)", body)
    enum = {n.lower(): i + 1 for i, n in enumerate(names)}
    for name, (code, *_) in {**DEFECTS, **FAULTS, **NUMERICS}.items():
        assert enum[name] == code, (name, code, enum.get(name))
    assert not set(FAULTS) & set(DEFECTS) and not set(NUMERICS) & (set(DEFECTS) | set(FAULTS))
    assert len(enum) == len(DEFECTS) + len(FAULTS) + len(NUMERICS)
    specs = [BuildSpec(knobs=BASE, arch="sm_90", defect=code, host=False) for code, _ in FAULTS.values()]
    specs += [BuildSpec(knobs=knobs, arch="sm_90", defect=code, host=False) for code, _, knobs in NUMERICS.values()]
    res = build(specs, build_cache)
    assert all(res[s.key()].ok for s in specs), [res[s.key()].log[-800:] for s in specs]


def test_cache_key_covers_knobs_arch_and_instantiations():
    a = BuildSpec(knobs=SEED, arch="sm_90")
    assert a.key() != BuildSpec(knobs=SEED.replace(exp="ex2"), arch="sm_90").key()
    assert a.key() != BuildSpec(knobs=SEED, arch="sm_80").key()
    assert a.key() != BuildSpec(knobs=SEED, arch="sm_90", dims=(64,)).key()
    assert a.key() == BuildSpec(knobs=Knobs.parse(SEED.model_dump()), arch="sm_90").key()


# The register-lean FA2 shapes with the FA2-era knobs (BR 128 on 4 warps with BC 32 and every
# FA2 knob on; BR 64 x BC 32 with QK^T pipelined over a three-stage ring): no spill on any of the
# three architectures at either head dim, and the pipelined loop holds a second QK^T (the prologue's).
FA2_LEAN = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, q_in="smem",
                 rescale_skip="on", softmax="fused", kv_overlap="on", epilogue="smem", rescale_lazy="on")
FA2_PIPE = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", bc=32, q_in="smem", kv_stages=3,
                 rescale_skip="on", softmax="fused", pipeline="on")


def test_fa2_knobs_compile_for_three_archs_without_spills(build_cache):
    specs = [BuildSpec(knobs=k, arch=a, dtypes=("float16",), dims=(64, 128), causals=(False,), host=False)
             for k in (FA2_LEAN, FA2_PIPE) for a in ("sm_80", "sm_90", "sm_120")]
    res = build(specs, build_cache)
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry]
        assert len(recs) == 2
        for rec in recs:
            assert rec.spill_stores == 0 and rec.spill_loads == 0, (spec.knobs.label(), spec.arch, rec)


# the mma.sync kernel that runs 1.006-1.012x SDPA flash on the H200 (results/2026-11-30_h200_mma_reaches_flash): BR 128 x BC 32 on
# 4 warps, two m16 tiles a warp, unrolled copies
S5_UNROLLED = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", br=128, warps=4, bc=32, kv_stages=2,
                    q_in="smem", rescale_skip="on", softmax="fused", epilogue="smem", rescale_lazy="on", copies="unrolled")


def _every_instantiation_on_three_archs(knobs: Knobs, cache) -> list[tuple[str, object]]:
    """ptxas's record of each of the 8 instantiations (fp16/bf16, D 64/128, causal or not) on sm_80, sm_90, sm_120."""
    specs = [BuildSpec(knobs=knobs, arch=a, dtypes=("float16", "bfloat16"), dims=(64, 128), host=False)
             for a in ("sm_80", "sm_90", "sm_120")]
    res = build(specs, cache)
    out = []
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        assert len(recs) == 8
        out += [(spec.arch, rec) for rec in recs]
    return out


def test_the_unrolled_s5_kernel_compiles_for_three_archs_without_spills(build_cache):
    """Every instantiation (fp16/bf16, D 64/128, causal or not) on sm_80, sm_90 and sm_120, 0 spills; the same tile
    on BC 64 spills in its D=128 causal instantiation (results/2026-11-30_cpu_build_checks/mma_spills.txt)."""
    for arch, rec in _every_instantiation_on_three_archs(S5_UNROLLED, build_cache):
        assert rec.registers <= 234 and rec.spill_stores == 0 and rec.spill_loads == 0, (arch, rec)


# FlashAttention-2's 128 x 64 tile on 4 warps, register-lean: P slab by slab (pv_slab), the predicate
# mask (interior blocks carry no mask code), one K/V stage (fits sm_120's 99 KB); on the H200: 1.004-1.006x
# SDPA flash at N8192 D128 fp16, 1.033x causal (results/2026-11-30_h200_pv_slab_lean_tile)
B64_LEAN = S5_UNROLLED.replace(bc=64, persistent="on", causal_mask="predicate", pv_slab="on", kv_stages=1)


def test_the_lean_bc64_kernel_compiles_for_three_archs_without_spills(build_cache):
    """Every instantiation of the lean 128 x 64 kernel on sm_80, sm_90 and sm_120: 255 registers at most, 0 spills
    (without pv_slab it spills on all three: results/2026-11-30_cpu_build_checks/pv_slab.txt)."""
    for arch, rec in _every_instantiation_on_three_archs(B64_LEAN, build_cache):
        assert rec.spill_stores == 0 and rec.spill_loads == 0, (arch, rec)


def test_wgmma_probe_builds_for_sm90a_only(tmp_path):
    """The wgmma probe compiles for sm_90a with shared-memory and register-A warpgroup
    MMAs, and the same source is refused for plain sm_90 (wgmma needs the arch-specific target)."""
    src = __import__("pathlib").Path(__file__).resolve().parents[1] / "kernel_src" / "wgmma_probe.cu"
    ptx = tmp_path / "p.ptx"
    ok = subprocess.run(["nvcc", "-O3", "-std=c++17", "-ptx", "-gencode", "arch=compute_90a,code=compute_90a", str(src), "-o", str(ptx)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr[-2000:]
    text = ptx.read_text()
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in text and "m64n128k16" in text
    assert "wgmma.fence.sync.aligned" in text and "fence.proxy.async.shared::cta" in text
    bad = subprocess.run(["nvcc", "-O3", "-std=c++17", "-cubin", "-gencode", "arch=compute_90,code=sm_90", str(src), "-o",
                          str(tmp_path / "p.cubin")], capture_output=True, text=True)
    assert bad.returncode != 0 and "not supported on .target 'sm_90'" in bad.stderr


# The Hopper arm as a knob family, built here (no GPU); on the H200: results/2026-11-30_h200_wgmma_first_battery.
WGMMA = Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem")


def test_the_wgmma_arm_builds_for_sm90a_without_spills(build_cache):
    """compute=wgmma builds with the sm_90a target (the build adds the `a`), every dtype, head dim and
    mask mode, with fewer registers than the mma.sync kernel and no spill; one and two warpgroups."""
    specs = [BuildSpec(knobs=k, arch="sm_90", dtypes=("float16", "bfloat16"), dims=(64, 128), host=False)
             for k in (WGMMA, WGMMA.replace(br=128, warps=8, kv_stages=2, rescale_skip="on"))]
    assert all("-gencode=arch=compute_90a,code=sm_90a" in s.flags() for s in specs)
    res = build(specs, build_cache)
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        assert len(recs) == 8 and all(x.arch == "sm_90a" for x in recs)
        assert all(x.spill_stores == 0 and x.spill_loads == 0 and x.registers <= 200 for x in recs), recs


def test_the_wgmma_arm_is_refused_off_hopper_before_any_build():
    from kernel_src.arch import TABLE, launch_refusal
    from kernel_src.knobs import KnobError

    why = launch_refusal(TABLE["sm_80"], smem=WGMMA.smem_bytes(128), threads=WGMMA.threads(), needs_arch=WGMMA.needs_arch())
    assert why and "sm_90 only" in why and "sm_80" in why
    assert launch_refusal(TABLE["sm_90"], smem=WGMMA.smem_bytes(128), threads=WGMMA.threads(), needs_arch="sm_90") is None
    with pytest.raises(KnobError, match="layout=sw128"):
        WGMMA.replace(layout="swizzle")
    with pytest.raises(KnobError, match="q_in=smem"):
        WGMMA.replace(q_in="regs")
    with pytest.raises(KnobError, match="warpgroups"):
        WGMMA.replace(bc=16)
    with pytest.raises(KnobError, match="only compute=mma tiles"):
        WGMMA.replace(br=128, warps=4)
    with pytest.raises(KnobError, match="layout=sw128"):
        Knobs(compute="mma", layout="swizzle").replace(layout="sw128")


def test_the_hopper_battery_set_is_valid_and_stays_on_the_arm():
    from kernel_src.covering import covering_set, hopper_set

    hs = hopper_set()
    assert len(hs) == 44 and all(k.compute.value == "wgmma" and k.needs_arch() == "sm_90" for k in hs)
    assert sum(k.staging.value == "tma" for k in hs) == 23 and sum(k.pipeline.value == "on" for k in hs) == 7
    assert sum(k.kv_release.value == "last_warp" for k in hs) == 4 and sum(k.kv_release.value == "producer" for k in hs) == 7
    assert sum(k.pingpong.value == "on" for k in hs) == 4
    assert not any(k.compute.value == "wgmma" for k in covering_set())  # every arch compiles the covering set


def test_static_refuses_the_wgmma_arm_off_hopper_and_counts_hgmma_on_it(cli_build_cache):
    from typer.testing import CliRunner

    from agent.cli import app

    knobs = ["--knob", "compute=wgmma", "--knob", "layout=sw128", "--knob", "staging=cp_async", "--knob", "exp=ex2",
             "--knob", "q_in=smem"]
    res = CliRunner().invoke(app, ["static", "--arch", "sm_80", *knobs])
    assert res.exit_code == 2 and "--arch sm_90" in res.output
    res = CliRunner().invoke(app, ["static", "--arch", "sm_90", "--json", *knobs])
    assert res.exit_code == 0, res.output
    (row,) = __import__("json").loads(res.output)
    assert row["built"] and row["spill_bytes"] == 0 and row["refusal"] is None
    if row["census"]:  # cuobjdump present: both GEMMs on warpgroup MMA, D=128 at BC 64 (8 + 4 x 2)
        assert row["census"].get("HGMMA") == 16 and not row["census"].get("HMMA") and not row["census"].get("LDSM")


# TMA staging on the wgmma arm, built here (no GPU); on the H200: results/2026-11-30_h200_tma_pipeline_tier.
def test_tma_staging_builds_for_sm90a_with_tensor_copies_and_no_spill(build_cache):
    """staging=tma: every dtype, head dim and mask mode at one and two stages, persistent (barrier
    phases carried across items) and split-KV; no spill, and fewer registers than the cp.async build
    of the same tile (no per-thread address arithmetic for K and V)."""
    tma = WGMMA.replace(staging="tma")
    knobs = [tma, tma.replace(kv_stages=2), tma.replace(bc=32, kv_stages=3, persistent="on"),
             tma.replace(br=128, warps=8, kv_stages=2, causal_mask="split", split_kv=2), WGMMA.replace(kv_stages=2),
             # the next block's QK^T under this softmax, on both stagings
             tma.replace(kv_stages=2, pipeline="on"), WGMMA.replace(kv_stages=2, pipeline="on"),
             # the ring without its block barrier, on the tile that ran 1.743x SDPA flash
             tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on", kv_release="last_warp"),
             tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on"),
             # and warp specialisation: a producer warpgroup, setmaxnreg (FlashAttention-3's BC 128 with the pipeline)
             tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on", kv_release="producer"),
             tma.replace(br=128, warps=8, bc=128, kv_stages=2, pipeline="on", kv_release="producer")]
    specs = [BuildSpec(knobs=k, arch="sm_90", dtypes=("float16", "bfloat16"), dims=(64, 128), host=False) for k in knobs]
    res = build(specs, build_cache)
    regs = {}
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        assert len(recs) == 8 and all(x.spill_stores == 0 and x.spill_loads == 0 for x in recs), recs
        regs[spec.knobs.label()] = max(x.registers for x in recs)
    assert regs[tma.replace(kv_stages=2).label()] < regs[WGMMA.replace(kv_stages=2).label()], regs
    # kv_release=last_warp keeps that tile at 2 CTAs/SM by registers (256 threads x 128 = half the file;
    # thread 0 waiting on an empty mbarrier instead cost 138, results/2026-11-30_cpu_build_checks/kv_release_build.txt)
    lazy = tma.replace(br=128, warps=8, kv_stages=2, rescale_skip="on", rescale_lazy="on")
    assert regs[lazy.replace(kv_release="last_warp").label()] <= 128 and regs[lazy.label()] <= 128, regs
    # warp specialisation: the register count at entry pinned at the 384-thread share (setmaxnreg needs it,
    # ptxas C7508 otherwise); at BC 128 with the pipeline no spill where a shared path spilled 1348 B
    for k in (lazy.replace(kv_release="producer"),
              tma.replace(br=128, warps=8, bc=128, kv_stages=2, pipeline="on", kv_release="producer")):
        assert regs[k.label()] == 168, regs
        assert "C7507" not in res[BuildSpec(knobs=k, arch="sm_90", dtypes=("float16", "bfloat16"), dims=(64, 128),
                                            host=False).key()].log


def test_tma_staging_is_the_wgmma_arm_s_and_counts_its_barriers():
    from kernel_src.knobs import KnobError

    with pytest.raises(KnobError, match="compute=wgmma"):
        Knobs.parse({"compute": "mma", "layout": "swizzle", "staging": "tma"})
    with pytest.raises(KnobError, match="kv_overlap"):
        WGMMA.replace(staging="tma", kv_overlap="on")
    tma = WGMMA.replace(staging="tma", kv_stages=3)
    assert tma.smem_bytes(128) == WGMMA.replace(kv_stages=3).smem_bytes(128) + 3 * 16  # a K and a V mbarrier a stage
    assert tma.defines()["FA_STAGING"] == 2


def test_kv_release_is_the_tma_ring_s_and_counts_its_bytes():
    from kernel_src.knobs import KnobError

    with pytest.raises(KnobError, match="staging=tma and kv_stages=2 or 3"):
        WGMMA.replace(kv_stages=2, kv_release="last_warp")  # cp.async
    with pytest.raises(KnobError, match="staging=tma and kv_stages=2 or 3"):
        WGMMA.replace(staging="tma", kv_release="last_warp")  # one buffer
    ring = WGMMA.replace(staging="tma", kv_stages=3)
    assert ring.replace(kv_release="last_warp").smem_bytes(128) == ring.smem_bytes(128) + 3 * 8  # a count a stage
    assert ring.replace(kv_release="last_warp").defines()["FA_KV_RELEASE"] == 1 and ring.defines()["FA_KV_RELEASE"] == 0
    assert ring.key() == Knobs.parse({**ring.model_dump(mode="json")}).key()  # its default stays out of the key
    ws = ring.replace(kv_release="producer")
    assert ws.threads() == ring.threads() + 128 and ws.smem_bytes(128) == ring.replace(kv_release="last_warp").smem_bytes(128)
    assert ws.defines()["FA_KV_RELEASE"] == 2
    with pytest.raises(KnobError, match="min_ctas=2 leaves them too few"):
        ws.replace(min_ctas=2)


def test_pingpong_is_the_producer_kernel_s_two_warpgroups():
    """pingpong=on: turns between the two consumer warpgroups beside the producer warpgroup; refused
    with a sentence naming the knob anywhere else, off by default and out of the key."""
    from kernel_src.knobs import KnobError

    ring = WGMMA.replace(staging="tma", kv_stages=2, br=128, warps=8)
    ws = ring.replace(kv_release="producer")
    for bad in (ring, ring.replace(kv_release="last_warp"), ws.replace(br=64, warps=4)):
        with pytest.raises(KnobError, match="knob 'pingpong'=on .* needs kv_release=producer, compute=wgmma and warps=8"):
            bad.replace(pingpong="on")
    with pytest.raises(KnobError):
        Knobs(compute="mma", staging="cp_async", kv_stages=2, br=128, warps=8).replace(pingpong="on")
    pp = ws.replace(pingpong="on")
    assert pp.defines()["FA_PINGPONG"] == 1 and ws.defines()["FA_PINGPONG"] == 0
    assert pp.threads() == ws.threads() and pp.smem_bytes(128) == ws.smem_bytes(128)  # two named barriers, no bytes
    assert "pingpong" not in ws.canonical() and pp.label().endswith("/kv_release=producer/pingpong=on")


def test_pingpong_builds_for_sm90a_without_spill_on_two_more_named_barriers(build_cache):
    """The turns' two named barriers (ids 2 and 3, immediates: a register id made ptxas reserve all 16) on the
    measured tile and FlashAttention-3's BC 128 with the pipeline; every instantiation, no spill, setmaxnreg kept
    (no C7507/C7508), the consumers' registers at entry as without the turns."""
    tma = WGMMA.replace(staging="tma", br=128, warps=8, kv_stages=2, kv_release="producer")
    knobs = [tma.replace(rescale_skip="on", rescale_lazy="on", pingpong="on"),
             tma.replace(bc=128, pipeline="on", pingpong="on")]
    specs = [BuildSpec(knobs=k, arch="sm_90", dtypes=("float16", "bfloat16"), dims=(64, 128), host=False) for k in knobs]
    res = build(specs, build_cache)
    for spec in specs:
        r = res[spec.key()]
        assert r.ok, r.log[-2000:]
        recs = [x for x in parse_ptxas(r.log) if x.entry and "fa_fwd_kernel" in x.function]
        assert len(recs) == 8 and all(x.spill_stores == 0 and x.spill_loads == 0 for x in recs), recs
        assert all(x.registers == 168 and x.barriers == 4 for x in recs), recs
        assert not any(c in r.log for c in ("C7507", "C7508", "C7512")), r.log[-2000:]


def test_static_counts_tensor_copies_for_tma_staging(cli_build_cache):
    from typer.testing import CliRunner

    from agent.cli import app

    knobs = ["--knob", "compute=wgmma", "--knob", "layout=sw128", "--knob", "staging=tma", "--knob", "exp=ex2",
             "--knob", "q_in=smem", "--knob", "kv_stages=2"]
    res = CliRunner().invoke(app, ["static", "--arch", "sm_90", "--json", *knobs])
    assert res.exit_code == 0, res.output
    (row,) = __import__("json").loads(res.output)
    assert row["built"] and row["spill_bytes"] == 0 and row["refusal"] is None
    if row["census"]:  # cuobjdump present: K and V by tensor copies (2 boxes each at D=128, prologue and loop)
        c = row["census"]
        assert c.get("UTMALDG") == 8 and c.get("HGMMA") == 16 and c.get("LDGSTS", 0) <= 8  # only Q by cp.async
