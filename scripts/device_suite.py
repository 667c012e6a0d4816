"""Kernels against the vendor library on a suite of shapes, on a GPU: each kernel configuration built
once, then for each shape one fresh worker process that checks every kernel (the tier's reduced shapes
of that problem, with the kernel's own tile tails, and the problem itself) and times it paired and
interleaved against SDPA's cuDNN and flash backends (and, where named, against another kernel).

    python3 scripts/device_suite.py OUT_DIR [--plan screen|suite|all] [--budget S] [--only NAME]...

Plans: `screen` times every candidate configuration at two problems (D=128 and D=64, N=8192 fp16) against
cuDNN; `suite` takes the best correct candidate of each head dim from the screen (OUT_DIR/screen.json, or
--use D128=NAME --use D64=NAME) and the reference kernel through the suite of shapes. Writes
OUT_DIR/<plan>.json (every step's record) and prints a table last.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from experiments.build import BuildSpec, build
from experiments.device import probe
from experiments.lab import Lab
from experiments.problem import Shape, c1_shapes
from kernel_src.knobs import Knobs

ARM = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", br=128, warps=8, bc=64,
           kv_stages=2, rescale_skip="on", softmax="fused", rescale_lazy="on")
WS = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
          kv_release="producer", mainloop="ws", kv_stages=2, causal_mask="predicate", br=128, warps=8, bc=128)
OP = {**WS, "pipeline": "on", "pingpong": "on"}  # overlap inside each warpgroup, turns between the two
WS3 = {**WS, "pipeline": "on", "warps": 12, "br": 192}  # three consumer warpgroups (D=64's tile)
LAZY = {"rescale_skip": "on", "rescale_lazy": "on"}
WS1 = {**WS, "pipeline": "on", "warps": 4, "br": 64}  # one consumer warpgroup (for several CTAs per SM)
KERNELS = {
    "arm": ARM,  # the best kernel the search had found on this card: 128 x 64 on two warpgroups, 2 CTAs/SM
    "ws": WS,
    "ws_overlap": {**WS, "pipeline": "on"},
    "ws_pingpong": {**WS, "pingpong": "on"},
    "ws_overlap_pingpong": OP,
    "ws_op_persistent": {**OP, "persistent": "on"},
    "ws_op_lazy": {**OP, "rescale_skip": "on", "rescale_lazy": "on"},
    "ws_op_bc64": {**OP, "bc": 64},
    "ws_op_hf": {**OP, "cta_order": "heaviest_first"},
    "ws_op_persistent_hf": {**OP, "persistent": "on", "cta_order": "heaviest_first"},
    "ws_op_bc176": {**OP, "bc": 176},
    "ws_op_bc176_persistent": {**OP, "bc": 176, "persistent": "on"},
    "ws3_overlap": WS3,
    "ws3_overlap_bc64": {**WS3, "bc": 64},
    "ws3_persistent": {**WS3, "persistent": "on"},
    "ws3_hf": {**WS3, "cta_order": "heaviest_first"},
    "ws3_persistent_hf": {**WS3, "persistent": "on", "cta_order": "heaviest_first"},
    "ws3_lazy": {**WS3, "rescale_skip": "on", "rescale_lazy": "on"},
    "ws_op_lazy_hf": {**OP, "rescale_skip": "on", "rescale_lazy": "on", "cta_order": "heaviest_first"},
    "ws_op_bc176_lazy": {**OP, "bc": 176, "rescale_skip": "on", "rescale_lazy": "on"},
    "ws_op_bc176_lazy_hf": {**OP, "bc": 176, "rescale_skip": "on", "rescale_lazy": "on", "cta_order": "heaviest_first"},
    "ws3_lazy_hf": {**WS3, "rescale_skip": "on", "rescale_lazy": "on", "cta_order": "heaviest_first"},
    # Q by the producer's TMA (q_load=tma), alone and with the persistent schedule it is meant for
    "ws_op_lazy_p": {**OP, **LAZY, "persistent": "on"},
    "ws_op_lazy_q": {**OP, **LAZY, "q_load": "tma"},
    "ws_op_lazy_qp": {**OP, **LAZY, "q_load": "tma", "persistent": "on"},
    "ws_op_lazy_qp_hf": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first"},
    "ws_op_bc176_lazy_qp": {**OP, **LAZY, "bc": 176, "q_load": "tma", "persistent": "on"},
    "ws3_lazy_qp": {**WS3, **LAZY, "q_load": "tma", "persistent": "on"},
    # two warp-specialised CTAs per SM at D=64 (BC 64, no overlap: 104 registers a consumer)
    "ws2c": {**WS, **LAZY, "bc": 64, "min_ctas": 2},
    "ws2c_pp": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "pingpong": "on"},
    "ws2c_q": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "q_load": "tma"},
    "ws2c_hf": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "cta_order": "heaviest_first"},
    "ws2c_p": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "persistent": "on"},
    "ws2c_qp": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "q_load": "tma", "persistent": "on"},
    "ws2c_qp_hf": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first"},
    # the short items' pipeline fill and drain over fewer keys: BC 64 with Q by TMA, persistent
    "ws_op_bc64_lazy_qp": {**OP, **LAZY, "bc": 64, "q_load": "tma", "persistent": "on"},
    "ws_op_bc64_lazy_qp_hf": {**OP, **LAZY, "bc": 64, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first"},
    # PV per 16 keys as one wgmma of N=D (pv_wide), the heaviest-first order by sections of heads that share
    # the L2 (order_sections), a third K/V stage (cuDNN's kernel fills the shared memory: ncu, device_anatomy.py)
    "ws_op_lazy_qp_w": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "pv_wide": "on"},
    "ws_op_lazy_qp_s3": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "kv_stages": 3},
    "ws_op_lazy_qp_s3_w": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "kv_stages": 3, "pv_wide": "on"},
    "ws_op_bc176_lazy_w": {**OP, **LAZY, "bc": 176, "pv_wide": "on"},
    "ws_op_lazy_qp_hfs": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                          "order_sections": "on"},
    "ws_op_lazy_qp_hfs_w": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                            "order_sections": "on", "pv_wide": "on"},
    "ws_op_lazy_qp_hf_w": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                           "pv_wide": "on"},
    "ws_op_bc176_lazy_hfs_w": {**OP, **LAZY, "bc": 176, "cta_order": "heaviest_first", "order_sections": "on",
                               "pv_wide": "on"},
    "ws_op_bc176_lazy_hf_w": {**OP, **LAZY, "bc": 176, "cta_order": "heaviest_first", "pv_wide": "on"},
    "ws_op_bc176_lazy_qp_w": {**OP, **LAZY, "bc": 176, "q_load": "tma", "persistent": "on", "pv_wide": "on"},
    # one consumer warpgroup a CTA (BR 64), two or three CTAs per SM: one CTA's item boundaries under another's GEMMs
    "ws1c2": {**WS1, **LAZY, "min_ctas": 2},
    "ws1c2_qp": {**WS1, **LAZY, "min_ctas": 2, "q_load": "tma", "persistent": "on"},
    "ws1c2_bc64": {**WS1, **LAZY, "bc": 64, "min_ctas": 2, "pv_wide": "on"},
    "ws1c2_bc64_qp": {**WS1, **LAZY, "bc": 64, "min_ctas": 2, "pv_wide": "on", "q_load": "tma", "persistent": "on"},
    "ws1c2_bc64_hf": {**WS1, **LAZY, "bc": 64, "min_ctas": 2, "pv_wide": "on", "cta_order": "heaviest_first"},
    "ws1c2_bc64_qp_hf": {**WS1, **LAZY, "bc": 64, "min_ctas": 2, "pv_wide": "on", "q_load": "tma", "persistent": "on",
                         "cta_order": "heaviest_first"},
    "ws1c3_bc64": {**WS1, **LAZY, "bc": 64, "min_ctas": 3},
    "ws1c3_bc64_qp": {**WS1, **LAZY, "bc": 64, "min_ctas": 3, "q_load": "tma", "persistent": "on"},
    "ws3_lazy_qp_s3": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "kv_stages": 3},
    "ws2c_s3": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "kv_stages": 3},
    "ws2c_hfs": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "cta_order": "heaviest_first", "order_sections": "on"},
    # the consumers run a CTA's items as one stream of key blocks (item_stream): the next item's first QK^T with
    # this item's last PV, on the persistent kernels with Q by TMA
    "ws_op_lazy_qp_is": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "item_stream": "on"},
    "ws_op_lazy_qp_w_is": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "pv_wide": "on", "item_stream": "on"},
    "ws_op_lazy_qp_hf_w_is": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                              "pv_wide": "on", "item_stream": "on"},
    "ws_op_bc64_lazy_qp_is": {**OP, **LAZY, "bc": 64, "q_load": "tma", "persistent": "on", "item_stream": "on"},
    "ws1c2_bc64_qp_is": {**WS1, **LAZY, "bc": 64, "min_ctas": 2, "pv_wide": "on", "q_load": "tma", "persistent": "on",
                         "item_stream": "on"},
    "ws1c3_bc64_qp_is": {**WS1, **LAZY, "bc": 64, "min_ctas": 3, "q_load": "tma", "persistent": "on",
                         "item_stream": "on"},
    "ws3_lazy_qp_hf": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first"},
    # O through shared memory by stmatrix and a TMA store per consumer warpgroup (o_store=tma)
    "ws_op_lazy_qp_w_ot": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "pv_wide": "on", "o_store": "tma"},
    "ws_op_lazy_qp_w_is_ot": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "pv_wide": "on", "item_stream": "on",
                              "o_store": "tma"},
    "ws_op_lazy_qp_hf_w_ot": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                              "pv_wide": "on", "o_store": "tma"},
    "ws_op_lazy_qp_hf_w_is_ot": {**OP, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                                 "pv_wide": "on", "item_stream": "on", "o_store": "tma"},
    "ws3_lazy_qp_ot": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "o_store": "tma"},
    "ws3_lazy_qp_is_ot": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "item_stream": "on", "o_store": "tma"},
    "ws3_lazy_qp_hf_ot": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                          "o_store": "tma"},
    "ws2c_ot": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "o_store": "tma"},
    "ws_op_lazy_ot": {**OP, **LAZY, "o_store": "tma"},  # one CTA per item
    "ws1c3_bc64_qp_ot": {**WS1, **LAZY, "bc": 64, "min_ctas": 3, "q_load": "tma", "persistent": "on", "o_store": "tma"},
    # O by TMA through the warpgroup's own rows of the Q tile (o_store=tma_in_q: one item a CTA, no O tile, so BC 176 fits)
    "ws_op_bc176_lazy_w_oq": {**OP, **LAZY, "bc": 176, "pv_wide": "on", "o_store": "tma_in_q"},
    "ws_op_bc176_lazy_hf_w_oq": {**OP, **LAZY, "bc": 176, "cta_order": "heaviest_first", "pv_wide": "on",
                                 "o_store": "tma_in_q"},
    "ws_op_lazy_w": {**OP, **LAZY, "pv_wide": "on"},
    "ws_op_lazy_w_oq": {**OP, **LAZY, "pv_wide": "on", "o_store": "tma_in_q"},
    "ws_op_lazy_hf_w_oq": {**OP, **LAZY, "cta_order": "heaviest_first", "pv_wide": "on", "o_store": "tma_in_q"},
    "ws3_lazy_oq": {**WS3, **LAZY, "o_store": "tma_in_q"},
    "ws3_lazy_hf_oq": {**WS3, **LAZY, "cta_order": "heaviest_first", "o_store": "tma_in_q"},
    # a quarter or half of P's exponentials by the cubic on the FMA pipe (exp_poly) on the warp-specialised mainloop
    "ws3_lazy_qp_ot_pq": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "o_store": "tma", "exp_poly": "quarter"},
    "ws3_lazy_qp_ot_ph": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "o_store": "tma", "exp_poly": "half"},
    "ws3_lazy_qp_hf_ot_pq": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                             "o_store": "tma", "exp_poly": "quarter"},
    "ws2c_ot_pq": {**WS, **LAZY, "bc": 64, "min_ctas": 2, "o_store": "tma", "exp_poly": "quarter"},
    "ws3_lazy_oq_pq": {**WS3, **LAZY, "o_store": "tma_in_q", "exp_poly": "quarter"},
    "ws_op_bc176_lazy_w_oq_pq": {**OP, **LAZY, "bc": 176, "pv_wide": "on", "o_store": "tma_in_q", "exp_poly": "quarter"},
    "ws3_lazy_qp_is": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "item_stream": "on"},
    "ws3_lazy_qp_hf_is": {**WS3, **LAZY, "q_load": "tma", "persistent": "on", "cta_order": "heaviest_first",
                          "item_stream": "on"},
}
# each suite shape's best kernel with the row max as a tree (row_max=tree: the same bits, a shorter softmax chain)
RT = ["ws2c_ot", "ws3_lazy_qp_ot", "ws_op_lazy_qp_w_ot", "ws_op_lazy_w_oq", "ws_op_lazy_qp_hf_w_ot"]
KERNELS.update({f"{n}_rt": {**KERNELS[n], "row_max": "tree"} for n in RT})
# the persistent two-consumer kernels whose producer spills at 24 registers, with 40 (ws_producer_regs=40), and both
PR = ["ws_op_lazy_qp_w_ot", "ws_op_lazy_qp_hf_w_ot"]
KERNELS.update({f"{n}_pr": {**KERNELS[n], "ws_producer_regs": 40} for n in PR})
KERNELS.update({f"{n}_rt_pr": {**KERNELS[n], "row_max": "tree", "ws_producer_regs": 40} for n in PR})
# P packed among its exponentials (p_pack=with_exp; overlapped, P double-buffered): each suite shape's best kernel, and
# the 40-register producer's with it
PK = RT + [f"{n}_pr" for n in PR]
KERNELS.update({f"{n}_pk": {**KERNELS[n], "p_pack": "with_exp"} for n in PK})
# two CTAs an SM with the overlap inside each warpgroup (pipeline=on), with and without the packing
KERNELS["ws2c_o_ot"] = {**KERNELS["ws2c_ot"], "pipeline": "on"}
KERNELS["ws2c_o_ot_pk"] = {**KERNELS["ws2c_o_ot"], "p_pack": "with_exp"}
# the same with one P buffer, the previous PV waited for halfway through the exponentials (p_pack=mid_wait): the
# overlapped kernels whose registers hold no second P (three consumer warpgroups, two CTAs an SM), and the others
PM = ["ws3_lazy_qp_ot", "ws_op_lazy_qp_w_ot", "ws_op_lazy_w_oq", "ws_op_lazy_qp_hf_w_ot", "ws_op_lazy_qp_w_ot_pr",
      "ws_op_lazy_qp_hf_w_ot_pr", "ws2c_o_ot"]
KERNELS.update({f"{n}_pm": {**KERNELS[n], "p_pack": "mid_wait"} for n in PM})
# the causal kernel of O through the Q tile (one item a CTA, heaviest first) with either packing
KERNELS.update({f"ws_op_lazy_hf_w_oq_{x}": {**KERNELS["ws_op_lazy_hf_w_oq"], "p_pack": v}
                for x, v in (("pk", "with_exp"), ("pm", "mid_wait"))})
# and the other suite shapes' bests with a packing (the wide tile's P twice does not fit: one buffer, the wait halfway)
KERNELS["ws3_lazy_hf_oq_pm"] = {**KERNELS["ws3_lazy_hf_oq"], "p_pack": "mid_wait"}
KERNELS["ws_op_bc176_lazy_hf_w_oq_pm"] = {**KERNELS["ws_op_bc176_lazy_hf_w_oq"], "p_pack": "mid_wait"}
KERNELS["ws_op_bc176_lazy_w_pm"] = {**KERNELS["ws_op_bc176_lazy_w"], "p_pack": "mid_wait"}


def steps_of(job) -> list[dict]:
    """A job's step records as the worker wrote them (dicts)."""
    return [st.model_dump() for st in job.steps]


def sanity_dim(name: str, smem_limit: int) -> int:
    """The head dim plan `best` checks a kernel at first: 128 where it is built and its shared memory fits the card,
    else 64 (three K/V stages of the two-consumer kernel fit at D=64 alone, and were dropped as faults at D=128)."""
    return 64 if d64_only(name) or Knobs.parse(KERNELS[name]).smem_bytes(128) > smem_limit else 128


def d64_only(name: str) -> bool:
    """Kernels built for D=64 alone: three consumer warpgroups (BR 192) and two CTAs per SM (D=128 spills there)."""
    return name.startswith(("ws3", "ws2c"))


def builds_of(names: list[str]) -> list[tuple]:
    """(name, knobs, head dim) of each kernel at each head dim it is built for (profiler.static.build_figures reads them)."""
    from kernel_src.knobs import Knobs

    return [(n, Knobs.parse(KERNELS[n]), d) for n in names for d in ((64,) if d64_only(n) else (64, 128))]


SCREEN = {128: [k for k in KERNELS if not d64_only(k)], 64: list(KERNELS)}
# the per-shape screen of plan `best`: the candidates of a head dim (heaviest-first only under causality)
BEST = {128: ["ws_overlap_pingpong", "ws_op_lazy", "ws_op_bc176", "ws_op_bc176_lazy", "ws_op_lazy_hf",
              "ws_op_bc176_lazy_hf", "ws_op_lazy_q", "ws_op_lazy_qp", "ws_op_lazy_qp_hf", "ws_op_bc176_lazy_qp",
              "ws_op_bc64_lazy_qp", "ws_op_bc64_lazy_qp_hf", "ws_op_lazy_qp_w", "ws_op_lazy_qp_s3", "ws_op_lazy_qp_s3_w",
              "ws_op_bc176_lazy_w", "ws_op_lazy_qp_hfs", "ws_op_lazy_qp_hfs_w", "ws_op_lazy_qp_hf_w",
              "ws_op_bc176_lazy_hfs_w", "ws_op_bc176_lazy_hf_w", "ws_op_bc176_lazy_qp_w", "ws1c2_bc64", "ws1c2_bc64_qp",
              "ws1c2_bc64_hf", "ws1c2_bc64_qp_hf", "ws_op_lazy_qp_is", "ws_op_lazy_qp_w_is", "ws_op_lazy_qp_hf_w_is",
              "ws_op_bc64_lazy_qp_is", "ws1c2_bc64_qp_is", "ws_op_lazy_qp_w_ot", "ws_op_lazy_qp_w_is_ot",
              "ws_op_lazy_qp_hf_w_ot", "ws_op_lazy_qp_hf_w_is_ot", "ws_op_bc176_lazy_w_oq", "ws_op_bc176_lazy_hf_w_oq",
              "ws_op_lazy_w_oq", "ws_op_lazy_hf_w_oq", "ws_op_bc176_lazy_w_oq_pq"],
        64: ["ws3_overlap", "ws3_lazy", "ws3_persistent", "ws3_hf", "ws3_lazy_hf", "ws3_lazy_qp", "ws2c", "ws2c_pp",
             "ws2c_q", "ws2c_hf", "ws2c_p", "ws2c_qp", "ws2c_qp_hf", "ws3_lazy_qp_s3", "ws2c_s3", "ws2c_hfs", "ws1c2",
             "ws1c2_qp", "ws1c2_bc64", "ws1c2_bc64_hf", "ws1c3_bc64", "ws1c3_bc64_qp", "ws3_lazy_qp_hf", "ws3_lazy_qp_is",
             "ws3_lazy_qp_hf_is", "ws1c3_bc64_qp_is", "ws_op_bc64_lazy_qp_is", "ws3_lazy_qp_ot", "ws3_lazy_qp_is_ot",
             "ws3_lazy_qp_hf_ot", "ws2c_ot", "ws1c3_bc64_qp_ot", "ws3_lazy_oq", "ws3_lazy_hf_oq", "ws3_lazy_qp_ot_pq",
             "ws3_lazy_qp_ot_ph", "ws3_lazy_qp_hf_ot_pq", "ws2c_ot_pq", "ws3_lazy_oq_pq"]}
BEST[128] += [f"{n}_rt" for n in RT if not d64_only(n)] + [f"{n}{x}" for n in PR for x in ("_pr", "_rt_pr")]
BEST[64] += [f"{n}_rt" for n in RT] + [f"{n}{x}" for n in PR for x in ("_pr", "_rt_pr")]
# plan `tier`: by the head dims the kernels are built for, the bitwise pairs (candidate, its off build)
TIER = {(64, 128): [["ws_op_lazy_q", "ws_op_lazy"], ["ws_op_lazy_qp", "ws_op_lazy"], ["ws_op_lazy_qp_hf", "ws_op_lazy"],
                    ["ws_op_lazy_p", "ws_op_lazy"], ["ws_op_bc176_lazy_qp", "ws_op_bc176_lazy"],
                    ["ws_op_bc64_lazy_qp_hf", "ws_op_bc64_lazy_qp"], ["ws_op_lazy_qp_w", "ws_op_lazy_qp"],
                    ["ws_op_lazy_qp_hfs", "ws_op_lazy_qp_hf"], ["ws_op_lazy_qp_hfs_w", "ws_op_lazy_qp_hf_w"],
                    ["ws_op_bc176_lazy_w", "ws_op_bc176_lazy"], ["ws_op_lazy_qp_s3", "ws_op_lazy_qp"],
                    ["ws_op_lazy_qp_s3_w", "ws_op_lazy_qp_w"], ["ws_op_bc176_lazy_hfs_w", "ws_op_bc176_lazy_w"],
                    ["ws1c2_qp", "ws1c2"], ["ws1c2_bc64_qp", "ws1c2_bc64"], ["ws1c2_bc64_hf", "ws1c2_bc64"],
                    ["ws1c2_bc64_qp_hf", "ws1c2_bc64"], ["ws1c3_bc64_qp", "ws1c3_bc64"],
                    ["ws_op_lazy_qp_is", "ws_op_lazy_qp"], ["ws_op_lazy_qp_w_is", "ws_op_lazy_qp_w"],
                    ["ws_op_lazy_qp_hf_w_is", "ws_op_lazy_qp_hf_w"], ["ws_op_bc64_lazy_qp_is", "ws_op_bc64_lazy_qp"],
                    ["ws1c2_bc64_qp_is", "ws1c2_bc64_qp"], ["ws1c3_bc64_qp_is", "ws1c3_bc64_qp"],
                    ["ws_op_lazy_qp_w_ot", "ws_op_lazy_qp_w"], ["ws_op_lazy_qp_w_is_ot", "ws_op_lazy_qp_w_is"],
                    ["ws_op_lazy_qp_hf_w_ot", "ws_op_lazy_qp_hf_w"], ["ws_op_lazy_qp_hf_w_is_ot", "ws_op_lazy_qp_hf_w_is"],
                    ["ws1c3_bc64_qp_ot", "ws1c3_bc64_qp"], ["ws_op_lazy_ot", "ws_op_lazy"],
                    ["ws_op_bc176_lazy_w_oq", "ws_op_bc176_lazy_w"], ["ws_op_bc176_lazy_hf_w_oq", "ws_op_bc176_lazy_hf_w"],
                    ["ws_op_lazy_w_oq", "ws_op_lazy_w"], ["ws_op_lazy_hf_w_oq", "ws_op_lazy_w"]],
        (64,): [["ws3_lazy_qp", "ws3_lazy"], ["ws2c_q", "ws2c"], ["ws2c_qp", "ws2c"], ["ws2c_qp_hf", "ws2c"],
                ["ws2c_hf", "ws2c"], ["ws2c_p", "ws2c"], ["ws3_lazy_qp_s3", "ws3_lazy_qp"], ["ws2c_s3", "ws2c"],
                ["ws2c_hfs", "ws2c_hf"], ["ws3_lazy_qp_is", "ws3_lazy_qp"], ["ws3_lazy_qp_hf_is", "ws3_lazy_qp_hf"],
                ["ws3_lazy_qp_ot", "ws3_lazy_qp"], ["ws3_lazy_qp_is_ot", "ws3_lazy_qp_is"], ["ws3_lazy_qp_hf_ot", "ws3_lazy_qp_hf"],
                ["ws2c_ot", "ws2c"], ["ws3_lazy_oq", "ws3_lazy"], ["ws3_lazy_hf_oq", "ws3_lazy"]]}
for _n in RT:
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_rt", _n])
for _n in PR:
    TIER[(64, 128)] += [[f"{_n}_pr", _n], [f"{_n}_rt_pr", _n]]
for _n in PK:  # the packing moves no value: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_pk", _n])
TIER[(64,)] += [["ws2c_o_ot", "ws2c_ot"], ["ws2c_o_ot_pk", "ws2c_ot"]]
for _n in PM:
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_pm", _n])
BEST[128] += [f"{n}_pk" for n in PK if not d64_only(n)]
BEST[64] += [f"{n}_pk" for n in PK] + ["ws2c_o_ot", "ws2c_o_ot_pk"]
TIER[(64, 128)] += [["ws_op_lazy_hf_w_oq_pk", "ws_op_lazy_hf_w_oq"], ["ws_op_lazy_hf_w_oq_pm", "ws_op_lazy_hf_w_oq"]]
TIER[(64, 128)] += [["ws_op_bc176_lazy_hf_w_oq_pm", "ws_op_bc176_lazy_hf_w_oq"], ["ws_op_bc176_lazy_w_pm", "ws_op_bc176_lazy_w"]]
TIER[(64,)] += [["ws3_lazy_hf_oq_pm", "ws3_lazy_hf_oq"]]
BEST[128] += ["ws_op_bc176_lazy_hf_w_oq_pm", "ws_op_bc176_lazy_w_pm"]
BEST[64] += ["ws3_lazy_hf_oq_pm"]
BEST[128] += [f"{n}_pm" for n in PM if not d64_only(n)] + ["ws_op_lazy_hf_w_oq_pk", "ws_op_lazy_hf_w_oq_pm"]
BEST[64] += [f"{n}_pm" for n in PM]
# a consumer warpgroup whose rows all lie past N sits out its item (tail_rows=skip): the D=64 kernels of three consumer
# warpgroups, whose BR 192 leaves the last item's third warpgroup without a row at N512 and N2048
TS = ["ws3_lazy_qp_ot", "ws3_lazy_qp_ot_pm", "ws3_lazy_hf_oq_pm", "ws3_lazy_oq"]
KERNELS.update({f"{n}_ts": {**KERNELS[n], "tail_rows": "skip"} for n in TS})
TIER[(64,)] += [[f"{n}_ts", n] for n in TS]  # rows before N: bitwise each kernel's own
BEST[64] += [f"{n}_ts" for n in TS]
# two Q tiles (q_buffers=2): the persistent kernels with Q by TMA load the next item's Q while this item runs (N512 D64:
# the loss to cuDNN is per item, results/2026-12-03_h200_pair_order)
Q2 = ["ws3_lazy_qp_ot_pm", "ws3_lazy_qp_ot", "ws_op_lazy_qp_w_ot_pr_pk", "ws_op_lazy_qp_hf_w_ot_pm"]
KERNELS.update({f"{n}_q2": {**KERNELS[n], "q_buffers": 2} for n in Q2})
for _n in Q2:  # the same values in the same order: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_q2", _n])
BEST[64] += [f"{n}_q2" for n in Q2]
BEST[128] += [f"{n}_q2" for n in Q2 if not d64_only(n)]
# the static persistent schedule's rounds in another order (round_order): turned one CTA a round, or every other round
# reversed (snake), with and without the idle tail warpgroup; and heaviest first at non-causal D=64. At N512 D64 launch
# order gives CTA c query tile c mod 3 of every head (132 = 44 x 3), so the skip shortened only the CTAs that hold every
# tail item; under a causal mask heaviest first in place gives CTA 0 the heaviest item of every round
# (results/2026-12-03_cpu_round_order)
KERNELS["ws3_lazy_qp_hf_ot_pm"] = {**KERNELS["ws3_lazy_qp_hf_ot"], "p_pack": "mid_wait"}
KERNELS["ws3_lazy_qp_hf_ot_pm_ts"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm"], "tail_rows": "skip"}
KERNELS["ws3_lazy_qp_ot_pm_tr"] = {**KERNELS["ws3_lazy_qp_ot_pm"], "round_order": "turned"}
KERNELS["ws3_lazy_qp_ot_pm_tr_ts"] = {**KERNELS["ws3_lazy_qp_ot_pm_tr"], "tail_rows": "skip"}
KERNELS["ws3_lazy_qp_hf_ot_pm_sn_ts"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts"], "round_order": "snake"}
KERNELS["ws_op_lazy_qp_hf_w_ot_pr_pk_sn"] = {**KERNELS["ws_op_lazy_qp_hf_w_ot_pr_pk"], "round_order": "snake"}
TR = ["ws3_lazy_qp_hf_ot_pm", "ws3_lazy_qp_hf_ot_pm_ts", "ws3_lazy_qp_ot_pm_tr", "ws3_lazy_qp_ot_pm_tr_ts",
      "ws3_lazy_qp_hf_ot_pm_sn_ts"]
TIER[(64,)] += [[n, "ws3_lazy_qp_ot_pm"] for n in TR]  # the same items in another order: bitwise the same
TIER[(64, 128)] += [["ws_op_lazy_qp_hf_w_ot_pr_pk_sn", "ws_op_lazy_qp_hf_w_ot_pr_pk"]]
BEST[64] += TR + ["ws_op_lazy_qp_hf_w_ot_pr_pk_sn"]
BEST[128] += ["ws_op_lazy_qp_hf_w_ot_pr_pk_sn"]
# the agent's final at N512 D64 (results/2026-12-03_h200_round_order call 4: the idle tail, heaviest first, three K/V
# stages, 0.981x cuDNN in its run); and the rescale factors' exponentials behind a vote (rescale_factor): 2 of a
# thread's 66 MUFU.EX2 a block at BC=128, skipped in a warp where no row's max rose (the same values), behind a branch
# (`_rf`) or predicated on the vote (`_rp`: whether a MUFU issued with its lanes off still takes the pipe)
KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts"], "kv_stages": 3}
TIER[(64,)].append(["ws3_lazy_qp_hf_ot_pm_ts_s3", "ws3_lazy_qp_hf_ot_pm_ts"])  # a stage more: the same values
RF = ["ws3_lazy_qp_hf_ot_pm_ts_s3", "ws3_lazy_qp_ot_pm", "ws_op_lazy_w_oq_pk", "ws_op_lazy_qp_w_ot_pr_pk",
      "ws_op_bc176_lazy_hf_w_oq_pm"]
KERNELS.update({f"{n}_rf": {**KERNELS[n], "rescale_factor": "when_raised"} for n in RF})
KERNELS.update({f"{n}_rp": {**KERNELS[n], "rescale_factor": "when_raised_predicated"} for n in RF})
for _n in RF:  # the same values: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)] += [[f"{_n}_rf", _n], [f"{_n}_rp", _n]]
BEST[64] += ["ws3_lazy_qp_hf_ot_pm_ts_s3"] + [f"{n}{x}" for n in RF for x in ("_rf", "_rp")]
BEST[128] += [f"{n}{x}" for n in RF if not d64_only(n) for x in ("_rf", "_rp")]
# the two-consumer-warpgroup mainloop with Q and O by TMA on the persistent schedule and the 40-register producer, at
# D=64: what ws_mainloop_short_items builds from the naive N512 D64 run's best (`_qp_ot_pr`), and with the refinements
# the three-warpgroup final carries (lazy rescale, P packed). BR 128: 1024 items at B16 H16 N512,
# none short, where the three-warpgroup kernel's 768 of two costs cannot beat cuDNN on any schedule
# (results/2026-12-04_cpu_n512_bound); 168 registers, no spill, one CTA an SM at D=64 (ptxas on this machine)
S2 = {**OP, "persistent": "on", "q_load": "tma", "o_store": "tma", "ws_producer_regs": 40}
KERNELS.update({"ws_op_qp_ot_pr": S2, "ws_op_lazy_qp_ot_pr": {**S2, **LAZY},
                "ws_op_lazy_qp_ot_pr_pm": {**S2, **LAZY, "p_pack": "mid_wait"},
                "ws_op_lazy_qp_ot_pr_pk": {**S2, **LAZY, "p_pack": "with_exp"}})
BEST[64] += ["ws_op_qp_ot_pr", "ws_op_lazy_qp_ot_pr", "ws_op_lazy_qp_ot_pr_pm", "ws_op_lazy_qp_ot_pr_pk"]
# the same bits as the kernel one CTA an item with Q by cp.async, O stored directly and the 24-register producer; P
# packed either way as after the softmax
TIER[(64, 128)] += [["ws_op_qp_ot_pr", "ws_overlap_pingpong"], ["ws_op_lazy_qp_ot_pr", "ws_op_lazy_ot"],
                    ["ws_op_lazy_qp_ot_pr_pm", "ws_op_lazy_qp_ot_pr"], ["ws_op_lazy_qp_ot_pr_pk", "ws_op_lazy_qp_ot_pr"]]
# the tail tile split inside the CTA (tail_rows=split): where only the last consumer warpgroup's rows lie past N, it takes
# the item's first key block for the other warpgroups' rows, which start at the second and merge its partial O, max and
# sum before the store. At B16 H16 N512 D64 a head's third tile (128 rows of BR 192) costs 0.82 of a full item for two
# thirds of its rows (results/2026-12-04_cpu_n512_bound); split, its three warpgroups share 8 warpgroup-blocks instead of
# two doing 4 each. Beside the suite's kernel (P packed mid-wait) and the agent's final (P packed after the softmax);
# the two-consumer form for the tier alone (odd N at BR 128)
KERNELS["ws3_lazy_qp_hf_ot_ts_s3"] = {**KERNELS["ws3_lazy_qp_hf_ot"], "tail_rows": "skip", "kv_stages": 3}
TSP = ["ws3_lazy_qp_hf_ot_pm_ts_s3", "ws3_lazy_qp_hf_ot_ts_s3"]
KERNELS.update({n.replace("_ts_", "_tsp_"): {**KERNELS[n], "tail_rows": "split"} for n in TSP})
KERNELS["ws_o_lazy_qp_ot_pr_tsp"] = {**S2, **LAZY, "pingpong": "off", "tail_rows": "split"}
BEST[64] += ["ws3_lazy_qp_hf_ot_ts_s3"] + [n.replace("_ts_", "_tsp_") for n in TSP]
# one knob at a time around the agent's N512 D64 final (the idle tail, heaviest first, three stages): a second Q tile,
# the row max as a tree, turned rounds, the 64-key tile (whose item is 8 key blocks), the lazy rescale off
A512 = "ws3_lazy_qp_hf_ot_ts_s3"
AROUND = {"qb2": {"q_buffers": 2}, "tree": {"row_max": "tree"}, "tr": {"round_order": "turned"}, "bc64": {"bc": 64},
          "eager": {"rescale_lazy": "off"}}
KERNELS.update({f"{A512}_{k}": {**KERNELS[A512], **v} for k, v in AROUND.items()})
BEST[64] += [f"{A512}_{k}" for k in AROUND]
TIER[(64,)] += [[f"{A512}_{k}", A512] for k in ("qb2", "tree", "tr")]  # the same arithmetic: bitwise the final's
# the dynamic schedule (schedule=dynamic): the producer claims each next item from a counter. Beside the agent's N512 D64
# final (heaviest first, the idle tail, three stages), its P-packed form, the causal D=128 persistent kernel with
# heaviest first in place and snaking (results/2026-12-03_h200_round_order: 0.94 of the one-item-a-CTA kernel, which the
# hardware's dispatch balances), and the two-consumer kernel at D=64 and 128 (launch order)
DYN = [A512, "ws3_lazy_qp_hf_ot_pm_ts_s3", "ws_op_lazy_qp_hf_w_ot_pr_pk", "ws_op_lazy_qp_ot_pr"]
KERNELS.update({f"{n}_dy": {**KERNELS[n], "schedule": "dynamic"} for n in DYN})
for _n in DYN:  # the same items, each on whichever CTA claims it: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_dy", _n])
BEST[64] += [f"{n}_dy" for n in DYN]
# the final's items in launch order (a head's three tiles one after another, so its K/V is read once while they run:
# tile-major order read 76 MB of DRAM against cuDNN's 50, results/2026-12-04_h200_n512_policy21), which on the static
# schedule gave CTA c tile c mod 3 of every head and on the dynamic one goes to whichever CTA is free
KERNELS["ws3_lazy_qp_ot_ts_s3_dy"] = {**KERNELS[A512], "cta_order": "launch", "schedule": "dynamic"}
TIER[(64,)].append(["ws3_lazy_qp_ot_ts_s3_dy", A512])  # the same items in another order: bitwise the final's
BEST[64].append("ws3_lazy_qp_ot_ts_s3_dy")
BEST[128] += [f"{n}_dy" for n in DYN if not d64_only(n)]
# the K/V loads with an L2 evict-last policy (kv_l2_hint=evict_last, `_kh`): the N512 D64 final (tile-major items: a
# head's K/V read by its three tiles rounds apart; ncu read 76 MB of DRAM against cuDNN's 50), the causal D=128
# persistent kernel and the suite's one-item-a-CTA kernel under a causal mask (causal N1024 GQA: 152 MB against 100)
KH = [A512, "ws_op_lazy_qp_hf_w_ot_pr_pk", "ws_op_lazy_hf_w_oq_pk"]
KERNELS.update({f"{n}_kh": {**KERNELS[n], "kv_l2_hint": "evict_last"} for n in KH})
for _n in KH:  # a cache policy moves no value: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_kh", _n])
BEST[64] += [f"{n}_kh" for n in KH]
BEST[128] += [f"{n}_kh" for n in KH if not d64_only(n)]
# mbarrier waits with a suspend-time hint (mbar_wait=suspend, `_mw`): each suite shape's kernel that asked again most
# (results/2026-12-05_cpu_mbar_wait: 8.7-8.9% of the instructions executed at N512 D64 were the out-of-line asks, most of
# them the producer's waits for free stages and for the Q tile): the N512 D64 final, the suite's N8192 D128 kernel, its
# N8192 D64 kernel, its causal N8192 D128 kernel, and the two-consumer persistent kernel whose page was counted
MW = [A512, "ws_op_lazy_w_oq_pk", "ws3_lazy_qp_ot_pm", "ws_op_bc176_lazy_hf_w_oq_pm", "ws_op_lazy_qp_ot_pr_pm"]
KERNELS.update({f"{n}_mw": {**KERNELS[n], "mbar_wait": "suspend"} for n in MW})
for _n in MW:  # waiting longer between asks moves no value: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_mw", _n])
BEST[64] += [f"{n}_mw" for n in MW]
BEST[128] += [f"{n}_mw" for n in MW if not d64_only(n)]
# the wgmma descriptors built once a block and operand (desc_math=hoisted, `_dm`): the same kernels as MW (ncu at N512
# D64: four to six uniform-datapath instructions before each HGMMA, 14.6% of the instructions executed, cuDNN 11.2%)
KERNELS.update({f"{n}_dm": {**KERNELS[n], "desc_math": "hoisted"} for n in MW})
for _n in MW:  # the same descriptors: bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_dm", _n])
BEST[64] += [f"{n}_dm" for n in MW]
BEST[128] += [f"{n}_dm" for n in MW if not d64_only(n)]
# both (`_dmw`): descriptors hoisted and waits suspended, measured on the H200 each a win at N8192 D64 and D128
# (results/2026-12-05_h200_mbar_desc)
KERNELS.update({f"{n}_dmw": {**KERNELS[n], "desc_math": "hoisted", "mbar_wait": "suspend"} for n in MW})
for _n in MW:  # bitwise each kernel's own
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_dmw", _n])
BEST[64] += [f"{n}_dmw" for n in MW]
BEST[128] += [f"{n}_dmw" for n in MW if not d64_only(n)]
# the suite's other bests with policy 22's levers (results/2026-12-05_cpu_suite22): N2048 D128's kernel with hoisted
# descriptors, causal N1024 GQA's with items from a counter
KERNELS["ws_op_lazy_qp_w_ot_pr_pk_dm"] = {**KERNELS["ws_op_lazy_qp_w_ot_pr_pk"], "desc_math": "hoisted"}
KERNELS["ws_op_lazy_qp_hf_w_ot_pm_dy"] = {**KERNELS["ws_op_lazy_qp_hf_w_ot_pm"], "schedule": "dynamic"}
# and at N512 D64 the final with P packed mid-wait (the suite's three-warpgroup kernel there) with them too
KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3_dm"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3"], "desc_math": "hoisted"}
TIER[(64,)].append(["ws3_lazy_qp_hf_ot_pm_ts_s3_dm", "ws3_lazy_qp_hf_ot_pm_ts_s3"])
BEST[64].append("ws3_lazy_qp_hf_ot_pm_ts_s3_dm")
TIER[(64, 128)] += [["ws_op_lazy_qp_w_ot_pr_pk_dm", "ws_op_lazy_qp_w_ot_pr_pk"],
                    ["ws_op_lazy_qp_hf_w_ot_pm_dy", "ws_op_lazy_qp_hf_w_ot_pm"]]
BEST[128] += ["ws_op_lazy_qp_w_ot_pr_pk_dm", "ws_op_lazy_qp_hf_w_ot_pm_dy"]
BEST[64] += ["ws_op_lazy_qp_w_ot_pr_pk_dm", "ws_op_lazy_qp_hf_w_ot_pm_dy"]
# the two-consumer kernel in cuDNN's launch shape at N512 D64 (results/2026-12-05_h100_n512: cuDNN's work at 37.8% issue
# against its 46.0%; `wait` stalls on the row max's and the exponents' chains, barrier stalls at the ping-pong's named
# barriers): the row max as a tree (`_tree`) and the ping-pong off (`_npp`), each the same arithmetic (D=64's tier)
T2C = "ws_op_lazy_qp_ot_pr_pk"
KERNELS.update({f"{T2C}_tree": {**KERNELS[T2C], "row_max": "tree"}, f"{T2C}_npp": {**KERNELS[T2C], "pingpong": "off"}})
TIER[(64,)] += [[f"{T2C}_tree", T2C], [f"{T2C}_npp", T2C]]
BEST[64] += [f"{T2C}_tree", f"{T2C}_npp"]
# and its staging beside cuDNN's: cuDNN's kernel there holds 134,144 B of shared memory against our 98,400, a third K/V
# stage's 32 KB more (`_s3`), or a second Q tile (`_qb2`); with the descriptors hoisted (`_dm`) and with both and the
# tree (`_s3_dm_tree`). Each the same arithmetic as the base (D=64's tier)
C2 = {"s3": {"kv_stages": 3}, "qb2": {"q_buffers": 2}, "s3_qb2": {"kv_stages": 3, "q_buffers": 2},
      "dm": {"desc_math": "hoisted"}, "dm_s3": {"kv_stages": 3, "desc_math": "hoisted"},
      "s3_dm_tree": {"kv_stages": 3, "desc_math": "hoisted", "row_max": "tree"}}
KERNELS.update({f"{T2C}_{k}": {**KERNELS[T2C], **v} for k, v in C2.items()})
TIER[(64,)] += [[f"{T2C}_{k}", T2C] for k in C2]
BEST[64] += [f"{T2C}_{k}" for k in C2]
# and the item stream on the two-consumer kernel without P packed (which the stream does not take): measured 0.90-1.03
# on the H200 where the next item's first K was wanted a block early from a two-stage ring (FA_ITEM_STREAM's comment);
# with a third stage (`_is_s3`) that block is in the ring
IS = "ws_op_lazy_qp_ot_pr"
KERNELS.update({f"{IS}_is": {**KERNELS[IS], "item_stream": "on"},
                f"{IS}_is_s3": {**KERNELS[IS], "item_stream": "on", "kv_stages": 3}})
TIER[(64,)] += [[f"{IS}_is", IS], [f"{IS}_is_s3", IS]]  # the same arithmetic an item: bitwise
BEST[64] += [f"{IS}_is", f"{IS}_is_s3"]
# the rows' sums of P on the tensor cores (row_sum=mma, `_rs`): an m64n8k16 of P and a tile of ones beside each PV
# instead of two FADD per pair of scores (ptxas sm_90a: FADD 540 -> 36 in the two-consumer kernel's SASS, HGMMA 56 ->
# 96, no register or spill more: results/2026-12-06_cpu_row_sum). The suite's kernels at D=64 (N512, N2048 GQA, N8192;
# causal N4096; the N512 screen's best; the two-consumer kernel) and at D=128 (N8192, N32768, N4096; causal N8192 and
# N16384; N2048; causal N1024 GQA)
RS = ["ws3_lazy_qp_ot_pm_dm", "ws3_lazy_qp_ot_ts_s3_dy", "ws3_lazy_hf_oq_pm", T2C, f"{T2C}_npp",
      "ws_op_lazy_w_oq_pk_dm", "ws_op_bc176_lazy_hf_w_oq_pm", "ws_op_lazy_qp_w_ot_pr_pk_dm", "ws_op_lazy_qp_hf_w_ot_pm_dy"]
KERNELS.update({f"{n}_rs": {**KERNELS[n], "row_sum": "mma"} for n in RS})
BEST[64] += [f"{n}_rs" for n in RS]
BEST[128] += [f"{n}_rs" for n in RS if not d64_only(n)]
# around the N512 D64 screen's best with the row sums on the tensor cores (results/2026-12-06_h100_row_sum: 1.0364 over
# it, 0.958x cuDNN): hoisted descriptors (`_hd`), suspended waits (`_sw`), both (`_hdsw`), the row max as a tree (`_mx`),
# a second Q tile (`_q2`), the rescale factors behind a vote (`_vf`); each the same arithmetic as it
RSB = "ws3_lazy_qp_ot_ts_s3_dy_rs"
RS_AROUND = {"hd": {"desc_math": "hoisted"}, "sw": {"mbar_wait": "suspend"},
             "hdsw": {"desc_math": "hoisted", "mbar_wait": "suspend"}, "mx": {"row_max": "tree"},
             "q2": {"q_buffers": 2}, "vf": {"rescale_factor": "when_raised"}}
KERNELS.update({f"{RSB}_{k}": {**KERNELS[RSB], **v} for k, v in RS_AROUND.items()})
TIER[(64,)] += [[f"{RSB}_{k}", RSB] for k in RS_AROUND]
BEST[64] += [f"{RSB}_{k}" for k in RS_AROUND]
# and around the best of those (`_hdsw`: 1.0197 over it, 0.975x cuDNN): P packed mid-wait (`_pm`), two K/V stages
# (`_s2`), the static schedule in launch order (`_st`), the K/V loads evict-last (`_el`); each bitwise it
RSB2 = f"{RSB}_hdsw"
RS2_AROUND = {"pm": {"p_pack": "mid_wait"}, "s2": {"kv_stages": 2}, "st": {"schedule": "static"},
              "el": {"kv_l2_hint": "evict_last"}}
KERNELS.update({f"{RSB2}_{k}": {**KERNELS[RSB2], **v} for k, v in RS2_AROUND.items()})
TIER[(64,)] += [[f"{RSB2}_{k}", RSB2] for k in RS2_AROUND]
BEST[64] += [f"{RSB2}_{k}" for k in RS2_AROUND]
# the launch overlapped with the previous kernel's end (`_dl`: dependent_launch=on, programmatic stream serialization):
# the N512 D64 best, the suite's D=64 kernel and its N2048 D128 kernel; each bitwise it
DL = [RSB2, "ws3_lazy_qp_ot_pm_dm", "ws_op_lazy_qp_w_ot_pr_pk_dm"]
KERNELS.update({f"{n}_dl": {**KERNELS[n], "dependent_launch": "on"} for n in DL})
for _n in DL:
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_dl", _n])
BEST[64] += [f"{n}_dl" for n in DL]
BEST[128] += [f"{n}_dl" for n in DL if not d64_only(n)]
# the N512 best with both moves that gained on it (results/2026-12-06_h100_launch_gaps): the dependent launch (1.0135)
# and the K/V loads evict-last (1.0103); bitwise it
KERNELS[f"{RSB2}_el_dl"] = {**KERNELS[RSB2], "kv_l2_hint": "evict_last", "dependent_launch": "on"}
TIER[(64,)].append([f"{RSB2}_el_dl", RSB2])
BEST[64].append(f"{RSB2}_el_dl")
# the items tile by tile (`_ta`: item_order=tiles_ascending), so the short third tiles of N512 at BR 192 come last:
# on the N512 best and on it with both moves; each bitwise it
TA = [RSB2, f"{RSB2}_el_dl"]
KERNELS.update({f"{n}_ta": {**KERNELS[n], "item_order": "tiles_ascending"} for n in TA})
TIER[(64,)] += [[f"{n}_ta", RSB2] for n in TA]
BEST[64] += [f"{n}_ta" for n in TA]
# each head's last tile half a grid of heads later (`_sl`: item_order=short_tiles_late): the short third tiles of N512
# at BR 192 still come last, a head's K/V still in L2 for its last tile; on the N512 best with the K/V loads evict-last
# (the agent's own N512 final, results/2026-12-06_h100_policy23) and with the dependent launch too; each bitwise it
SL = [f"{RSB2}_el", f"{RSB2}_el_dl"]
KERNELS.update({f"{n}_sl": {**KERNELS[n], "item_order": "short_tiles_late"} for n in SL})
TIER[(64,)] += [[f"{n}_sl", RSB2] for n in SL]
BEST[64] += [f"{n}_sl" for n in SL]
# the tensor maps prefetched as each CTA starts (`_tp`: tma_prefetch=on): the N512 D64 final, it with the short tiles late,
# and the suite's N2048 D128 kernel; each bitwise it
TP = [f"{RSB2}_el", f"{RSB2}_el_sl", "ws_op_lazy_qp_w_ot_pr_pk_dm"]
KERNELS.update({f"{n}_tp": {**KERNELS[n], "tma_prefetch": "on"} for n in TP})
for _n in TP:
    TIER[(64,) if d64_only(_n) else (64, 128)].append([f"{_n}_tp", _n])
BEST[64] += [f"{n}_tp" for n in TP]
BEST[128] += [f"{n}_tp" for n in TP if not d64_only(n)]
# the dynamic schedule's slot holding the item decoded by the producer (`_sd`: slot_item=decoded), so that no consumer
# divides between two items: the N512 D64 final and it with the dependent launch; each bitwise it
SD = [f"{RSB2}_el", f"{RSB2}_el_dl"]
KERNELS.update({f"{n}_sd": {**KERNELS[n], "slot_item": "decoded"} for n in SD})
TIER[(64,)] += [[f"{n}_sd", n] for n in SD]
BEST[64] += [f"{n}_sd" for n in SD]
# the decoded slot with each head's last tile half a grid of heads later (`_sd_sl`): the short tiles late moved 2-3% of
# the N512 span from the end into the gaps between items (results/2026-12-06_h100_item_trace), which the decoded slot
# halves; on the N512 final and it with the dependent launch; each bitwise it
KERNELS.update({f"{n}_sd_sl": {**KERNELS[n], "slot_item": "decoded", "item_order": "short_tiles_late"} for n in SD})
TIER[(64,)] += [[f"{n}_sd_sl", n] for n in SD]
BEST[64] += [f"{n}_sd_sl" for n in SD]
# the decoded slot with a second Q tile (`_sd_q2`: q_buffers=2), so the next item's Q loads under this item's blocks: the
# item trace's marks at N512 put 0.19 us between an item's start and its Q and 0.19 more to its first K, 0.7 us in its
# epilogue (results/2026-12-06_h100_item_phases); on the N512 final and it with the dependent launch; each bitwise it
KERNELS.update({f"{n}_sd_q2": {**KERNELS[n], "slot_item": "decoded", "q_buffers": 2} for n in SD})
TIER[(64,)] += [[f"{n}_sd_q2", n] for n in SD]
BEST[64] += [f"{n}_sd_q2" for n in SD]
# the decoded slot with the next item's Q and first K/V blocks prefetched into L2 as the producer claims it (`_sd_np`:
# next_prefetch=on): ncu's samples at N512 put 5.3% on the consumers' wait for an item's Q
# (results/2026-12-06_h100_n512_epilogue); on the N512 final and it with the dependent launch; each bitwise it
KERNELS.update({f"{n}_sd_np": {**KERNELS[n], "slot_item": "decoded", "next_prefetch": "on"} for n in SD})
TIER[(64,)] += [[f"{n}_sd_np", n] for n in SD]
BEST[64] += [f"{n}_sd_np" for n in SD]
# the 176-key tile at D=64 on three consumer warpgroups, without the QK^T overlap (`_k176`: bc=176, pipeline=off; P
# packed after the softmax): FlashAttention-3's long-sequence D=64 tile (192 x 176, P from registers, no intra-warpgroup
# overlap). With the overlap the next block's 88 score registers spill (364-676 B, ptxas); without it 0 B. BC 64 -> 128
# gained 16% at N8192 D64 (results/2026-12-01_h200_ws_mainloop), so the per-block cost is a fifth of a 128-key block;
# and the overlap alone off (`_po`), to split the move in two. On the D=64 suite's bests (N8192, N2048 GQA: `_el_sl`),
# the N512 final (`_el_sd`), the ladder's top and the causal D=64 kernel
K176 = [f"{RSB2}_el_sl", f"{RSB2}_el_sd", "ws3_lazy_qp_ot_pm_dm", "ws3_lazy_hf_oq"]
KERNELS.update({f"{n}_k176": {**KERNELS[n], "bc": 176, "pipeline": "off", "p_pack": "after"} for n in K176})
KERNELS.update({f"{n}_po": {**KERNELS[n], "pipeline": "off", "p_pack": "after"} for n in K176})
BEST[64] += [f"{n}_k176" for n in K176] + [f"{n}_po" for n in K176]
# P through shared memory (`_ps`: p_in=smem): each consumer warpgroup stores its P tile (stmatrix) and the PV reads it
# by descriptor, so the next block's scores accumulate with no P register live; alone (bitwise each kernel's own) and
# with the 176-key tile and the QK^T overlap (`_k176s`: two stages, as the P tiles take the third's shared memory)
PS = [f"{RSB2}_el_sl", f"{RSB2}_el_sd"]
KERNELS.update({f"{n}_ps": {**KERNELS[n], "p_in": "smem"} for n in PS})
KERNELS.update({f"{n}_k176s": {**KERNELS[n], "p_in": "smem", "bc": 176, "kv_stages": 2} for n in PS})
TIER[(64,)] += [[f"{n}_ps", n] for n in PS]
BEST[64] += [f"{n}_ps" for n in PS] + [f"{n}_k176s" for n in PS]
# the 192-key tile (FlashAttention-3's non-causal D=64 tile) on the D=64 suite's best: P from registers without the
# overlap (`_k192`: 0 B spill, three stages) and P through shared memory with it (`_k192s`: two stages)
KERNELS[f"{RSB2}_el_sl_k192"] = {**KERNELS[f"{RSB2}_el_sl"], "bc": 192, "pipeline": "off", "p_pack": "after"}
KERNELS[f"{RSB2}_el_sl_k192s"] = {**KERNELS[f"{RSB2}_el_sl"], "p_in": "smem", "bc": 192, "kv_stages": 2}
BEST[64] += [f"{RSB2}_el_sl_k192", f"{RSB2}_el_sl_k192s"]
# the wider key tiles at D=128 on two consumer warpgroups (the suite's non-causal D=128 kernel, P packed with the
# exponentials into two buffers): 192 keys with P packed after the softmax (`_k192a`: 0 B spill, 229,440 B of shared
# memory with O through the Q tile) and 176 keys with P packed mid-wait (`_k176m`: 0 B; packed with the exponentials
# it spills 472 B)
KD = "ws_op_lazy_w_oq_pk_dm"
KERNELS[f"{KD}_k192a"] = {**KERNELS[KD], "bc": 192, "p_pack": "after"}
KERNELS[f"{KD}_k176m"] = {**KERNELS[KD], "bc": 176, "p_pack": "mid_wait"}
BEST[128] += [f"{KD}_k192a", f"{KD}_k176m"]
# the last round's items split along the keys (`_lr`: last_round=key_split; the launch picks the items and pieces from
# the grid, mainloop_sm90_ws.cuh: ws_piece_range): on the D=64 suite's best with the decoded slot (`_el_sd_sl`) and
# without it (`_el_sl`: each consumer maps the index itself), the N512 final (`_el_sd`) and the suite's persistent N2048
# D128 kernel with the dynamic schedule and the decoded slot (`_dy_sd`). At the tier's shapes the launch splits no item
# of the D=64 kernels, so each is bitwise its base there; the D=128 kernel (BR 128) splits 4 of B2 H4 N2111's 136 items
# on 132 CTAs and is checked against the bound; with FA_LAST_ROUND_SPLIT=-1:k every item is split (`--plan tier --alone`)
KP = "ws_op_lazy_qp_w_ot_pr_pk_dm"
KERNELS[f"{KP}_dy_sd"] = {**KERNELS[KP], "schedule": "dynamic", "slot_item": "decoded"}
LR = [f"{RSB2}_el_sd_sl", f"{RSB2}_el_sd", f"{KP}_dy_sd", f"{RSB2}_el_sl"]
KERNELS.update({f"{n}_lr": {**KERNELS[n], "last_round": "key_split"} for n in LR})
TIER[(64,)] += [[f"{n}_lr", n] for n in LR if d64_only(n)]
BEST[64] += [f"{n}_lr" for n in LR]
BEST[128] += [f"{KP}_dy_sd", f"{KP}_dy_sd_lr"]
# the ladder from policy 25/26's N2048 D64 GQA final (`ws3_ot_dm`: three warpgroups, two stages, one item a CTA, O by
# TMA, hoisted descriptors; 1.030x cuDNN in its run, results/2026-12-06_h100_policy25) to the suite's `ws3_lazy_qp_ot_pm_dm`
# (1.0888x cuDNN in the screen there), one part and each pair of parts: the lazy rescale with its skip (`lazy`), Q by
# TMA with the persistent schedule (`qp`), P packed mid-wait (`pm`); alone the first two lost 0.99 and 0.95 there
GQ = "ws3_ot_dm"
KERNELS[GQ] = {k: v for k, v in KERNELS["ws3_lazy_qp_ot_pm_dm"].items()
               if k not in ("rescale_skip", "rescale_lazy", "q_load", "persistent", "p_pack")}
GQ_PARTS = {"lazy": {"rescale_skip": "on", "rescale_lazy": "on"}, "qp": {"q_load": "tma", "persistent": "on"},
            "pm": {"p_pack": "mid_wait"}}
for _parts in (("lazy",), ("qp",), ("pm",), ("lazy", "qp"), ("lazy", "pm"), ("qp", "pm")):
    KERNELS["ws3_" + "_".join(_parts) + "_ot_dm"] = {**KERNELS[GQ], **{k: v for q in _parts for k, v in GQ_PARTS[q].items()}}
GQ_LADDER = [GQ] + ["ws3_" + "_".join(q) + "_ot_dm" for q in (("lazy",), ("qp",), ("pm",), ("lazy", "qp"), ("lazy", "pm"),
                                                              ("qp", "pm"))]
BEST[64] += GQ_LADDER
TIER_ALONE_LADDER = GQ_LADDER[1:]  # the lazy rescale changes the bits; each is checked against the bound (below)
# the ladder's top with a third K/V stage: what lever ws_q_by_tma_lazy_p_mid_wait builds from the ladder's base (the
# third stage takes the 16 B spill of Q by TMA with two stages away; the ranking counts a spill as a cost)
KERNELS["ws3_lazy_qp_ot_pm_dm_s3"] = {**KERNELS["ws3_lazy_qp_ot_pm_dm"], "kv_stages": 3}
TIER_ALONE_LADDER.append("ws3_lazy_qp_ot_pm_dm_s3")
# the three consumer warpgroups in a fixed cycle of turns (`_tc`: turn_cycle=on, each warpgroup must take every turn, so
# tail_rows=compute): on the N8192 D64 suite's kernel before the short tiles late (`ws3_lazy_qp_ot_pm_dm`), the suite's
# best with its tail rows computed (`_tc0`: `_el` without tail_rows=skip), the N2048 D64 GQA best likewise, and the
# causal D=64 best (one item a CTA); each bitwise its base
TC0 = f"{RSB2}_el_tc0"
KERNELS[TC0] = {**KERNELS[f"{RSB2}_el"], "tail_rows": "compute"}
KERNELS["ws3_lazy_qp_hf_ot_pm_s3_dm"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3_dm"], "tail_rows": "compute"}
TC = ["ws3_lazy_qp_ot_pm_dm", TC0, "ws3_lazy_qp_hf_ot_pm_s3_dm", "ws3_lazy_hf_oq_pm"]
KERNELS.update({f"{n}_tc": {**KERNELS[n], "turn_cycle": "on"} for n in TC})
TIER[(64,)] += [[f"{n}_tc", n] for n in TC]
BEST[64] += [TC0, "ws3_lazy_qp_hf_ot_pm_s3_dm"] + [f"{n}_tc" for n in TC]
# the ping-pong's turns carried across items (`_ho`: pingpong_handoff=last_turn): on the persistent D=128 kernels, static
# and dynamic (with the key split too), and on the one-item-a-CTA kernel (one item: the same turns, an unanswered
# handoff at its end); `ws_op_lazy_qp_w_ot_pk_dm`: the persistent static kernel with the 24-register producer (its
# consumers get 240 registers, as the one-item kernel's do)
KS = "ws_op_lazy_qp_w_ot_pr_pk_dm"
HO = [KS, f"{KS}_dy_sd", "ws_op_lazy_w_oq_pk_dm"]
KERNELS.update({f"{n}_ho": {**KERNELS[n], "pingpong_handoff": "last_turn"} for n in HO})
KERNELS[f"{KS}_dy_sd_ho_lr"] = {**KERNELS[f"{KS}_dy_sd_ho"], "last_round": "key_split"}
KERNELS["ws_op_lazy_qp_w_ot_pk_dm"] = {k: v for k, v in KERNELS[KS].items() if k != "ws_producer_regs"}
TIER[(64, 128)] += [[f"{n}_ho", n] for n in HO]
# the key split of 4 items at B2 H4 N2111: another order of sums; the 24-register producer's kernel (a bitwise pair of KS
# in the recorded call, listed alone here: the pairs named NAME_dm are desc_math's)
TIER_ALONE_HO = [f"{KS}_dy_sd_ho_lr", "ws_op_lazy_qp_w_ot_pk_dm"]
BEST[128] += [f"{n}_ho" for n in HO] + [f"{KS}_dy_sd_ho_lr", "ws_op_lazy_qp_w_ot_pk_dm"]
# the mbarrier waits voted and looped back with bra.uni (`_uw`: mbar_wait=uniform) on the persistent static D=128 kernel,
# the one-item-a-CTA kernel and the D=64 suite's best (`_el_sl`, whose suspended waits it replaces); each bitwise its base
UW = [KS, K1 := "ws_op_lazy_w_oq_pk_dm", f"{RSB2}_el_sl"]
KERNELS.update({f"{n}_uw": {**KERNELS[n], "mbar_wait": "uniform"} for n in UW})
TIER[(64, 128)] += [[f"{KS}_uw", KS], [f"{K1}_uw", K1]]
TIER[(64,)] += [[f"{RSB2}_el_sl_uw", f"{RSB2}_el_sl"]]
BEST[128] += [f"{KS}_uw", f"{K1}_uw"]
BEST[64] += [f"{RSB2}_el_sl_uw"]
# warp-uniform branches and predicated one-lane work (`_wu`: warp_uniform=on) on the persistent static D=128 kernel, the
# one-item-a-CTA kernel, the D=64 suite's best (dynamic schedule) and its static schedule (`_st`), and the suite's static
# persistent D=64 kernels at N2048 GQA and N8192 (the SASS the knob clears: results/2026-12-06_cpu_warp_uniform); each
# bitwise its base
WU = [KS, K1, f"{RSB2}_el_sl", f"{RSB2}_el_sl_st", "ws3_lazy_qp_hf_ot_pm_ts_s3_dm", "ws3_lazy_qp_ot_pm_dm"]
# and, for the suite, the persistent static kernel with the turns' handoff (`_ho`) and the causal persistent static
# heaviest-first kernel (`ws_op_lazy_qp_hf_w_ot_pm`)
WU128 = [f"{KS}_ho", "ws_op_lazy_qp_hf_w_ot_pm"]
KERNELS[f"{RSB2}_el_sl_st"] = {**KERNELS[f"{RSB2}_el_sl"], "schedule": "static"}
KERNELS.update({f"{n}_wu": {**KERNELS[n], "warp_uniform": "on"} for n in WU})
KERNELS.update({f"{n}_wu": {**KERNELS[n], "warp_uniform": "on"} for n in WU128})
TIER[(64, 128)] += [[f"{n}_wu", n] for n in [KS, K1] + WU128]
TIER[(64,)] += [[f"{n}_wu", n] for n in WU[2:]]
BEST[128] += [f"{n}_wu" for n in [KS, K1] + WU128]
BEST[64] += [f"{RSB2}_el_sl_st"] + [f"{n}_wu" for n in WU[2:]]
# the last round's key split on the persistent static schedule (`_wu_lr`: last_round=key_split on `KS_wu`; each CTA's
# items and pieces in increasing index): the launch splits the items that leave the last round short (B1 H16 N32768
# D128: the last 4 of 4,096 items in 16 pieces; the tier's B2 H4 N2111: 4 of 136 in 4); against the bound alone (below)
KERNELS[f"{KS}_wu_lr"] = {**KERNELS[f"{KS}_wu"], "last_round": "key_split"}
BEST[128] += [f"{KS}_wu_lr"]
# and on the D=64 suite's best on the static schedule (`_el_sl_st_wu_lr`; B2 H16 N8192 D64: the last round's 56 of
# 1,376 items in halves, where the static schedule leaves 76 SMs idle for an item's time)
KERNELS[f"{RSB2}_el_sl_st_wu_lr"] = {**KERNELS[f"{RSB2}_el_sl_st_wu"], "last_round": "key_split"}
BEST[64] += [f"{RSB2}_el_sl_st_wu_lr"]
# the last items' key blocks streamed in equal shares of the CTAs (`_ls`: last_round=key_stream, the static schedule;
# mainloop_sm90_ws.cuh: ws_stream_piece): at B2 H16 N8192 D128 the last 68 items in shares of 33 blocks, at N4096 D128
# of 17, at N32768 the last 4 in shares of 8, at N8192 D64 the last 56 in shares of 28 (fa_fwd.cu: last_round_stream)
LS = [f"{KS}_wu", f"{RSB2}_el_sl_st_wu"]
KERNELS.update({f"{n}_ls": {**KERNELS[n], "last_round": "key_stream"} for n in LS})
BEST[128] += [f"{KS}_wu_ls"]
BEST[64] += [f"{RSB2}_el_sl_st_wu_ls"]
# the D=64 suite's persistent static heaviest-first kernel with the last items' key blocks streamed (`G_ls`): the final
# kernel of policy 31's run from the naive seed at B2 H16 N8192 D64 (1.184x cuDNN in its own row on an H100,
# results/2026-12-07_h100_tier_policy31); against the bound alone (the stream sums the last items in another order)
KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu_ls"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"], "last_round": "key_stream"}
BEST[64] += ["ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu_ls"]
# `G` in launch order with the tail rows computed: the final of policy 32's run at B8 H16/4 N2048 D64 on an H100, whose
# own row read 1.107x cuDNN where plan best read `G` at 1.137 (results/2026-12-07_h100_policy32_shapes); paired
# against `G` and cuDNN in one process by plan margins (results/2026-12-07_cpu_policy33/device_call.sh)
KERNELS["ws3_lazy_qp_ot_pm_s3_dm_wu"] = {**KERNELS["ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"], "cta_order": "launch",
                                         "tail_rows": "compute"}
# a quarter and a half of P's exponentials by the cubic on the FMA pipe (`_eq`, `_eh`: exp_poly; last measured on the
# warp-specialised mainloop on an H200 in 2026-12-02, 0.78-0.97, before the row sums on the tensor cores, the static
# schedule and the stream) on the suite's D=64 bests at N8192 and at N2048 GQA; exp_poly changes the bits: each is
# checked at its shape against both references by plan `best`
EP = [f"{RSB2}_el_sl_st_wu_ls", "ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu"]
KERNELS.update({f"{n}_eq": {**KERNELS[n], "exp_poly": "quarter"} for n in EP})
KERNELS[f"{EP[0]}_eh"] = {**KERNELS[EP[0]], "exp_poly": "half"}
BEST[64] += [f"{n}_eq" for n in EP] + [f"{EP[0]}_eh"]
# plan `tier`: kernels checked against the tier's bound alone (no bitwise partner: exp_poly changes the bits)
TIER_ALONE = {(64, 128): ["ws_op_bc176_lazy_w_oq_pq"],
              (64,): ["ws3_lazy_qp_ot_pq", "ws3_lazy_qp_ot_ph", "ws3_lazy_qp_hf_ot_pq", "ws2c_ot_pq", "ws3_lazy_oq_pq"]}
TIER_ALONE[(64, 128)] += ["ws_o_lazy_qp_ot_pr_tsp"]  # tail_rows=split changes the summation order of the tail's rows
TIER_ALONE[(64,)] += [n.replace("_ts_", "_tsp_") for n in TSP]
TIER_ALONE[(64,)] += [f"{A512}_bc64", f"{A512}_eager"]
TIER_ALONE[(64,)] += TIER_ALONE_LADDER
TIER_ALONE[(64,)] += [f"{n}_k176" for n in K176] + [f"{n}_po" for n in K176]  # 176 keys: another order of sums
TIER_ALONE[(64, 128)] += [f"{KD}_k192a", f"{KD}_k176m"]
TIER_ALONE[(64,)] += [f"{n}_k176s" for n in PS] + [f"{RSB2}_el_sl_k192", f"{RSB2}_el_sl_k192s"]
TIER_ALONE[(64, 128)] += [f"{KP}_dy_sd", f"{KP}_dy_sd_lr"]
TIER_ALONE[(64, 128)] += TIER_ALONE_HO  # the key split of 4 items at B2 H4 N2111: another order
TIER_ALONE[(64, 128)] += [f"{KS}_wu_lr"]
TIER_ALONE[(64,)] += [f"{RSB2}_el_sl_st_wu_lr", f"{RSB2}_el_sl_st_wu_ls"]
TIER_ALONE[(64, 128)] += [f"{KS}_wu_ls"]
TIER_ALONE[(64,)] += ["ws3_lazy_qp_hf_ot_pm_ts_s3_dm_wu_ls"]
for _n in RS:  # l sums P as the PV reads it (rounded to the input dtype): within the bound, not bitwise
    TIER_ALONE[(64,) if d64_only(_n) else (64, 128)].append(f"{_n}_rs")
# plan `margins`: each move of a component alone, BASE>CAND (the default: the mainloop's levers)
MOVES = ["ws>ws_overlap", "ws>ws_pingpong", "ws_overlap>ws_overlap_pingpong", "ws_overlap_pingpong>ws_op_bc176",
         "ws_overlap_pingpong>ws_op_bc64", "ws_overlap_pingpong>ws_op_hf", "ws_overlap_pingpong>ws_op_persistent",
         "ws_overlap_pingpong>ws_op_lazy", "arm>ws_overlap_pingpong"]


def shape(spec: str) -> Shape:
    """'B2 H16 N8192 D128 fp16 causal Hkv4' -> Shape"""
    kw: dict = {"dtype": "float16", "causal": False}
    for part in spec.split():
        if part in ("fp16", "bf16"):
            kw["dtype"] = {"fp16": "float16", "bf16": "bfloat16"}[part]
        elif part == "causal":
            kw["causal"] = True
        elif part.startswith("Hkv"):
            kw["Hkv"] = int(part[3:])
        else:
            kw[part[0]] = int(part[1:])
    return Shape(**kw)


SUITE = [
    "B2 H16 N2048 D128 fp16", "B2 H16 N8192 D128 fp16", "B1 H16 N32768 D128 fp16", "B2 H16 N8192 D128 fp16 causal",
    "B2 H16 N8192 D64 fp16", "B8 H32 N1024 D128 bf16 causal Hkv8", "B16 H16 N512 D64 fp16",
    "B4 H16 N4096 D128 bf16", "B2 H16 N4096 D64 bf16 causal", "B1 H32 N16384 D128 bf16 causal Hkv4",
    "B8 H16 N2048 D64 fp16 Hkv4",
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--plan", choices=("screen", "suite", "all", "best", "margins", "tier"), default="all",
                    help="best: per shape, screen its head dim's candidates against cuDNN, then the best and the "
                         "reference kernel again in a fresh process against cuDNN and flash (--confirm-budget)")
    ap.add_argument("--confirm-budget", type=float, default=1.2)
    ap.add_argument("--budget", type=float, default=0.6, help="seconds of alternations per paired measurement")
    ap.add_argument("--use", action="append", default=[], help="D128=NAME / D64=NAME: the suite's kernel for a head dim")
    ap.add_argument("--only", action="append", default=[],
                    help="screen (and best) only these kernel names; tier: only the bitwise pairs of these candidates")
    ap.add_argument("--shape", action="append", default=[], help="suite: these shapes instead of the built-in suite")
    ap.add_argument("--move", action="append", default=[],
                    help="margins: BASE>CAND, instead of the mainloop's levers (BASE cudnn: SDPA's cuDNN backend)")
    ap.add_argument("--wide", action="store_true",
                    help="best: a D=64 shape screens the D=128 candidates too (every one of them is built for D=64)")
    ap.add_argument("--alone", action="store_true",
                    help="tier: each kernel of the pairs against the bound alone, no bitwise pair (with a forced split)")
    ap.add_argument("--aa", action="append", default=[],
                    help="margins: the A/A null of this kernel at each --shape too (three fresh processes)")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    dev = probe()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {dev.name} {dev.arch}; {' '.join(sys.argv)}", flush=True)
    knobs = {n: Knobs.parse(d) for n, d in KERNELS.items()}
    lab = Lab(Shape(B=2, H=16, N=8192, D=128), dev.limits, Path("/tmp/facache"), budget_s=a.budget)
    moves = [m.split(">") for m in (a.move or MOVES)]
    wanted = ({"arm", *[n for n in (*BEST[64], *BEST[128]) if not a.only or n in a.only]} if a.plan == "best" else
              {n for ps in TIER.values() for p in ps for n in p if not a.only or p[0] in a.only}
              | {n for ns in TIER_ALONE.values() for n in ns if not a.only or n in a.only}
              if a.plan == "tier" else
              ({n for m in moves for n in m} - {"cudnn"}) | set(a.aa) | ({"ws_op_bc176", "ws3_overlap"} if not a.aa else set())
              if a.plan == "margins" else set(KERNELS))
    specs = {n: BuildSpec(knobs=k, arch=dev.arch, dtypes=("float16", "bfloat16"), dims=(64,) if d64_only(n) else (64, 128),
                          causals=(False, True)) for n, k in knobs.items() if n in wanted}
    t0 = time.time()
    built = build(list(specs.values()), lab.cache_dir / "build")
    libs = {n: built[s.key()].library for n, s in specs.items() if built[s.key()].ok}
    print(f"built {len(libs)} of {len(specs)} libraries in {time.time() - t0:.0f} s; failed: "
          f"{[n for n in specs if n not in libs]}", flush=True)
    for n, s in specs.items():
        if n not in libs:
            print(built[s.key()].log[-1500:])

    def run_shape(sh: Shape, names: list[str], against: list[str], vs_kernel: str | None = None,
                  budget: float | None = None) -> dict:
        budget = budget or a.budget
        steps = []
        for n in names:
            shapes = c1_shapes(sh, knobs[n]) + ([sh] if sh.N <= 16384 else [])
            steps.append({"do": "check", "tag": f"check:{n}", "lib": libs[n], "shapes": [s.model_dump() for s in shapes]})
        # a pair that is not counted first: in a fresh process the GPU comes up from idle clocks and the library's
        # first calls load its plans, and the first pairs of a screen read that (AB/BA halves 1.18/0.74 at N512)
        if names and against:
            steps.append({"do": "paired", "tag": f"warmup:{names[0]}", "base": {"sdpa": against[0]},
                          "cand": {"lib": libs[names[0]]}, "shape": sh.model_dump(), "budget_s": 1.0, "l2": "warm"})
        for comp in against:
            for n in names:
                steps.append({"do": "paired", "tag": f"{comp}:{n}", "base": {"sdpa": comp}, "cand": {"lib": libs[n]},
                              "shape": sh.model_dump(), "budget_s": budget, "l2": "warm", "recheck": True})
        if vs_kernel:
            for n in names:
                if n != vs_kernel:
                    steps.append({"do": "paired", "tag": f"{vs_kernel}:{n}", "base": {"lib": libs[vs_kernel]},
                                  "cand": {"lib": libs[n]}, "shape": sh.model_dump(), "budget_s": a.budget, "l2": "warm"})
        t = time.time()
        job = lab.run_job(steps, timeout=60 + len(steps) * (3 * budget + 8))
        rec = {"shape": sh.key(), "status": job.status, "stderr": job.stderr[-1500:], "wall_s": round(time.time() - t, 1),
               "steps": steps_of(job)}
        res = {}
        for st in steps_of(job):
            r = st.get("result")
            if st["tag"].startswith("check:"):
                res[st["tag"]] = ("pass" if r and r["ok"] else "FAIL " + json.dumps([c for c in (r or {}).get("checks", []) if not c["ok"]][:1])[:300]) if r else st.get("error", st.get("skipped"))
            elif r:
                res[st["tag"]] = {"margin": round(r["margin"], 4), "ab": round(r["margin_ab"], 4), "ba": round(r["margin_ba"], 4),
                                  "ours": round(r["tflops_cand"], 1), "theirs": round(r["tflops_base"], 1),
                                  "recheck": (r.get("recheck") or {}).get("ok")}
            else:
                res[st["tag"]] = st.get("error", st.get("skipped"))
        rec["summary"] = res
        print(f"{sh.key()} [{job.status}, {rec['wall_s']} s]", flush=True)
        for k, v in res.items():
            print(f"  {k}: {v}", flush=True)
        if job.status != "ok":
            print(f"  stderr: {job.stderr[-600:]}", flush=True)
        return rec

    if a.plan == "tier":
        # every kernel of the new components on fp16/bf16 x causal or not x N in {1, 97, 319, 333, 1000, 2111} x
        # MHA/GQA/MQA at each head dim it is built for, against the tier's bound; and the knobs that promise the
        # same bits, each against its off build: Q by TMA (the same bytes to the same places), the persistent
        # schedule and heaviest-first order (the same items, reordered)
        out = {}
        for dims, pairs in TIER.items():
            pairs = [p for p in pairs if not a.only or p[0] in a.only]  # --only: the pairs of these candidates
            names = sorted(({n for p in pairs for n in p} | set(TIER_ALONE.get(dims, ()))) & set(libs))
            configs = [Shape(B=b, H=h, Hkv=kv, N=n, D=d, dtype=dt, causal=c) for d in dims
                       for dt in ("float16", "bfloat16") for c in (False, True) for n in (1, 97, 319, 333, 1000, 2111)
                       for b, h, kv in ((2, 4, None), (1, 4, 2), (1, 3, 1))]
            # and grids of several items per CTA of a persistent kernel (item_stream's boundaries; odd causal
            # block counts move its K/V stage across items; at N319 two tail_rows=split items a CTA at BR 192)
            # (N319: the second tile's last consumer warpgroup alone past N at BR 128 and 192)
            configs += [Shape(B=b, H=h, Hkv=kv, N=n, D=d, dtype=dt, causal=c) for d in dims
                        for dt in ("float16", "bfloat16") for c in (False, True)
                        for b, h, kv, n in ((8, 16, 4, 1000), (16, 8, None, 333), (16, 16, None, 319))]
            t = time.time()
            job = lab.run_job([{"do": "envelope", "tag": "envelope", "seed": 7, "libs": {n: libs[n] for n in names},
                                "bitwise_pairs": [] if a.alone else [p for p in pairs if p[0] in libs and p[1] in libs],
                                "configs": [c.model_dump() for c in configs]}], timeout=400)
            res = job.value("envelope")
            key = "D" + "+".join(map(str, dims))
            if res is None:
                print(f"tier {key}: job {job.status}: {job.stderr[-1500:]}", flush=True)
                out[key] = {"status": job.status, "stderr": job.stderr[-3000:]}
                continue
            fails = sorted({(r["kernel"], r["reason"]) for r in res["rows"] if r["reason"]})
            worst = max((r["ratio"] for r in res["rows"] if "==" not in r["kernel"]), default=0.0)
            out[key] = {"configs": [c.key() for c in configs], "libraries": names, "pairs": pairs,
                        "failures": fails, "worst_fraction_of_bound": worst, "rows": res["rows"]}
            print(f"tier {key}: {len(configs)} configurations x {len(names)} kernels + {len(pairs)} bitwise pairs in "
                  f"{time.time() - t:.0f} s; worst fraction of the bound {worst:.4f}; failures {len(fails)}: {fails[:8]}",
                  flush=True)
        (a.out / "tier.json").write_text(json.dumps(out, indent=1))
        return 0
    if a.plan == "margins":
        # the A/A null of the kernels compared (each repeat a fresh process), then each lever of the component
        # alone, paired against the configuration without it, at a second problem
        out = {"aa": {}, "margins": {}}
        for n, D in (("ws_op_bc176", 128), ("ws3_overlap", 64)) if not a.aa else ():
            lab_d = Lab(Shape(B=2, H=16, N=8192, D=D), dev.limits, Path("/tmp/facache"), budget_s=a.confirm_budget)
            lab_d._libs = {}
            ms = []
            for _ in range(3):
                job = lab_d.run_job([{"do": "paired", "tag": "aa", "base": {"lib": libs[n]}, "cand": {"lib": libs[n]},
                                      "shape": lab_d.shape.model_dump(), "budget_s": a.confirm_budget, "l2": "warm"}], 90)
                ms.append(job.value("aa")["margin"] if job.value("aa") else None)
            out["aa"][f"{n}@{lab_d.shape.key()}"] = ms
            print(f"A/A {n} at {lab_d.shape.key()}: {ms}", flush=True)
        for spec in a.shape or ["B2 H16 N16384 D128 bf16 causal"]:
            sh = shape(spec)
            fits = lambda n: n == "cudnn" or n in libs and (sh.D == 64 or not d64_only(n))
            for n in [n for n in a.aa if fits(n)]:
                ms = []
                for _ in range(3):
                    job = lab.run_job([{"do": "paired", "tag": "aa", "base": {"lib": libs[n]}, "cand": {"lib": libs[n]},
                                        "shape": sh.model_dump(), "budget_s": a.confirm_budget, "l2": "warm"}], 90)
                    ms.append(job.value("aa")["margin"] if job.value("aa") else None)
                out["aa"][f"{n}@{sh.key()}"] = ms
                print(f"A/A {n} at {sh.key()}: {ms}", flush=True)
            steps = [{"do": "paired", "tag": f"{b}->{c}", "base": {"sdpa": "cudnn"} if b == "cudnn" else {"lib": libs[b]},
                      "cand": {"lib": libs[c]},
                      "shape": sh.model_dump(), "budget_s": a.confirm_budget, "l2": "warm"}
                     for b, c in moves if fits(b) and fits(c)]
            # a first pair not counted: a fresh process's first pairs read the GPU coming up from idle clocks
            steps = [{**steps[0], "tag": "warmup:" + steps[0]["tag"], "budget_s": 1.0}, *steps] if steps else steps
            job = lab.run_job(steps, 60 + len(steps) * (3 * a.confirm_budget + 8))
            for st in steps_of(job):
                r = st.get("result")
                out["margins"][f"{sh.key()}:{st['tag']}"] = r
                print(f"{sh.key()} {st['tag']}: " + (f"{r['margin']:.4f} ({r['margin_ab']:.4f}/{r['margin_ba']:.4f}) "
                      f"{r['tflops_base']:.1f} -> {r['tflops_cand']:.1f} TFLOP/s" if r else str(st.get("error"))), flush=True)
        (a.out / "margins.json").write_text(json.dumps(out, indent=1))
        return 0
    if a.plan == "best":
        # first a small check of every candidate in one process: a kernel that hangs or faults there (the rest
        # of that process is lost) is dropped, and the others are checked again without it
        todo = [n for n in dict.fromkeys(["arm", *BEST[128], *BEST[64]]) if n in libs]
        sane: list[str] = []
        while todo:
            job = lab.run_job([{"do": "check", "tag": n, "lib": libs[n], "shapes": [
                Shape(B=1, H=2, N=333, D=sanity_dim(n, dev.limits.smem_per_block_optin), causal=True).model_dump()]}
                for n in todo], 45)
            done = [st["tag"] for st in steps_of(job) if st.get("result", {}).get("ok")]
            sane += done
            bad = next((n for n in todo if n not in [st["tag"] for st in steps_of(job) if "result" in st]), None)
            failed = [st["tag"] for st in steps_of(job) if "result" in st and not st["result"]["ok"]]
            if bad or failed:
                print(f"sanity: dropped {[bad] if bad else []} ({job.status}) and failing {failed}", flush=True)
            todo = [n for n in todo if n not in done and n != bad and n not in failed]
        print(f"sanity: {sane}", flush=True)
        libs = {n: libs[n] for n in sane}
        recs, rows = [], []
        for spec in a.shape or SUITE:
            sh = shape(spec)
            pool = [*BEST[64], *[n for n in BEST[128] if n not in BEST[64]]] if a.wide and sh.D == 64 else BEST[sh.D]
            # heaviest first only under causality, unless --only names the kernel (the agent's N512 D64 final orders
            # its non-causal items heaviest first)
            names = [n for n in pool if n in libs and (sh.causal or "_hf" not in n or n in a.only)
                     and (not a.only or n in a.only)]
            scr = run_shape(sh, names, ["cudnn"])
            ok = [(v["margin"], k.split(":", 1)[1]) for k, v in scr["summary"].items()
                  if k.startswith("cudnn:") and isinstance(v, dict) and v["recheck"]
                  and scr["summary"].get("check:" + k.split(":", 1)[1]) == "pass"]
            best = max(ok)[1] if ok else None
            conf = run_shape(sh, ["arm"] + ([best] if best else []), ["cudnn", "flash"], budget=a.confirm_budget)
            recs.append({"shape": sh.key(), "screen": scr, "best": best, "confirm": conf})
            rows.append((sh.key(), best, conf["summary"]))
            (a.out / "best.json").write_text(json.dumps(recs, indent=1))
        print("\nshape | best kernel (screened) | x cuDNN (confirm, AB/BA) | x flash | ours / cuDNN TFLOP/s | arm x cuDNN")
        for key, best, s_ in rows:
            c, f, r = s_.get(f"cudnn:{best}"), s_.get(f"flash:{best}"), s_.get("cudnn:arm")
            fmt = lambda v: f"{v['margin']:.3f}" if isinstance(v, dict) else str(v)[:40]
            print(f"{key} | {best} ({s_.get(f'check:{best}')}) | {fmt(c)} ({c['ab']:.3f}/{c['ba']:.3f}) | {fmt(f)} | "
                  f"{c['ours']:.0f} / {c['theirs']:.0f} | {fmt(r)}" if isinstance(c, dict) else f"{key} | {best} | {c}", flush=True)
        return 0
    screen_path = a.out / "screen.json"
    if a.plan in ("screen", "all"):
        recs = []
        for D, names in SCREEN.items():
            names = [n for n in names if n in libs and (not a.only or n in a.only or n == "arm")]
            recs.append(run_shape(Shape(B=2, H=16, N=8192, D=D), names, ["cudnn"], vs_kernel="arm"))
        screen_path.write_text(json.dumps(recs, indent=1))
    if a.plan in ("suite", "all"):
        use = dict(u.split("=", 1) for u in a.use)
        if len(use) < 2:
            recs = json.loads(screen_path.read_text())
            for rec in recs:
                D = int(rec["shape"].split("-D")[1].split("-")[0])
                best = max(((v["margin"], k.split(":", 1)[1]) for k, v in rec["summary"].items()
                            if k.startswith("cudnn:ws") and isinstance(v, dict) and v["recheck"]
                            and rec["summary"].get("check:" + k.split(":", 1)[1]) == "pass"), default=None)
                if best:
                    use.setdefault(f"D{D}", best[1])
        print(f"suite kernels: {use}", flush=True)
        recs = []
        for spec in a.shape or SUITE:
            sh = shape(spec)
            names = ["arm"] + ([use[f"D{sh.D}"]] if f"D{sh.D}" in use else [])
            recs.append(run_shape(sh, names, ["cudnn", "flash"]))
        (a.out / "suite.json").write_text(json.dumps(recs, indent=1))
        print("\nshape | " + " | ".join(f"{n} x cuDNN" for n in ("arm", "ws")) + " | ws x flash | ws TFLOP/s | cuDNN TFLOP/s")
        for rec in recs:
            s = rec["summary"]
            ws = next((k.split(":", 1)[1] for k in s if k.startswith("cudnn:ws")), None)
            cell = lambda k: f"{s[k]['margin']:.3f}" if isinstance(s.get(k), dict) else str(s.get(k))[:30]
            print(f"{rec['shape']} | {cell('cudnn:arm')} | {cell(f'cudnn:{ws}')} ({ws}, {s.get(f'check:{ws}')}) | "
                  f"{cell(f'flash:{ws}')} | {s.get(f'cudnn:{ws}', {}).get('ours') if isinstance(s.get(f'cudnn:{ws}'), dict) else '-'} | "
                  f"{s.get(f'cudnn:{ws}', {}).get('theirs') if isinstance(s.get(f'cudnn:{ws}'), dict) else '-'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
