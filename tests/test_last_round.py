"""The last round's items split along the keys (knob last_round=key_split, key_stream): the rules that keep it to the
persistent list, the launch's choice of items and pieces (key_split) or shares (key_stream) read from real sm_90a libraries on the CPU
(fa_last_round, the launch's own function), and the build's figures (results/2026-12-06_cpu_last_round)."""

import math
import re
import sys

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS

sys.path.insert(0, str(RESULTS.parent / "scripts"))

REC = RESULTS / "2026-12-06_cpu_last_round"


def test_the_key_split_needs_the_persistent_list_in_place_and_no_tail_split():
    """Either schedule of the persistent warp-specialised mainloop takes the split: each CTA runs its items and pieces in
    increasing index, so a piece's merge waits only on lower ones. Not one item a CTA, the item stream or turned rounds."""
    from device_suite import KERNELS

    base = KERNELS["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el"]  # the dynamic schedule, the slot holding an index
    with pytest.raises(KnobError, match="last_round'=key_split .*tail_rows=split"):
        Knobs.parse({**base, "tail_rows": "split", "row_sum": "fadd", "last_round": "key_split"})
    assert Knobs.parse({**base, "last_round": "key_split"}).last_round.value == "key_split"
    assert Knobs.parse({**base, "schedule": "static", "last_round": "key_split"}).last_round.value == "key_split"
    static = KERNELS["ws_op_lazy_qp_w_ot_pr_pk_dm_wu"]  # the suite's persistent static D=128 kernel
    assert Knobs.parse({**static, "last_round": "key_split"}) == Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot_pr_pk_dm_wu_lr"])
    for bad, said in (({"persistent": "off", "q_load": "cp_async", "o_store": "direct"}, "persistent=off"),
                      ({"round_order": "turned"}, "round_order=turned")):
        with pytest.raises(KnobError, match=f"last_round'=key_split .*not .*{said}"):
            Knobs.parse({**static, **bad, "last_round": "key_split"})


def _suite_library(tmp_path_factory, name: str, dim: int):
    """Suite kernel `name` built for sm_90a, fp16, non-causal, at head dim `dim` (its launch's host code is what the
    tests call)."""
    from device_suite import KERNELS
    from experiments.build import BuildSpec, build
    from kernel_src.binding import KernelLib

    spec = BuildSpec(knobs=Knobs.parse(KERNELS[name]), arch="sm_90a", dtypes=("float16",), dims=(dim,),
                     causals=(False,))
    r = build([spec], tmp_path_factory.mktemp(name[-2:]))[spec.key()]
    assert r.ok, r.log[-2000:]
    return KernelLib(r.library)


@pytest.fixture(scope="module")
def split_library(tmp_path_factory):
    """The D=64 suite kernel with the split."""
    return _suite_library(tmp_path_factory, "ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd_sl_lr", 64)


def test_the_launch_splits_the_items_that_leave_the_last_round_short(split_library):
    """On 132 CTAs (an H100's or H200's SMs, one CTA each): at B2 H16 N8192 D64 (1,376 items of 64 key blocks) the 56
    of the last round in halves; at N32768 D128 the last 4 items in 16 pieces; none at N8192 and N4096 D128, where 8
    pieces lost on an H100 (each merge reads its other pieces' partials back), nor at N2048 D64 GQA or N512 D64 (short
    items: a piece's fixed cost), nor where the items fit one round. The tier's B2 H4 N2111 at BR 128 (136 items) is
    split."""
    split = split_library.last_round
    for B, H, N, BR, D, want in ((2, 16, 8192, 192, 64, (56, 1)), (1, 16, 32768, 128, 128, (4, 4)),
                                 (2, 16, 8192, 128, 128, (0, 0)), (4, 16, 4096, 128, 128, (0, 0)),
                                 (8, 16, 2048, 192, 64, (0, 0)), (16, 16, 512, 192, 64, (0, 0)),
                                 (2, 16, 2048, 128, 128, (0, 0)), (1, 1, 1000, 192, 64, (0, 0)),
                                 (2, 4, 2111, 128, 128, (4, 2)), (8, 16, 1000, 192, 64, (0, 0))):
        assert split(B * H * math.ceil(N / BR), 132, math.ceil(N / 128), D) == want, (B, H, N, D)
    assert split(1376, 0, 64, 64) == (0, 0)  # no grid: nothing to fill


@pytest.fixture(scope="module")
def stream_library(tmp_path_factory):
    """The persistent static D=128 suite kernel with the streamed last round."""
    return _suite_library(tmp_path_factory, "ws_op_lazy_qp_w_ot_pr_pk_dm_wu_ls", 128)


def test_the_launch_streams_the_last_round_in_equal_shares(stream_library):
    """On 132 CTAs: the items that leave the last round short (items mod 132) in shares of ceil(R nkv / 132) key blocks,
    where the share and two pieces' cost end 15% of a round early: at N8192 D128 (2,048 items of 64 blocks) 68 in
    shares of 33, at N4096 (32 blocks) of 17, at N32768 the last 4 in shares of 8, at N8192 D64 (BR 192) 56 in 28; not
    at N2048 D128 (116 items of 16 blocks: a share of 15), nor where the items fill whole rounds or one round."""
    stream = stream_library.last_round
    for B, H, N, BR, D, want in ((2, 16, 8192, 128, 128, (68, 33)), (4, 16, 4096, 128, 128, (68, 17)),
                                 (1, 16, 32768, 128, 128, (4, 8)), (2, 16, 8192, 192, 64, (56, 28)),
                                 (2, 16, 2048, 128, 128, (0, 0)), (1, 33, 512, 128, 128, (0, 0)),
                                 (1, 1, 1000, 128, 128, (0, 0))):
        assert stream(B * H * math.ceil(N / BR), 132, math.ceil(N / 128), D) == want, (B, H, N, D)
    assert stream(2048, 0, 64, 128) == (0, 0)


def test_a_library_without_the_split_says_so(tmp_path):
    from experiments.build import BuildSpec, build
    from kernel_src.binding import KernelLib

    k = Knobs(compute="mma", layout="pad", staging="cp_async", exp="ex2", bc=32, kv_stages=2, causal_mask="predicate")
    spec = BuildSpec(knobs=k, arch="sm_80", dims=(64,), causals=(False,))
    r = build([spec], tmp_path)[spec.key()]
    assert r.ok, r.log[-2000:]
    assert KernelLib(r.library).last_round(1376, 132, 64, 64) is None


def test_the_split_builds_as_recorded():
    """ptxas (results/2026-12-06_cpu_last_round/ptxas.txt): the D=128 kernel with the split spills nothing; the D=64
    kernels' consumers, at their 160 registers already, spill 12-16 B for the piece's block range."""
    text = (REC / "ptxas.txt").read_text()
    rows = dict(re.findall(r"^(\S+ D\d+ \S+): .*?(\d+) bytes spill stores", text, re.M))
    assert rows["ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd_lr D128 noncausal"] == "0"
    assert rows["ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd D128 noncausal"] == "0"
    assert rows["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd_sl D64 noncausal"] == "0"
    assert 0 < int(rows["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd_sl_lr D64 noncausal"]) <= 32
    assert rows["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl D64 noncausal"] == "0"
    assert 0 < int(rows["ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl_lr D64 noncausal"]) <= 32
    for name, dim in (("ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sl", "D64"), ("ws3_lazy_qp_ot_ts_s3_dy_rs_hdsw_el_sd_sl", "D64"),
                      ("ws_op_lazy_qp_w_ot_pr_pk_dm_dy_sd", "D128")):  # the causal build runs no split: its base's code
        assert rows[f"{name}_lr {dim} causal"] == rows[f"{name} {dim} causal"]
