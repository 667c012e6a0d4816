"""The agent's policies: what each revision of `--strategy agent` decides differently, as values.

A run records the number of the policy it ran with (SearchOptions.agent_version, kept in the run's
options and in its recording's settings), so a replay or a resume decides with that one. Every
switch below is read here and nowhere else by number: the strategy, the diagnosis and the catalog
(agent.levers.catalog_for) read the fields.

CURRENT is what a new run uses; the earlier ones exist so that recorded runs replay exactly (the
catalog each of them searched is rebuilt by agent.replay.catalog).
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Policy(BaseModel):
    """One revision of the agent's decision rules."""
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int  # the number runs record; it also dates the catalog the policy searched
    # a compound move's predicted band: "first_lever" takes its first lever's band (the restorers are there to
    # give back that lever's cost, which the compiler's figures judge); "product" multiplied every lever's band
    # (kv_double_buffer+swizzle+narrow_kv_tile read 0.98-2.27 for swizzle's 1.15-1.80 and measured 0.837,
    # results/2026-11-30_h200_agent_vs_random)
    compound_band: Literal["product", "first_lever"]
    # the levers whose knobs the Hopper arm shares apply to a compute=wgmma kernel, and the arm's whole space
    # (TMA staging, its pipeline) is searched; without it a wgmma-seeded run had nothing to tune and stopped
    # "exhausted" (results/2026-11-30_h200_wgmma_first_battery/README.md)
    wgmma_arm: bool
    # the diagnosis names `issue_bound` (profiler.diagnosis); without it an issue-bound wgmma kernel read
    # `unknown` and the run stopped on the plateau at 0.906x SDPA flash with TMA and the two-warpgroup tile out
    # of reach (results/2026-11-30_h200_tma_pipeline_tier)
    diagnose_issue_bound: bool
    # the levers' declared reliefs of a diagnosis on a compute arm (agent.levers.Relief) rank and band them
    reliefs: bool
    # a move that shares a lever with moves already measured against the current best takes its band from
    # them (agent.strategies.lever_factors); without it a run from the naive seed spent 12 of 20 experiments
    # on compounds whose shared lever had already lost at that very best, each still predicted from the
    # catalog (results/2026-11-30_h200_kv_release_ws/naive_n8192.txt)
    shared_margins: bool
    # a compound's margin is not carried to the single move of a lever the compound held as a restorer (a
    # later lever, brought to give back the first one's cost): that loss says more about the first lever.
    # Without it a qk_pipeline+padding loss of 0.8958 put 83% of itself on padding, which was never measured
    # alone, and the run stopped at 0.969x SDPA flash on the swizzled layout where the padded one had run
    # 1.006-1.012x (results/2026-11-30_h200_mma_reaches_flash)
    restorer_margins: bool
    # a move to the warp-specialised mainloop (Lever.asynchronous) hides latency by asynchrony, a producer
    # warpgroup's TMA and asynchronous wgmma, not by rows in flight: its loss of rows/SM is no cost under a
    # latency-bound diagnosis. Without it a run from the arm at B8 H16/4 N2048 D64 read ws_mainloop as
    # "loses rows/SM 256 -> 128", predicted it at 0.959, never measured it and stopped at 0.886x SDPA cuDNN
    # where the mainloop with three consumer warpgroups and Q by TMA ran 1.028-1.037x
    # (results/2026-12-01_h200_short_shapes)
    async_mainloop: bool = False
    # the plateau rule reads a proposal's band, not its middle alone: one with at least a one-in-four chance of
    # reaching t_keep (the band a log-normal's 95% interval; agent.strategies.limiter.PLATEAU_CHANCE) keeps the
    # run going while budget is left. Without it a run from the arm at B2 H16 N2048 D128 stopped with 3 of 6
    # experiments unspent and ws_mainloop predicted 1.006 (band 0.92-1.10) against t_keep 1.0064, where the
    # warp-specialised kernels ran 1.05 over the arm (results/2026-12-01_h200_cudnn_anatomy)
    plateau_chance: bool = False
    # the rows/SM a move to the warp-specialised mainloop (Lever.asynchronous) gives up for its producer rank it below
    # no other move: they are no tie-break against it, under any diagnosis (the rank's next key after relief, cost
    # and whether the band's middle reaches t_keep; async_mainloop already took them out of its cost).
    # Without it policy 19's run at causal B8 H32/8 N1024 D128 bf16 asked qk_pipeline+narrow_kv_tile (middle 1.004,
    # no rows lost; measured 0.6613) before the two-warpgroup mainloop with Q and O by TMA (middle 1.045, 128 rows
    # given up; kept one ask later at 1.1045) (results/2026-12-04_h200_race)
    async_rows: bool = False
    # a keep stands: a single lever whose move would put back, on every knob it changes, the value a keep of this run
    # replaced is not proposed (the keep already measured that pair, the other way round). Without it policy 30's run
    # at B2 H16 N8192 D128 on an H200 asked ws_o_by_tma at ask 17 on a kernel whose O had moved into the Q tile by a
    # keep at ask 12 (O by TMA -> O in the Q tile, 1.0010), and measured 0.9990 (results/2026-12-07_h200_policy30)
    keeps_stand: bool = False


# one row a revision; each adds the switch named on its right to the row above it
POLICIES: dict[int, Policy] = {p.version: p for p in (
    Policy(version=1, compound_band="product", wgmma_arm=False, diagnose_issue_bound=False, reliefs=False,
           shared_margins=False, restorer_margins=False),
    Policy(version=2, compound_band="first_lever", wgmma_arm=False, diagnose_issue_bound=False, reliefs=False,
           shared_margins=False, restorer_margins=False),  # compound_band
    Policy(version=3, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=False, reliefs=False,
           shared_margins=False, restorer_margins=False),  # wgmma_arm
    Policy(version=4, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=False, restorer_margins=False),  # diagnose_issue_bound, reliefs
    Policy(version=5, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=False),  # shared_margins
    Policy(version=6, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True),  # restorer_margins
    # the same rules; the catalog gains the warp-specialised mainloop as one move (mainloop=ws with its overlap and
    # turns: alone each part lost, together they won, results/2026-12-01_h200_ws_mainloop) and its own levers
    Policy(version=7, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True),
    # the catalog gains the mainloop with three consumer warpgroups as one move (ws_mainloop_three_warpgroups)
    Policy(version=8, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True),  # async_mainloop
    # the same rules; the catalog gains the warp-specialised PV as one wgmma of N=D at D=128 (ws_pv_wide) and a
    # lever's head dims (Lever.head_dims: a move that builds the same code at another head dim is no experiment)
    Policy(version=9, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True),
    Policy(version=10, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),  # plateau_chance
    # the same rules; the catalog gains the warp-specialised epilogue by stmatrix and TMA store (ws_o_by_tma)
    Policy(version=11, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains the TMA epilogue through the item's Q tile (ws_o_in_q_tile)
    Policy(version=12, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains P packed among its exponentials (ws_p_with_exp, ws_p_mid_wait) and a lever
    # that a causal mask rules out (Lever.noncausal_only)
    Policy(version=13, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the two warp-specialised mainloop moves apply from a 4-warp wgmma kernel too (each sets its
    # own BR and warps): from the naive seed at B2 H16 N8192 D64 a run kept the 64 x 64 wgmma tile, lost the
    # 8-warp tile twice (0.908, 0.961) and never reached the mainloop, 0.940x cuDNN
    # (results/2026-12-03_h200_agent_suite)
    Policy(version=14, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains the 40-register producer (ws_producer_40_regs): the N2048 D128 run of
    # policy 13 ended on the suite's kernel but for it, 1.012x cuDNN where that kernel with it read 1.025
    # (results/2026-12-03_h200_agent_suite)
    Policy(version=15, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; P packed among its exponentials (ws_p_with_exp) is proposed under a causal mask too: with its
    # last PV issued from one site it no longer serialises the causal build's wgmma, 1.046 at causal N8192 D128
    # (results/2026-12-03_h200_tail_rows)
    Policy(version=16, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains the persistent schedule's balance: the idle tail warpgroup with the items
    # tile-major (ws_idle_tail_tile_major, only where N leaves the last tile a warpgroup short) and snaking rounds
    # under a causal mask (ws_snake_rounds): 1.022 at N512 D64, 1.057 at causal N8192 D128
    # (results/2026-12-03_h200_round_order)
    Policy(version=17, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains the three-warpgroup mainloop with Q and O by TMA on the persistent schedule
    # as one move (ws_mainloop_three_warpgroups_short_items): from the naive seed at N512 D64 the plain move lost
    # from 4 warps and the run ended at 0.887x cuDNN (results/2026-12-03_h200_round_order)
    Policy(version=18, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    # the same rules; the catalog gains the two-warpgroup mainloop with Q and O by TMA on the persistent schedule as one
    # move, at N <= 2048 only (ws_mainloop_short_items, Lever.max_seqlen): from the naive seed at causal B8 H32/8 N1024
    # D128 bf16 the plain move lost from the barrier kernel (0.899) and the run ended there at 0.860x cuDNN
    # (results/2026-12-04_h200_race)
    Policy(version=19, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True),
    Policy(version=20, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True,
           async_rows=True),  # async_rows
    # the same rules; the three-warpgroup mainloop with Q and O by TMA (ws_mainloop_three_warpgroups_short_items) moves
    # to three K/V stages, where ptxas reads no spill (16 B with two: a cost that ranked it behind every cost-free
    # move, so two runs of policy 20 at B16 H16 N512 D64 never asked it and ended at 0.892-0.894x cuDNN,
    # results/2026-12-04_h200_race)
    Policy(version=21, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the warp-specialised mainloop's wgmma descriptors built once a block
    # (ws_hoisted_descriptors, 1.0095 on the N512 D64 final) and, under a causal mask, items claimed from a counter
    # (ws_dynamic_items, 1.020-1.065 over the persistent kernel in place) (results/2026-12-05_h200_mbar_desc,
    # results/2026-12-05_h200_schedule)
    Policy(version=22, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the launch-order persistent items from a counter with the rows' sums on the
    # tensor cores as one move (ws_launch_order_row_sums: each part alone level, together 1.045-1.06 over the
    # tile-major kernel at N512 D64 on an H100), suspended mbarrier waits (ws_suspended_waits) and evict-last K/V
    # (kv_evict_last), and a lever's input dtypes (Lever.dtypes) (results/2026-12-06_h100_row_sum_around,
    # results/2026-12-06_h100_launch_gaps)
    Policy(version=23, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the idle tail with tile-major items (ws_idle_tail_tile_major) on the static schedule alone: from
    # the launch-order items claimed from a counter policy 23 asked it again at N512 D64 on an H100 and lost 0.8985
    # (results/2026-12-06_h100_policy23)
    Policy(version=24, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains each head's last query tile half a grid of heads later (ws_short_tiles_late:
    # 1.014-1.018 at N2048 D64 GQA and N8192 D64 on an H100, results/2026-12-06_h100_short_tiles_late)
    Policy(version=25, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains Q by TMA with the persistent schedule and a third K/V stage as one move on the
    # three-warpgroup kernel (ws_q_by_tma_three_stages): policy 25 at N2048 D64 GQA lost Q by TMA alone to its 16 B of
    # spill and ended one item a CTA (results/2026-12-06_h100_policy25)
    Policy(version=26, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains Q by TMA with the persistent schedule, the lazy rescale and P packed mid-wait as
    # one move on the one-item-a-CTA three-warpgroup kernel (ws_q_by_tma_lazy_p_mid_wait): policy 26 at N2048 D64 GQA
    # lost Q by TMA with a third stage (0.9544) and the lazy rescale (0.9929) alone and ended one item a CTA at 1.031x
    # cuDNN; the three together read 1.0565 over that final (results/2026-12-06_h100_gqa_ladder)
    Policy(version=27, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the dynamic schedule's items handed to the consumers decoded
    # (ws_decoded_slot): 1.0192 on the N512 D64 final on an H100, level with cuDNN there
    # (results/2026-12-06_h100_slot_item)
    Policy(version=28, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the static persistent schedule's branches made provably warp-uniform
    # (ws_warp_uniform): 1.039 on the persistent D=128 kernel at N8192 on an H100, 1.018 over one item a CTA
    # (results/2026-12-06_h100_warp_uniform)
    Policy(version=29, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the static persistent schedule's last items streamed in equal shares of the
    # CTAs (ws_last_round_stream): 1.0189 on the persistent D=128 kernel at N8192 on an H100, 1.109x cuDNN
    # (results/2026-12-06_h100_static_last_round)
    Policy(version=30, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True),
    # the same rules; the catalog gains the two-consumer D=128 kernel from one item a CTA to the static persistent
    # schedule with warp-uniform branches as one move (ws_persistent_warp_uniform), and the D=64 compound of Q by TMA,
    # the lazy rescale and P mid-wait makes its branches warp-uniform too: on an H200 policy 30's runs at N8192 D128
    # and D64 ended one item a CTA at 1.078x and 1.099x cuDNN, where the suite's static persistent warp-uniform kernels
    # read 1.108x and 1.131x (results/2026-12-07_h200_policy30, results/2026-12-07_h200_suite); and a keep stands
    Policy(version=31, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True,
           keeps_stand=True),  # keeps_stand
    # the same rules; ws_persistent_warp_uniform may start from 176 keys (the move goes back to 128): policy 31's run at
    # N8192 D128 on an H100 kept the wide key tile at ask 13 before it, could not build it after, and ended one item a
    # CTA at 1.056x cuDNN (results/2026-12-07_h100_tier_policy31)
    Policy(version=32, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True,
           keeps_stand=True),
    # the same rules; hopper_tile (mma.sync to the arm's TMA-fed two-warpgroup tile in one move) hides latency by
    # asynchrony (Lever.asynchronous), so the rows/SM it gives up no longer rank it last: policy 32's run at causal B2
    # H16 N4096 D64 bf16 on an H100 ranked it 17th for that loss, reached wgmma at ask 11 and ended at 1.055x cuDNN
    # (results/2026-12-07_h100_policy32_shapes)
    Policy(version=33, compound_band="first_lever", wgmma_arm=True, diagnose_issue_bound=True, reliefs=True,
           shared_margins=True, restorer_margins=True, async_mainloop=True, plateau_chance=True, async_rows=True,
           keeps_stand=True),
)}
CURRENT = POLICIES[33]


class UnknownPolicy(ValueError):
    pass


def policy(version: int | Policy | None = None) -> Policy:
    """The policy a run recorded by number (None: the current one)."""
    if isinstance(version, Policy):
        return version
    if version is None:
        return CURRENT
    try:
        return POLICIES[version]
    except KeyError:
        raise UnknownPolicy(f"agent version {version} unknown; known: {', '.join(map(str, POLICIES))}") from None
