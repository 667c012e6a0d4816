"""The item boundary of the persistent warp-specialised kernel: item_stream (a CTA's items as one stream of key
blocks: a measured negative) and o_store=tma (O by stmatrix and a TMA store: the win), agent 11's lever for the latter,
and the H200 records of both (results/2026-12-01_h200_item_stream), read as its README states them."""

import gzip
import json
import sys
from pathlib import Path

import pytest

from recorded import assert_tier_passed, read_record
from agent.levers import BY_NAME
from agent.policy import CURRENT, POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.arch import launch_refusal, limits
from kernel_src.knobs import KnobError, Knobs

ROOT = Path(__file__).resolve().parents[1]
REC = ROOT / "results" / "2026-12-01_h200_item_stream"
sys.path.insert(0, str(ROOT / "scripts"))
from device_suite import KERNELS, TIER  # noqa: E402


def test_the_knobs_say_what_they_need():
    qp_w = Knobs.parse(KERNELS["ws_op_lazy_qp_w"])
    assert Knobs.parse({**KERNELS["ws_op_lazy_qp_w"], "item_stream": "off", "o_store": "direct"}).key() == qp_w.key()
    with pytest.raises(KnobError, match="item_stream'=on .* needs mainloop=ws, persistent=on, pipeline=on and "
                                        "q_load=tma, not .*persistent=off"):
        Knobs.parse({**KERNELS["ws_op_lazy_qp_w"], "persistent": "off", "item_stream": "on"})
    with pytest.raises(KnobError, match="o_store'=tma is the warp-specialised mainloop's epilogue"):
        Knobs.parse({**KERNELS["arm"], "o_store": "tma"})
    # one CTA per item and two CTAs per SM take O by TMA too (the tier's ws_op_lazy_ot and ws2c_ot)
    Knobs.parse(KERNELS["ws_op_lazy_ot"])
    Knobs.parse(KERNELS["ws2c_ot"])


def test_shared_memory_counts_the_second_q_tile_and_the_o_tile():
    base = Knobs.parse(KERNELS["ws_op_lazy_qp_w"])
    tile = 128 * 128 * 2  # BR x D fp16
    assert Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot"]).smem_bytes(128) == base.smem_bytes(128) + tile
    assert Knobs.parse(KERNELS["ws_op_lazy_qp_w_is"]).smem_bytes(128) == base.smem_bytes(128) + tile + 16
    # BC 176 with an O tile no longer fits the H200's 227 KB: refused with the arithmetic, never built
    wide = Knobs.parse({**KERNELS["ws_op_bc176_lazy_w"], "o_store": "tma"})
    why = launch_refusal(limits("sm_90"), smem=wide.smem_bytes(128), threads=wide.threads(), needs_arch=wide.needs_arch())
    assert why is not None and launch_refusal(limits("sm_90"), smem=Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot"]).smem_bytes(128),
                                              threads=384, needs_arch="sm_90") is None


def test_agent_11_proposes_o_by_tma_on_the_warp_specialised_mainloop():
    assert CURRENT.version >= 11
    lv = BY_NAME["ws_o_by_tma"]
    assert lv.sets == {"o_store": "tma"} and lv.requires == {"mainloop": ("ws",)}
    assert lv.applies_to(Knobs.parse(KERNELS["ws_op_lazy_qp_w"]), False, 128)
    assert not lv.applies_to(Knobs.parse(KERNELS["arm"]), False, 128)
    assert "ws_o_by_tma" in {x.name for x in as_read_by(POLICIES[11])}
    assert "ws_o_by_tma" not in {x.name for x in as_read_by(POLICIES[10])}
    assert "1.081" in lv.hypothesis and "2026-12-01_h200_item_stream" in lv.hypothesis


def test_every_new_kernel_has_its_bitwise_pair_in_the_tier():
    pairs = {tuple(p) for ps in TIER.values() for p in ps}
    for name in KERNELS:
        if name.endswith(("_is", "_ot")):
            assert any(p[0] == name for p in pairs), name


def test_the_last_tier_passed_with_every_pair_of_the_new_knobs():
    t = json.loads(gzip.decompress((REC / "call5_fixed_tier_best" / "tier" / "tier.json.gz").read_bytes()))
    assert_tier_passed(t, {"D64+128": (136, 37, 30), "D64": (68, 18, 15)})
    # several items per CTA (the stream's boundaries), and the item-stream and O-by-TMA pairs among them
    assert any(c.startswith("B8-H16-Hkv4-N1000") for c in t["D64+128"]["configs"])
    got = {tuple(p) for s in t.values() for p in s["pairs"]}
    assert {("ws_op_lazy_qp_w_ot", "ws_op_lazy_qp_w"), ("ws_op_lazy_qp_w_is", "ws_op_lazy_qp_w"),
            ("ws2c_ot", "ws2c"), ("ws_op_lazy_ot", "ws_op_lazy"), ("ws3_lazy_qp_ot", "ws3_lazy_qp")} <= got
    assert "0 errors" in (REC / "call5_fixed_tier_best" / "memcheck.log").read_text()
    assert "Illegal instruction" in (REC / "call4_memcheck_tier_best" / "memcheck.log").read_text()


def _margins(folder: str, d: str) -> dict:
    m = read_record(REC / folder / d / "margins.json")["margins"]
    return {k: round(v["margin"], 4) for k, v in m.items() if v}


def test_the_margin_tables_are_the_readmes():
    readme = (REC / "README.md").read_text()
    stream, otma = {**_margins("call1", "m128"), **_margins("call1", "m64")}, _margins("call3_o_store", "m128")
    otma.update(_margins("call3_o_store", "m64"))
    for m in (stream, otma):
        for v in m.values():
            assert f"{v:.4f}" in readme, v
    n2048 = "B2-H16-N2048-D128-float16-noncausal"
    assert otma[f"{n2048}:ws_op_lazy_qp_w->ws_op_lazy_qp_w_ot"] == 1.0806
    assert min(v for k, v in otma.items() if k.endswith("_w->ws_op_lazy_qp_w_ot")) > 1.02  # o_store wins at D128
    assert stream["B16-H16-N512-D64-float16-noncausal:ws3_lazy_qp->ws3_lazy_qp_is"] == 0.9045  # the stream loses


def test_the_suite_is_the_readmes_and_eight_of_eleven_reach_cudnn():
    readme = (REC / "README.md").read_text()
    got = {}
    for folder in ("call4_memcheck_tier_best", "call5_fixed_tier_best"):
        for r in json.loads(gzip.decompress((REC / folder / "best" / "best.json.gz").read_bytes())):
            s, best = r["confirm"]["summary"], r["best"]
            assert s[f"check:{best}"] == "pass"
            got[r["shape"]] = (best, round(s[f"cudnn:{best}"]["margin"], 3))
    assert len(got) == 11
    for _, m in got.values():
        assert f"{m:.3f}" in readme
    assert got["B2-H16-N2048-D128-float16-noncausal"] == ("ws_op_lazy_qp_w_ot", 1.011)
    assert sum(m >= 1.0 for _, m in got.values()) == 8 and "**8 of 11 shapes at >= 1.0x cuDNN**" in readme


def test_the_sass_segments_are_the_readmes(tmp_path):
    import subprocess
    import tarfile

    with tarfile.open(REC / "call2_sass_scaling" / "sass.tgz") as tf:
        member = next(m for m in tf.getmembers() if m.name.endswith("_sass.csv"))
        tf.extract(member, tmp_path, filter="data")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "device_anatomy.py"), "--segments", str(tmp_path / member.name)],
                         capture_output=True, text=True, check=True).stdout
    assert "executed     4096:  19.8%" in out and "executed    61440:  71.0%" in out
    assert "[ 2216- 2440] executed    4096 x 225 instr   7.8%" in out
    assert out.splitlines()[1:] == (REC / "call2_sass_scaling" / "sass_segments_n2048.txt").read_text().splitlines()[2:]


@pytest.mark.parametrize("name", ["ws_op_lazy_qp_w_ot", "ws_op_lazy_qp_w_is"])
def test_the_new_kernels_build_for_the_h200(name):
    """The device code alone (static), sm_90: 168 registers at entry, one CTA per SM, the O tile's shared memory;
    O by TMA leaves the LSE's as the only global stores."""
    from recorded import static_row as row

    r = row(KERNELS[name])
    assert r["built"] and r["registers"] == 168 and r["ctas_per_sm"] == 1
    assert r["smem_per_cta"] == Knobs.parse(KERNELS[name]).smem_bytes(128)
    if name.endswith("_ot") and r["census"] is not None:
        direct = row(KERNELS["ws_op_lazy_qp_w"])
        assert r["census"].get("STG", 0) < direct["census"]["STG"] and r["census"].get("UTMASTG", 0) > 0
