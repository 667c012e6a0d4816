"""Why policy 25's N512 run asked kv_double_buffer at ask 15 where policy 23's asked the compound: each run's own
state before ask 15, rebuilt on the CPU from its recording, and the rank key LimiterAgent.assess gives both moves there
(its second element: the band's midpoint >= the run's t_keep), beside the run's t_keep. CPU only:
PYTHONPATH=. python3 results/2026-12-06_h100_policy25/why_ask15.py > results/2026-12-06_h100_policy25/why_ask15.txt"""
import importlib.util
import tempfile
from pathlib import Path

from agent.strategies.limiter import LimiterAgent

R = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("fc", R / "2026-12-04_cpu_short_items_three_stages" / "first_choices.py")
fc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fc)

for run, version in (("2026-12-06_h100_policy23/n512_agent_4", 23), ("2026-12-06_h100_policy25/n512_agent_4", 25)):
    agent = LimiterAgent(version)
    with tempfile.TemporaryDirectory() as d:
        shape, _, states, _ = fc.earlier.states_of(run, Path(d))
    st = states[14]
    print(f"{run} (policy {version}), before ask 15: t_noise {st.t_noise:.4%}, t_keep {st.t_keep:.5f}; "
          f"ranked first: {', '.join(p.move.name for p in agent.ranked(st)[:3])}")
    for move in agent.moves(st):
        if move.name in ("kv_double_buffer", "ws_launch_order_row_sums"):
            key, band, _ = agent.assess(st, move)
            print(f"  {move.name}: band {band[0]:.2f}-{band[1]:.2f}, midpoint {key[5]:.4f}, clears t_keep: {key[1]}")
