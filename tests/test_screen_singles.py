"""`run --screen` measures every applicable single lever against the seed before any
compound move (a compound is a lever plus what gives its cost back; it comes after the singles,
budget permitting). On the H200 the agent's rank put compounds first and 29 of a 30-experiment
screen were compounds; a screen recorded before `screen_singles_first` replays in its own order."""
from fakes import SimBench, SpillingSimBench

from agent.loop import SearchOptions, run_search, singles_first
from agent.replay.settings import LATER_SETTINGS, LEGACY
from agent.strategies.base import Move, Proposal, State
from agent.strategies.limiter import LimiterAgent
from experiments.problem import Shape
from kernel_src.knobs import Knobs
from store import queries as q
from store.db import open_db

SHAPE = Shape(B=2, H=16, N=8192, D=128)
SEED = Knobs.parse_assignments(["compute=mma", "layout=pad", "staging=cp_async", "exp=ex2"])


def _singles(bench) -> set[str]:
    """The single levers that apply to the seed and build on this (simulated) device."""
    from agent import levers as catalog

    state = State(best=SEED, seed=SEED, levers=tuple(catalog.CATALOG), limits=bench.device().limits,
                  causal=SHAPE.causal, head_dim=SHAPE.D)
    singles = LimiterAgent()._singles(state)
    figs = bench.static([k for _, k in singles])
    return {lv.name for lv, k in singles if not figs[k.key()].refusal}


def _screen(tmp_path, name, bench, budget, **opts):
    db = open_db(tmp_path / f"{name}.db")
    rid = run_search(bench, db, shape=SHAPE, seed=SEED, artifacts=tmp_path / f"{name}_art",
                     options=SearchOptions(screen=True, budget=budget, **opts))
    return db, rid, [(e["kind"], e["lever"]) for e in q.history(db, rid) if e["seq"] is not None]


def test_a_screen_measures_every_single_lever_before_any_compound(tmp_path):
    singles = _singles(SpillingSimBench())
    assert len(singles) >= 15 and "min_ctas_3" in singles
    # a budget of exactly the singles: every one of them, no compound
    _, _, rows = _screen(tmp_path, "exact", SpillingSimBench(), len(singles))
    assert {kind for kind, _ in rows} == {"lever"} and {lever for _, lever in rows} == singles
    # more budget: the singles, then the compounds
    db, rid, rows = _screen(tmp_path, "wide", SpillingSimBench(), len(singles) + 10)
    kinds = [kind for kind, _ in rows]
    assert "compound" in kinds and kinds == sorted(kinds, key=lambda k: k == "compound")
    assert {lever for kind, lever in rows if kind == "lever"} == singles
    assert all(lever.startswith("min_ctas_3+") for kind, lever in rows if kind == "compound")
    assert q.get_run(db, rid)["options"]["search"]["screen_singles_first"] is True


def test_a_screen_with_the_setting_off_keeps_the_old_order(tmp_path):
    """What a screen recorded before the setting did: the agent's rank as it came, its compounds first
    here, so a budget of the singles' count leaves some single unmeasured."""
    singles = _singles(SpillingSimBench())
    _, _, rows = _screen(tmp_path, "old", SpillingSimBench(), len(singles), screen_singles_first=False)
    assert rows[0][0] == "compound"
    assert {lever for kind, lever in rows if kind == "lever"} < singles
    # a recording made before the setting replays with it off
    assert LATER_SETTINGS["screen_singles_first"] is False and LEGACY["screen_singles_first"] is False


def test_without_compounds_the_order_is_the_strategy_s(tmp_path):
    """SimBench's figures give the agent no costly lever: both settings measure the same levers in the
    same order (the sort is stable: among singles, the strategy's rank)."""
    _, _, new = _screen(tmp_path, "new", SimBench(), 40)
    _, _, old = _screen(tmp_path, "old", SimBench(), 40, screen_singles_first=False)
    assert new == old and {kind for kind, _ in new} == {"lever"}


def test_singles_first_is_a_stable_sort():
    def prop(*levers):
        return Proposal(move=Move(levers=levers, knobs=SEED, kind="compound" if len(levers) > 1 else "lever"),
                        predicted=(1.0, 1.1), rationale="")

    ranked = [prop("a", "b"), prop("c"), prop("d", "e", "f"), prop("g"), prop("h")]
    assert [p.move.name for p in singles_first(ranked)] == ["c", "g", "h", "a+b", "d+e+f"]
    sample = Proposal(move=Move(knobs=SEED, kind="sample"), predicted=None, rationale="")
    assert singles_first([sample]) == [sample]
