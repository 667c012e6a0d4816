"""The lever catalog as earlier agent policies searched it (agent.levers.catalog_for).

agent.levers.CATALOG is today's catalog. A policy recorded before some lever, precondition or relief
existed must not see it, or its replay would ask questions its recorded run never asked; this module
holds what changed, by the policy number current when it changed, and rebuilds each earlier view.
"""
from __future__ import annotations

from ..levers import CATALOG, Lever
from ..policy import Policy

# The catalog as it stood when runs did not yet record theirs (results/2026-11-30_h200_run2):
# a replay of such a recording searches exactly these.
FIRST_CATALOG = ("tensor_cores", "swizzle", "padding", "cp_async", "exp2", "narrow_kv_tile", "wide_kv_tile", "tall_q_tile")

# the first policy whose catalog held each lever added after the first policy: an earlier policy's
# replay never proposes it (each was added while that policy was the current one, so no recording of
# an earlier policy could have measured it)
ADDED = {"tma_ring": 4, "hopper_tile": 4, "last_warp_refill": 4, "producer_warpgroup": 4,
         "pingpong": 5, "unrolled_copies": 5, "exp_poly_quarter": 5, "exp_poly_half": 5,
         "pv_slab": 6, "ws_mainloop": 7, "ws_wide_kv_tile": 7, "ws_three_warpgroups": 7,
         "ws_q_by_tma": 7, "ws_q_by_tma_heaviest_first": 7, "ws_two_ctas": 7,
         "ws_mainloop_three_warpgroups": 8, "ws_pv_wide": 9,
         "ws_o_by_tma": 11, "ws_o_in_q_tile": 12, "ws_p_with_exp": 13, "ws_p_mid_wait": 13,
         "ws_producer_40_regs": 15, "ws_idle_tail_tile_major": 17, "ws_snake_rounds": 17,
         "ws_mainloop_three_warpgroups_short_items": 18, "ws_mainloop_short_items": 19,
         "ws_hoisted_descriptors": 22, "ws_dynamic_items": 22,
         "ws_launch_order_row_sums": 23, "ws_suspended_waits": 23, "kv_evict_last": 23,
         "ws_short_tiles_late": 25, "ws_q_by_tma_three_stages": 26,
         "ws_q_by_tma_lazy_p_mid_wait": 27, "ws_decoded_slot": 28, "ws_warp_uniform": 29,
         "ws_last_round_stream": 30, "ws_persistent_warp_uniform": 31}

# preconditions a later policy narrowed: lever -> (the policy from which today's `requires` holds,
# the precondition before it)
_WS_FROM_8_WARPS = {"compute": ("wgmma",), "staging": ("tma",), "exp": ("ex2",), "warps": (8,), "mainloop": ("general",)}
EARLIER_REQUIRES: dict[str, tuple[int, dict[str, tuple]]] = {
    "cp_async": (4, {}), "ws_mainloop": (14, _WS_FROM_8_WARPS), "ws_mainloop_three_warpgroups": (14, _WS_FROM_8_WARPS),
    "ws_idle_tail_tile_major": (24, {"mainloop": ("ws",), "persistent": ("on",), "pingpong": ("off",),
                                     "item_stream": ("off",), "round_order": ("in_place",)}),
    "ws_persistent_warp_uniform": (32, {"mainloop": ("ws",), "warps": (8,), "persistent": ("off",),
                                        "item_stream": ("off",)})}

# knob values a later policy changed in a lever's move: lever -> (the policy from which today's `sets` hold, the values
# before it)
EARLIER_SETS: dict[str, tuple[int, dict]] = {
    "ws_mainloop_three_warpgroups_short_items": (21, {"kv_stages": 2}),
    # off is every kernel's value where the lever applies (it requires persistent=off, which warp_uniform=on excludes)
    "ws_q_by_tma_lazy_p_mid_wait": (31, {"warp_uniform": "off"}),
    # None: the knob was not set before (the move kept the kernel's key tile, and from 176 keys could not be built)
    "ws_persistent_warp_uniform": (32, {"bc": None})}

# a lever's flags a later policy changed: lever -> (the policy from which today's hold, the flags before it)
EARLIER_FLAGS: dict[str, tuple[int, dict[str, bool]]] = {"ws_p_with_exp": (16, {"noncausal_only": True}),
                                                       "hopper_tile": (33, {"asynchronous": False})}

# the policy from which the catalog declares reliefs (Policy.reliefs)
RELIEFS_SINCE = 4
# the policy from which a precondition that names compute=mma may also admit compute=wgmma (Policy.wgmma_arm)
WGMMA_SINCE = 3


def since(lv: Lever) -> int:
    """The first policy whose catalog held `lv`."""
    return ADDED.get(lv.name, 1)


def _requires(lv: Lever, p: Policy) -> dict[str, tuple]:
    v, before = EARLIER_REQUIRES.get(lv.name, (0, lv.requires))
    req = dict(lv.requires if p.version >= v else before)
    if not p.wgmma_arm:  # agents before the arm never let a lever's precondition admit compute=wgmma
        req = {k: tuple(x for x in allowed if not (k == "compute" and x == "wgmma")) for k, allowed in req.items()}
    return req


def as_read_by(p: Policy) -> tuple[Lever, ...]:
    """The catalog of policy `p`: the levers it held, with the preconditions and reliefs it read."""
    return tuple(lv.model_copy(update={"requires": _requires(lv, p), "reliefs": lv.reliefs if p.reliefs else (),
                                       "sets": _sets(lv, p), **_flags(lv, p)})
                 for lv in CATALOG if since(lv) <= p.version)


def _sets(lv: Lever, p: Policy) -> dict:
    v, before = EARLIER_SETS.get(lv.name, (0, {}))
    return _set({**lv.sets, **before}) if p.version < v else lv.sets


def _set(sets: dict) -> dict:
    """A lever's sets without the knobs an earlier policy did not set (None in EARLIER_SETS)."""
    return {k: x for k, x in sets.items() if x is not None}


def _flags(lv: Lever, p: Policy) -> dict[str, bool]:
    v, before = EARLIER_FLAGS.get(lv.name, (0, {}))
    return before if p.version < v else {}


def as_listed(lv: Lever) -> dict:
    """A lever as `levers --json` has always listed it: with the policy that added it (`since`), each
    relief's and the later preconditions by policy (`requires_since`)."""
    d = lv.model_dump(mode="json")
    v, before = EARLIER_REQUIRES.get(lv.name, (None, None))
    d["requires"] = {k: list(x) for k, x in before.items()} if v else d["requires"]
    d["reliefs"] = [{"label": r["label"], "since": RELIEFS_SINCE, **{k: r[k] for k in ("compute", "predicted", "evidence")}}
                    for r in d["reliefs"]]
    d["since"] = since(lv)
    d["requires_since"] = {str(v): {k: list(x) for k, x in lv.requires.items() if before.get(k) != x}} if v else {}
    v, before = EARLIER_SETS.get(lv.name, (None, None))
    d["sets"] = _set({**lv.sets, **before}) if v else d["sets"]
    d["sets_since"] = {str(v): {k: lv.sets[k] for k in before}} if v else {}
    return d
