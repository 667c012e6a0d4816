"""Each knob is declared once, in kernel_src/knob_table.py: the committed CUDA header is what the table generates,
the pydantic model, the binding, the covering set and the samplers read the same table, and adding a knob is one
row of it."""

import dataclasses
import re
import shutil
import subprocess
import sys

import pytest

from kernel_src import knob_table as table
from kernel_src.knobs import _CODES, _INTS, SEED, KnobError, Knobs, inlined


def test_the_committed_header_is_what_the_table_generates():
    assert table.HEADER.read_text() == table.render(), "stale: run python3 -m kernel_src.knob_table --write"
    r = subprocess.run([sys.executable, "-m", "kernel_src.knob_table", "--check"], capture_output=True, text=True)
    assert r.returncode == 0 and "up to date" in r.stdout


def test_the_pydantic_model_is_the_table():
    assert list(Knobs.model_fields) == [k.name for k in table.KNOBS]
    dump = SEED.model_dump(mode="json")
    for k in table.KNOBS:
        assert dump[k.name] == k.default, k.name
        if k.is_enum:
            assert [m.value for m in _CODES[k.name]] == list(k.values), k.name
        else:
            assert k.name in _INTS
    assert SEED.defines() == {k.macro: k.code(k.default) for k in table.KNOBS}
    # the header's macro defaults are the model's defaults
    gen = table.HEADER.read_text()
    for k in table.KNOBS:
        assert f"#ifndef {k.macro}\n#define {k.macro} {k.code(k.default)}\n#endif" in gen


def test_fa_config_writes_one_int_per_knob_in_the_table_s_order():
    gen = table.HEADER.read_text()
    assert f"#define FA_CONFIG_COUNT {len(table.KNOBS)}" in gen
    writes = re.findall(r"out\[(\d+)\] = (FA_\w+);", gen)
    assert writes == [(str(i), k.macro) for i, k in enumerate(table.KNOBS)]
    assert "FA_CONFIG_WRITE(out)" in inlined()  # fa_config's body is the generated one


def test_every_rule_has_its_sentence_and_its_static_assert():
    """Each rule of the table, broken alone on a configuration that keeps every other rule, is refused with its
    own sentence; and knobs_gen.cuh carries it as a static_assert (the rules over Knobs<...> members)."""
    bases = [SEED, Knobs(compute="mma", staging="cp_async"),
             Knobs(compute="mma", staging="cp_async", exp="ex2", kv_stages=2, rescale_skip="on"),
             Knobs(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", br=128, warps=8, kv_stages=2)]
    ws = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused", bc=64,
              kv_release="producer", mainloop="ws", kv_stages=2, causal_mask="predicate")
    bases += [Knobs(**ws, br=128, warps=8), Knobs(**ws, br=64, warps=4)]  # the warp-specialised mainloop's rules
    gen = table.HEADER.read_text()
    for rule in table.RULES:
        # the trials that break this rule alone among the rules before it (a bad value that an arithmetic check of
        # the validator refuses first, e.g. warps=1 against br=128, is passed over for the next bad value)
        trials = []
        for base in bases:
            d = base.model_dump(mode="json") | {n: v[0] for n, v in rule.when.items()}
            for n, allowed in rule.need.items():
                for bad in [x for x in (table.BY_NAME[n].values or (0, 1, 2, 3, 4)) if x not in allowed]:
                    trial = d | {n: bad}
                    if not [r for r in table.RULES[:table.RULES.index(rule)] if not r.holds(trial)]:
                        trials.append(trial)
        assert trials, rule.sentence
        said = []
        for trial in trials:
            with pytest.raises(KnobError) as e:
                Knobs.parse(trial)
            said.append(str(e.value))
            if said[-1] == rule.sentence.format(**trial):
                break
        assert said[-1] == rule.sentence.format(**trial), (rule.sentence, said)
        if all(table.BY_NAME[n].template for n in (*rule.when, *rule.need)):
            assert f'"{rule.brief}");' in gen


def test_a_new_knob_is_one_row_of_the_table():
    """Appending a knob (and a rule) to the table gives the header its macro default, its enum, its Knobs<...>
    parameter and member, its static_asserts, its place in Cfg and fa_config, and one more int."""
    new = table.Knob("consumer_wgs", ("two", "three"), "two", "consumer warpgroups beside the producer",
                     py_enum="ConsumerWgs", arms=("wgmma",), later=True, pinned="two")
    rule = table.Rule({"consumer_wgs": ("three",)}, {"kv_release": ("producer",)},
                      "knob 'consumer_wgs'=three needs kv_release=producer, not {kv_release}", "three consumers need a producer")
    text = table.render(table.KNOBS + (new,), table.RULES + (rule,))
    assert "#ifndef FA_CONSUMER_WGS\n#define FA_CONSUMER_WGS 0\n#endif" in text
    assert "enum { CONSUMER_WGS_TWO = 0, CONSUMER_WGS_THREE = 1 };" in text
    last = table.KNOBS[-1]
    assert f"int {last.cxx_member}_, int CONSUMER_WGS_>" in text and "static constexpr int CONSUMER_WGS = CONSUMER_WGS_;" in text
    assert "COMPUTE == WGMMA || CONSUMER_WGS == CONSUMER_WGS_TWO" in text
    assert "!(CONSUMER_WGS == CONSUMER_WGS_THREE) || (KV_RELEASE == KV_RELEASE_PRODUCER)" in text
    assert f"{last.macro}, FA_CONSUMER_WGS\n" in text and f"out[{len(table.KNOBS)}] = FA_CONSUMER_WGS;" in text
    assert f"#define FA_CONFIG_COUNT {len(table.KNOBS) + 1}" in text
    # and the table as it stands renders the committed header, byte for byte
    assert table.render() == table.HEADER.read_text()


def test_the_samplers_and_the_covering_set_read_the_table():
    from agent.strategies import base
    from kernel_src import covering

    assert base.LATER_KNOBS == ("softmax", "kv_overlap", "epilogue", "rescale_lazy", "pipeline", "kv_release",
                                "pingpong", "copies", "exp_poly", "pv_slab", "mainloop",
                                "q_load", "pv_wide", "order_sections", "item_stream", "o_store", "row_max",
                                "ws_producer_regs", "p_pack", "tail_rows", "q_buffers", "round_order",
                                "rescale_factor", "schedule", "kv_l2_hint", "mbar_wait", "desc_math",
                                "row_sum", "dependent_launch", "item_order", "tma_prefetch", "slot_item", "next_prefetch",
                                "p_in", "last_round", "turn_cycle", "pingpong_handoff", "warp_uniform")  # recorded replays depend on it
    assert base.PRODUCER_PINGPONG == "producer+pingpong" and base.EX2_POLY == "ex2+poly_"
    assert base.WS_Q_TMA == "ws+q_load_tma"
    assert covering.PINNED == {"copies": "loop", "exp_poly": "off", "pv_slab": "off", "mainloop": "general",
                               "q_load": "cp_async", "pv_wide": "off", "order_sections": "off", "item_stream": "off",
                               "o_store": "direct", "row_max": "chain", "ws_producer_regs": 0,
                               "p_pack": "after", "tail_rows": "compute", "q_buffers": 1,
                               "round_order": "in_place", "rescale_factor": "always",
                               "schedule": "static", "kv_l2_hint": "none", "mbar_wait": "poll", "desc_math": "per_mma",
                               "row_sum": "fadd", "dependent_launch": "off",
                               "item_order": "cta_order", "tma_prefetch": "off", "slot_item": "index", "next_prefetch": "off",
                               "p_in": "regs", "last_round": "whole", "turn_cycle": "off",
                               "pingpong_handoff": "item_start", "warp_uniform": "off"}
    assert covering.HOPPER_ONLY == {"compute": "wgmma", "layout": "sw128"}
    assert {n: v for n, v in covering.DOMAINS.items() if n != "tile"} == {
        k.name: [k.pinned] if k.pinned is not None else [v for v in k.values if v not in k.hopper_values]
        for k in table.KNOBS if k.name not in ("br", "bc", "warps")}


def test_the_scalar_arm_refuses_the_tensor_core_knobs_in_the_order_it_always_did():
    """The knobs the scalar path has no stage for (knob_table's arms without scalar), in the order the validator
    names the first of them: the order of the list it had before the table (pv_slab's own rule comes first)."""
    assert [k.name for k in table.KNOBS if "scalar" not in k.arms] == [
        "kv_stages", "q_in", "rescale_skip", "causal_mask", "store", "v_load", "persistent", "split_kv", "softmax",
        "kv_overlap", "epilogue", "rescale_lazy", "pipeline", "kv_release", "pingpong", "exp_poly", "pv_slab", "mainloop",
        "q_load", "pv_wide", "order_sections", "item_stream", "o_store", "row_max", "ws_producer_regs",
        "p_pack", "tail_rows", "q_buffers", "round_order", "rescale_factor", "schedule", "kv_l2_hint", "mbar_wait", "desc_math",
        "row_sum", "dependent_launch", "item_order", "tma_prefetch", "slot_item", "next_prefetch", "p_in",
        "last_round", "turn_cycle", "pingpong_handoff", "warp_uniform"]
    with pytest.raises(KnobError, match="knob 'q_in' applies to compute=mma only; the scalar path has no such stage"):
        SEED.replace(q_in="smem", store="cs")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_the_binding_reads_a_built_library_s_knobs(tmp_path):
    """fa_config of a real library, read on the CPU through the binding, gives back the knobs it was built with."""
    from experiments.build import BuildSpec, build
    from kernel_src.binding import KernelLib

    k = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", bc=32, kv_stages=2, split_kv=2,
              causal_mask="predicate", copies="unrolled")
    spec = BuildSpec(knobs=k, arch="sm_80", dims=(64,), causals=(False,))
    r = build([spec], tmp_path)[spec.key()]
    assert r.ok, r.log[-2000:]
    assert KernelLib(r.library).knobs == k


def test_knob_rows_are_complete():
    for k in table.KNOBS:
        assert k.default in k.values or not k.values, k.name
        assert set(k.arms) <= set(table.ARMS) and k.doc
        assert k.pinned is None or k.later, f"{k.name}: a pinned knob is one added after the recorded runs"
        if k.join:
            assert k.join.parent in table.BY_NAME and k.join.when in table.BY_NAME[k.join.parent].values
        assert dataclasses.is_dataclass(k)


def test_the_items_tile_by_tile_need_the_persistent_ws_mainloop_in_launch_order():
    sys.path.insert(0, str(table.__file__).rsplit("/kernel_src/", 1)[0] + "/scripts")
    import device_suite as ds

    best = ds.KERNELS[ds.RSB2]
    assert Knobs(**best, item_order="tiles_ascending").defines()["FA_ITEM_ORDER"] == 1
    with pytest.raises(ValueError, match="knob 'item_order'=tiles_ascending .* not mainloop=ws, persistent=on, "
                                         "cta_order=heaviest_first, split_kv=1"):
        Knobs(**{**best, "cta_order": "heaviest_first"}, item_order="tiles_ascending")
    with pytest.raises(ValueError, match="persistent=off"):
        Knobs(**{**best, "persistent": "off", "schedule": "static"}, item_order="tiles_ascending")


def test_the_short_tiles_late_share_the_rule_and_the_prefetch_needs_tma():
    sys.path.insert(0, str(table.__file__).rsplit("/kernel_src/", 1)[0] + "/scripts")
    import device_suite as ds

    best = ds.KERNELS[ds.RSB2]
    assert Knobs(**best, item_order="short_tiles_late").defines()["FA_ITEM_ORDER"] == 2
    with pytest.raises(ValueError, match="knob 'item_order'=short_tiles_late .* not mainloop=ws, persistent=on, "
                                         "cta_order=heaviest_first"):
        Knobs(**{**best, "cta_order": "heaviest_first"}, item_order="short_tiles_late")
    assert Knobs(**best, tma_prefetch="on").defines()["FA_TMA_PREFETCH"] == 1
    with pytest.raises(ValueError, match="knob 'tma_prefetch'=on .* not staging=cp_async"):
        Knobs(compute="mma", staging="cp_async", tma_prefetch="on")
