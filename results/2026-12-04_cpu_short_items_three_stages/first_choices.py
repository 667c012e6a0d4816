"""Policy 21 (the three-warpgroup short-items move with three K/V stages) against policy 20 on the recorded H200 runs
of the agent from the naive seed: each run replayed on the CPU from its recording (the loop's own states), and at every
ask the first choice of both policies read from that very state and its own catalog. The one knob set policy 21 adds
was never built on the device; its compiler figures (sm_90, this machine's nvcc 13.0, the device's version; the
non-causal instantiation, which `agent static` builds, also for the causal runs) are read here by
`python3 -m agent static --json` and put into each state beside the recorded ones. For the move where both
policies can build it the script prints its rank and figures under each. CPU only, no GPU:
PYTHONPATH=. python3 results/2026-12-04_cpu_short_items_three_stages/first_choices.py > \
    results/2026-12-04_cpu_short_items_three_stages/first_choices.txt"""
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from agent.strategies.limiter import LimiterAgent
from kernel_src.arch import ctas_per_sm, launch_refusal
from profiler.static import StaticFigures

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("first_choices_20", HERE.parent / "2026-12-04_cpu_async_rows" / "first_choices.py")
earlier = importlib.util.module_from_spec(spec)
spec.loader.exec_module(earlier)  # states_of(), measured(): the replay of a recorded run's asks
RACE = "2026-12-04_h200_race"
RUNS = [f"{RACE}/call15/n512_agent_1", f"{RACE}/call18/n512_agent_2", "2026-12-03_h200_round_order/call2/naive",
        f"{RACE}/call17/d128_agent_3", f"{RACE}/call17/d64_agent_3", f"{RACE}/call16/gqa_agent_3",
        "2026-12-03_h200_agent_suite/call9/causal_p16", f"{RACE}/call8/gqa_agent_1"]
MOVE = "ws_mainloop_three_warpgroups_short_items"
_figures: dict[tuple, StaticFigures] = {}


def figures(knobs, head_dim: int, causal: bool, limits) -> StaticFigures:
    """ptxas's registers and spill of one knob set on sm_90 (`agent static`: the non-causal instantiation, also for a
    causal run's state), and what profiler.static.figures derives from them on the recorded device's limits."""
    key = (knobs.key(), head_dim, causal)
    if key not in _figures:
        args = [sys.executable, "-m", "agent", "static", "--arch", "sm_90", "--json", "--head-dim", str(head_dim)]
        for k, v in knobs.model_dump(mode="json").items():
            args += ["--knob", f"{k}={v}"]
        row = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)[0]
        regs, smem, threads = row["registers"], knobs.smem_bytes(head_dim), knobs.threads()
        ctas, limiter = ctas_per_sm(limits, threads=threads, smem=smem, regs=regs)
        refusal = launch_refusal(limits, smem=smem, threads=threads, regs=regs, needs_arch=knobs.needs_arch())
        _figures[key] = StaticFigures(registers=regs, spill_bytes=row["spill_bytes"], smem_per_cta=smem,
                                      ctas_per_sm=0 if refusal else ctas, warps_per_sm=0 if refusal else ctas * knobs.warps,
                                      rows_per_sm=0 if refusal else ctas * knobs.br, limiter=limiter, refusal=refusal,
                                      wgmma_serialized=row.get("wgmma_serialized", False))
    return _figures[key]


def with_figures(agent: LimiterAgent, state, shape):
    """The state with the figures of every single move of `agent` that the recorded run never built (a state that holds
    no figures yet is the strategy's first pass, which asks for them: left as it is)."""
    missing = {k.key(): k for _, k in agent._singles(state) if k.key() not in state.static}
    if not missing or not state.static:
        return state
    got = {key: figures(k, shape.D, shape.causal, state.limits) for key, k in missing.items()}
    return state.model_copy(update={"static": {**state.static, **got}})


def rank_of(ranked, name: str) -> str:
    for i, a in enumerate(ranked, 1):
        if a.move.name == name:
            return f"#{i} of {len(ranked)}"
    return "not a candidate"


def main() -> None:
    old, new = LimiterAgent(20), LimiterAgent(21)
    for run in RUNS:
        with tempfile.TemporaryDirectory() as d:
            shape, version, states, miss = earlier.states_of(run, Path(d))
        diffs, seen = [], []
        for i, st in enumerate(states, 1):
            a = old.ranked(st)
            st21 = with_figures(new, st, shape)
            b = new.ranked(st21)
            a0, b0 = (a[0].move.name if a else None), (b[0].move.name if b else None)
            if a0 != b0:
                diffs.append(f"  ask {i}: policy 20 {a0} ({earlier.measured(states, a0)}), policy 21 {b0} "
                             f"({earlier.measured(states, b0)}), t_keep {st.t_keep:.4f}")
            k20 = next((k for lv, k in old._singles(st) if lv.name == MOVE), None)
            k21 = next((k for lv, k in new._singles(st21) if lv.name == MOVE), None)
            if k20 is not None or k21 is not None:
                f20 = st.static.get(k20.key()) if k20 else None
                f21 = st21.static.get(k21.key()) if k21 else None
                seen.append(f"  ask {i}: {MOVE} {rank_of(a, MOVE)} under policy 20 "
                            f"({f20.spill_bytes if f20 else '-'} B spill), {rank_of(b, MOVE)} under policy 21 "
                            f"({f21.spill_bytes if f21 else '-'} B spill, {f21.smem_per_cta if f21 else '-'} B)")
        print(f"{run} ({shape.key()}, policy {version}): {len(states)} asks replayed{', ' + miss if miss else ''}; "
              f"first choices differ at {len(diffs)}")
        print("\n".join(diffs) if diffs else "  none")
        shown = seen if diffs else seen[:3] + (["  ..."] if len(seen) > 3 else [])  # every ask where the choice moved
        print("\n".join(shown) if seen else f"  {MOVE}: never a candidate")
        if run == RUNS[0]:
            st = states[11]  # ask 12: the move's two knob sets from the same best, both built on this machine
            for who, agent in (("policy 20", old), ("policy 21", new)):
                k = next(k for lv, k in agent._singles(st) if lv.name == MOVE)
                print(f"  this machine's ptxas, ask 12, {who}'s knob set: {figures(k, shape.D, False, st.limits).line()}")


if __name__ == "__main__":
    main()
