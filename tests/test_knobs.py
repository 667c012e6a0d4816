import pytest

from kernel_src.arch import TABLE, ctas_per_sm, launch_refusal
from kernel_src.knobs import SEED, KnobError, Knobs


def test_seed_is_the_naive_kernel():
    assert SEED.label() == "scalar/row_major/scalar/expf/t64x64w4"
    assert SEED.defines() == {"FA_COMPUTE": 0, "FA_LAYOUT": 0, "FA_STAGING": 0, "FA_EXP": 0, "FA_BR": 64, "FA_BC": 64,
                              "FA_WARPS": 4, "FA_KV_STAGES": 1, "FA_Q_IN": 0, "FA_RESCALE_SKIP": 0, "FA_CAUSAL_MASK": 0,
                              "FA_CTA_ORDER": 0, "FA_MIN_CTAS": 0, "FA_STORE": 0, "FA_V_LOAD": 0, "FA_PERSISTENT": 0,
                              "FA_SPLIT_KV": 1, "FA_SOFTMAX": 0, "FA_KV_OVERLAP": 0, "FA_EPILOGUE": 0,
                              "FA_RESCALE_LAZY": 0, "FA_PIPELINE": 0, "FA_KV_RELEASE": 0, "FA_PINGPONG": 0,
                                  "FA_COPIES": 0, "FA_EXP_POLY": 0, "FA_PV_SLAB": 0, "FA_MAINLOOP": 0, "FA_Q_LOAD": 0,
                                  "FA_PV_WIDE": 0, "FA_ORDER_SECTIONS": 0, "FA_ITEM_STREAM": 0,
                                  "FA_O_STORE": 0, "FA_ROW_MAX": 0, "FA_WS_PRODUCER_REGS": 0,
                                  "FA_P_PACK": 0, "FA_TAIL_ROWS": 0,
                                  "FA_Q_BUFFERS": 1, "FA_ROUND_ORDER": 0,
                                  "FA_RESCALE_FACTOR": 0, "FA_SCHEDULE": 0,
                                  "FA_KV_L2_HINT": 0, "FA_MBAR_WAIT": 0, "FA_DESC_MATH": 0, "FA_ROW_SUM": 0,
                                      "FA_DEPENDENT_LAUNCH": 0, "FA_ITEM_ORDER": 0, "FA_TMA_PREFETCH": 0,
                                      "FA_SLOT_ITEM": 0, "FA_NEXT_PREFETCH": 0, "FA_P_IN": 0, "FA_LAST_ROUND": 0, "FA_TURN_CYCLE": 0,
                                      "FA_PINGPONG_HANDOFF": 0, "FA_WARP_UNIFORM": 0}


def test_knobs_are_frozen_and_hashable():
    with pytest.raises(Exception):
        SEED.compute = "mma"
    assert len({SEED, Knobs(), SEED.replace(compute="mma")}) == 2


@pytest.mark.parametrize("data, words", [
    ({"tiles": 3}, "unknown knob 'tiles'"),
    ({"compute": "tensor"}, "knob 'compute' cannot be 'tensor'"),
    ({"br": 128}, "only compute=mma tiles"),
    ({"compute": "mma", "br": 96}, "knob 'br' must equal 16 x 'warps'"),
    ({"compute": "mma", "br": 64, "warps": 8}, "would need br=128 or 256"),
    ({"compute": "mma", "split_kv": 3}, "knob 'split_kv' must be 1 (no split), 2, 4 or 8"),
    ({"split_kv": 2}, "knob 'split_kv' applies to compute=mma only"),
    ({"persistent": "on"}, "knob 'persistent' applies to compute=mma only"),
    ({"compute": "mma", "v_load": "ldmatrix"}, "knob 'v_load' cannot be 'ldmatrix'"),
    ({"bc": 48}, "knob 'bc' must be 16, 32, 64 or 128"),
    ({"warps": 3, "br": 48}, "knob 'warps' must be 1, 2, 4 or 8"),
    ({"compute": "mma", "kv_stages": 2}, "needs staging=cp_async"),
    ({"kv_stages": 4}, "knob 'kv_stages' must be 1, 2 or 3"),
    ({"rescale_skip": "on"}, "knob 'rescale_skip' applies to compute=mma only"),
    ({"min_ctas": 9}, "knob 'min_ctas' must be 0"),
    ({"store": "nt"}, "knob 'store' cannot be 'nt'"),
])
def test_invalid_knobs_are_refused_with_a_sentence_naming_the_knob(data, words):
    with pytest.raises(KnobError) as e:
        Knobs.parse(data)
    assert words in str(e.value)


def test_assignments():
    k = Knobs.parse_assignments(["compute=mma", "layout = swizzle"])
    assert k.label() == "mma/swizzle/scalar/expf/t64x64w4"
    with pytest.raises(KnobError, match="NAME=VALUE"):
        Knobs.parse_assignments(["compute"])


def test_smem_arithmetic_matches_the_h200_driver():
    # cudaFuncGetAttributes on the H200 (results/2026-11-30_h200_smoke/smoke.jsonl)
    assert Knobs(compute="mma", layout="swizzle").smem_bytes(128) == 49152
    assert Knobs(compute="mma", layout="pad").smem_bytes(128) == 52224
    assert Knobs(layout="swizzle").smem_bytes(128) == 65536  # scalar adds the fp32 P tile
    assert Knobs(compute="mma", bc=128).smem_bytes(128) == 81920


def test_pipeline_depth_in_the_smem_arithmetic():
    base = Knobs(compute="mma", staging="cp_async")
    assert base.replace(kv_stages=3).smem_bytes(128) == (64 + 2 * 64 * 3) * 128 * 2  # 114688 B


def test_three_kv_stages_at_d128_do_not_fit_a_99kb_part_but_fit_the_h200():
    """The seed's example: depth 3 at D=128 (114,688 B) refused on the 5090 before any build."""
    k = Knobs(compute="mma", staging="cp_async", kv_stages=3)
    smem = k.smem_bytes(128)
    assert launch_refusal(TABLE["sm_90"], smem=smem, threads=128) is None
    why = launch_refusal(TABLE["sm_120"], smem=smem, threads=128)
    assert why == "114688 B of shared memory per CTA exceeds sm_120's opt-in limit of 101376 B per block"


def test_preflight_refuses_what_cannot_launch_on_a_99kb_part():
    k = Knobs(compute="mma", br=128, warps=8, bc=128, layout="pad")
    smem = k.smem_bytes(128)
    assert launch_refusal(TABLE["sm_90"], smem=smem, threads=256) is None
    why = launch_refusal(TABLE["sm_120"], smem=smem, threads=256)
    assert why and str(smem) in why and "101376" in why


def test_occupancy_arithmetic_matches_the_driver():
    # H200 driver: mma/swizzle 186 regs, 49152 B -> 2 CTAs/SM; t64x32 167 regs, 32768 B -> 3
    assert ctas_per_sm(TABLE["sm_90"], threads=128, smem=49152, regs=186)[0] == 2
    assert ctas_per_sm(TABLE["sm_90"], threads=128, smem=32768, regs=167)[0] == 3


def test_identity_of_the_first_seven_knobs_is_frozen():
    """Recorded runs key their questions by this text (the H200 run's ncu files carry the key)."""
    assert SEED.canonical() == '{"bc":64,"br":64,"compute":"scalar","exp":"expf","layout":"row_major","staging":"scalar","warps":4}'
    assert SEED.key() == "76ae46c5d1ee"


def test_the_lab_blocks_by_arithmetic_before_any_build(tmp_path):
    """Pre-flight runs on the device's limits before nvcc: three K/V stages at D=128 on a 99 KB
    part is an outcome, BLOCKED_BY_ARITHMETIC, with the arithmetic in its detail."""
    from experiments.lab import Lab
    from experiments.outcome import Outcome
    from experiments.problem import Shape

    lab = Lab(Shape(B=2, H=16, N=2048, D=128), TABLE["sm_120"], tmp_path)
    base = Knobs(compute="mma", staging="cp_async")
    ev = lab.evaluate(base, base.replace(kv_stages=3), t_keep=1.001, t_noise=0.001)
    assert ev.outcome is Outcome.BLOCKED_BY_ARITHMETIC
    assert ev.detail == "114688 B of shared memory per CTA exceeds sm_120's opt-in limit of 101376 B per block"
    assert not (tmp_path / "build").exists()  # nothing was compiled


def test_new_knobs_keep_old_keys_and_reach_the_compiler():
    best = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])
    assert best.key() == "c0ad5cc57896"  # the key the H200 recordings hold for the final kernel
    k = best.replace(br=128, warps=4, v_load="lds", persistent="on", split_kv=4)
    assert k.label() == "mma/pad/cp_async/ex2/t128x64w4/v_load=lds/persistent=on/split_kv=4"
    d = k.defines()
    assert (d["FA_BR"], d["FA_WARPS"], d["FA_V_LOAD"], d["FA_PERSISTENT"], d["FA_SPLIT_KV"]) == (128, 4, 1, 1, 4)
    # the persistent grid's work-item slot is in the arithmetic, as in smem_bytes<>() of fa_fwd.cu
    assert k.smem_bytes(128) == best.replace(br=128, warps=4).smem_bytes(128) + 16
    assert k.workspace_bytes(2, 16, 8192, 128) == 4 * 2 * 16 * 8192 * 129 * 4 and best.workspace_bytes(2, 16, 8192, 128) == 0


def test_split_kv_workspace_is_preflight_arithmetic(tmp_path):
    """Split-KV's fp32 partials must fit in device memory beside the problem; a 24 GB card refuses
    eight splits of B8 H32 N32768 D128 (34.6 GB of partials) before any build, and says why."""
    from experiments.lab import Lab
    from experiments.outcome import Outcome
    from experiments.problem import Shape

    card = TABLE["sm_89"].model_copy(update={"global_mem": 24 * 2**30})
    base = Knobs(compute="mma", staging="cp_async")
    lab = Lab(Shape(B=8, H=32, N=32768, D=128), card, tmp_path)
    ev = lab.evaluate(base, base.replace(split_kv=8), t_keep=1.001, t_noise=0.001)
    assert ev.outcome is Outcome.BLOCKED_BY_ARITHMETIC
    assert "split_kv=8 needs 34628173824 B of fp32 partials" in ev.detail and str(24 * 2**30) in ev.detail
    assert not (tmp_path / "build").exists()
    assert Lab(Shape(B=1, H=8, N=4096, D=128), card, tmp_path).preflight(base.replace(split_kv=8)) is None


def test_fa2_knobs_refuse_what_their_schedule_cannot_do():
    """The FA2-era knobs: the overlap schedule is one-buffer cp.async, the smem epilogue writes
    16-byte default stores of the final output, and the lazy max counts in log2 units and pays
    only through the rescale vote. Each refusal names the knob."""
    mma = SEED.replace(compute="mma", staging="cp_async", exp="ex2")
    with pytest.raises(KnobError, match="kv_overlap"):
        mma.replace(kv_overlap="on", kv_stages=2)
    with pytest.raises(KnobError, match="kv_overlap"):
        SEED.replace(compute="mma", kv_overlap="on")
    with pytest.raises(KnobError, match="epilogue"):
        mma.replace(epilogue="smem", split_kv=2)
    with pytest.raises(KnobError, match="epilogue"):
        mma.replace(epilogue="smem", store="cs")
    with pytest.raises(KnobError, match="rescale_lazy"):
        mma.replace(rescale_lazy="on")  # no vote
    with pytest.raises(KnobError, match="rescale_lazy"):
        mma.replace(exp="expf", rescale_skip="on", rescale_lazy="on")
    with pytest.raises(KnobError, match="applies to compute=mma only"):
        SEED.replace(softmax="fused")
    k = mma.replace(kv_overlap="on", epilogue="smem", softmax="fused", rescale_skip="on", rescale_lazy="on")
    assert k.defines()["FA_KV_OVERLAP"] == 1 and k.defines()["FA_SOFTMAX"] == 1
    assert k.label().endswith("/softmax=fused/kv_overlap=on/epilogue=smem/rescale_lazy=on")
    # defaults leave every earlier key as it was
    assert mma.canonical() == Knobs.parse(mma.model_dump(mode="json")).canonical() and "softmax" not in mma.canonical()


def test_pipeline_needs_the_ring():
    mma = SEED.replace(compute="mma", staging="cp_async")
    with pytest.raises(KnobError, match="pipeline"):
        mma.replace(pipeline="on")
    assert mma.replace(kv_stages=3, pipeline="on").defines()["FA_PIPELINE"] == 1


def test_a_wgmma_n128_tile_under_a_register_cap_ptxas_cannot_meet_is_refused():
    """ptxas aborts t128x128w8 with min_ctas=3 on the wgmma arm (80 registers, a wgmma m64n128 needs
    90; results/2026-11-30_cpu_build_checks/wgmma_min_ctas_register_cap.txt): refused before a build,
    while the tiles and bounds that built stay valid."""
    wg = Knobs(compute="wgmma", layout="sw128", staging="cp_async", exp="ex2", q_in="smem")
    for bad in (dict(br=128, warps=8, bc=128, min_ctas=3), dict(br=128, warps=8, bc=128, min_ctas=4)):
        with pytest.raises(KnobError, match="knob 'min_ctas'.*m64n128"):
            wg.replace(**bad)
    for ok in (dict(br=128, warps=8, bc=128, min_ctas=2), dict(br=128, warps=8, bc=64, min_ctas=3),
               dict(br=128, warps=8, bc=32, min_ctas=3), dict(bc=128, min_ctas=3), dict(min_ctas=3)):
        wg.replace(**ok)
    Knobs(compute="mma", br=128, warps=8, bc=128, min_ctas=3)  # mma.sync spills instead: unchanged
