"""The H200 records of the Hopper-mainloop knobs built on the CPU before (results/2026-12-05_h200_schedule,
2026-12-05_h200_mbar_desc, 2026-12-05_h200_streams_heads): the margins the READMEs cite as the device printed them, the
per-SM balance read again from the ncu pages, the stream and many-heads verdicts; and policy 22's two levers, proposed
only on the problems where they were measured to pay."""
import json
import os
import re
import subprocess
import sys

from agent import levers
from agent.policy import POLICIES
from agent.replay.catalog import as_read_by
from kernel_src.knobs import SEED, Knobs
from recorded import RESULTS, device_pairs

SCHED, KNOBS, STREAMS = (RESULTS / f"2026-12-05_h200_{w}" for w in ("schedule", "mbar_desc", "streams_heads"))
A, N8, D64, C = "ws3_lazy_qp_hf_ot_ts_s3", "ws_op_lazy_w_oq_pk", "ws3_lazy_qp_ot_pm", "ws_op_bc176_lazy_hf_w_oq_pm"


def margins(path) -> dict[tuple[str, str, str], float]:
    """(shape, base, candidate) -> the paired margin, as margins.txt printed it."""
    got = re.findall(r"^(B\S+) (\S+)->(\S+): ([\d.]+) \(", path.read_text(), re.M)
    return {(s, a, b): float(m) for s, a, b, m in got}


def test_the_schedule_margins_as_printed():
    m = margins(SCHED / "margins.txt")
    n512, c8k, gqa = ("B16-H16-N512-D64-float16-noncausal", "B2-H16-N8192-D128-float16-causal",
                      "B8-H32-Hkv8-N1024-D128-bfloat16-causal")
    assert m[(n512, A, f"{A}_dy")] == 0.9488 and m[(n512, A, "ws3_lazy_qp_ot_ts_s3_dy")] == 0.9335
    assert m[(n512, A, f"{A}_kh")] == 0.9957 and m[(n512, "cudnn", A)] == 0.9900
    p = "ws_op_lazy_qp_hf_w_ot_pr_pk"
    assert m[(c8k, p, f"{p}_dy")] == 1.0648 and m[(c8k, f"{p}_sn", f"{p}_dy")] == 1.0078
    assert m[(gqa, p, f"{p}_dy")] == 1.0203 and m[(gqa, "cudnn", f"{p}_dy")] == 1.0106
    assert all(v < 1 for (s, a, b), v in m.items() if s == n512 and b.endswith("_dy") and a != "cudnn")
    assert "failures 0" in (SCHED / "tier.txt").read_text() and "failures 0: []\nexit 0" in (SCHED / "tier.txt").read_text()


def test_the_sm_balance_read_again_from_the_pages():
    out = subprocess.run([sys.executable, str(SCHED / "sm_balance.py")], capture_output=True, text=True, check=True).stdout
    assert out == (SCHED / "sm_balance.txt").read_text()
    ours = {ln.split(" | ")[0]: ln for ln in out.splitlines() if " | ours | " in ln}
    avg = lambda k: float(ours[k].split(" | ")[2].split(" / ")[1])  # noqa: E731
    assert avg(f"{A}_dy") / avg(A) > 1.04  # the claim is not hidden: every SM works longer
    assert ours["ws3_lazy_qp_ot_ts_s3_dy"].endswith("50.4 MB") and ours[f"{A}_kh"].endswith("76.4 MB")


def test_the_knob_margins_as_printed():
    mw, dm, both = (margins(KNOBS / d / "margins.txt") for d in ("mbar_wait", "desc_math", "both"))
    n512, n8, d64 = ("B16-H16-N512-D64-float16-noncausal", "B2-H16-N8192-D128-float16-noncausal",
                     "B2-H16-N8192-D64-float16-noncausal")
    assert (mw[(n512, A, f"{A}_mw")], mw[(n8, N8, f"{N8}_mw")], mw[(d64, D64, f"{D64}_mw")]) == (0.9969, 1.0032, 1.0080)
    assert (dm[(n512, A, f"{A}_dm")], dm[(n8, N8, f"{N8}_dm")], dm[(d64, D64, f"{D64}_dm")]) == (1.0095, 1.0029, 1.0055)
    assert dm[(n512, "cudnn", f"{A}_dm")] == 1.0010
    assert dm[("B2-H16-N8192-D128-float16-causal", C, f"{C}_dm")] == 0.9981
    assert both[(n8, f"{N8}_dm", f"{N8}_dmw")] == 0.9916 and both[(n512, f"{A}_dm", f"{A}_dmw")] == 0.9997
    for d in ("mbar_wait", "desc_math", "both"):
        tiers = re.findall(r"failures (\d+)", (KNOBS / d / "tier.txt").read_text())
        assert tiers == ["0", "0"], d
    polls = (KNOBS / "mbar_wait" / "polls.txt").read_text()
    assert re.findall(r"instructions executed$", polls, re.M) and re.findall(r": ([\d.]+)% of", polls) == ["2.0", "8.6"]


def test_the_combined_builds_pair_with_their_own():
    device_pairs("_dmw", [A, "ws_op_lazy_qp_ot_pr_pm", N8, D64, C], desc_math="per_mma", mbar_wait="poll")


def test_streams_and_many_heads_verdicts():
    runs = json.loads((STREAMS / "streams.json").read_text())
    wrong = sorted(k for k, v in runs.items() if not v["ok"])
    assert all(k.startswith("before:") for k in wrong) and len(wrong) == 5 and len(runs) == 16
    assert all(v["overlapped"] == v["rounds"] == 20 for v in runs.values())
    assert not any(k.startswith("before:ws3_static") for k in wrong)
    heads = (STREAMS / "many_heads.txt").read_text()
    assert len(re.findall(r"^after \S+ \S+: right$", heads, re.M)) == 30 and "after" not in heads.split("before")[1]
    assert "before mma_launch B1040-H64-N64-D64-float16-noncausal: KernelError: fa_fwd launch: invalid argument" in heads


def test_policy_22_proposes_each_where_it_paid():
    assert POLICIES[22].model_copy(update={"version": 21}) == POLICIES[21]
    new = {"ws_hoisted_descriptors", "ws_dynamic_items"}
    assert new <= {lv.name for lv in levers.CATALOG} and not new & {lv.name for lv in as_read_by(POLICIES[21])}
    hd, dy = levers.get("ws_hoisted_descriptors"), levers.get("ws_dynamic_items")
    assert hd.noncausal_only and dy.causal_only and not (hd.sampled or dy.sampled)
    ws = Knobs.parse(device_pairs("_dmw", [A, "ws_op_lazy_qp_ot_pr_pm", N8, D64, C], desc_math="per_mma",
                                  mbar_wait="poll")["ws_op_lazy_qp_hf_w_ot_pr_pk_sn"])  # persistent, snaking rounds
    assert hd.applies_to(ws, causal=False) and not hd.applies_to(ws, causal=True)
    assert dy.applies_to(ws, causal=True) and not dy.applies_to(ws, causal=False)
    moved = dy.apply(ws)  # the snake goes back in place: the counter hands out the items
    assert (moved.schedule.value, moved.round_order.value) == ("dynamic", "in_place")
    assert hd.apply(ws).desc_math.value == "hoisted" and not hd.applies_to(SEED)
    for lv, rec in ((hd, "2026-12-05_h200_mbar_desc"), (dy, "2026-12-05_h200_schedule")):
        assert rec in lv.hypothesis and (RESULTS / rec / "README.md").is_file()


def test_policy_22_first_choices_as_committed():
    """results/2026-12-05_cpu_policy22: four recorded runs replayed with today's catalog; the committed reading."""
    here = RESULTS / "2026-12-05_cpu_policy22"
    out = subprocess.run([sys.executable, str(here / "first_choices.py")], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(RESULTS.parent)}).stdout
    assert out == (here / "first_choices.txt").read_text()
    assert "ask 15: first ws_hoisted_descriptors" in out and "ask 14: first ws_idle_tail_tile_major" in out
    assert "ask 10: first ws_dynamic_items" in out and "ws_dynamic_items" not in out.split("causal_p16")[1]


def test_policy_22_at_n512_asked_as_predicted_until_cut(tmp_path):
    """results/2026-12-05_h200_n512_policy22: the run replayed from its recording under policy 22 asks what the device
    asked, 14 experiments as policy 21's run did, and at the 15th the hoisted descriptors, where the recording ends (the
    call's time ran out while it was measured)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("async_rows_fc", RESULTS / "2026-12-04_cpu_async_rows" / "first_choices.py")
    fc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fc)
    shape, version, states, miss = fc.states_of("2026-12-05_h200_n512_policy22/n512_agent_4", tmp_path)
    assert (shape.key(), version, len(states)) == ("B16-H16-N512-D64-float16-noncausal", 22, 15)
    assert miss and "desc_math=hoisted" in miss and "never asked" in miss
    got = [(t.move.name, t.outcome) for t in states[-1].trials if t.move.kind != "seed"]
    text = (RESULTS / "2026-12-04_h200_n512_policy21" / "n512_agent_3.txt").read_text()
    before = re.findall(r"^#\d+ lever (\S+) on .*\n  (KEPT|SLOWER|NULL)", text, re.M)[:14]
    assert [(n, o) for n, o in got][-14:] == before
    printed = (RESULTS / "2026-12-05_h200_n512_policy22" / "n512_agent_4.txt").read_text()
    assert re.search(r"^#15 lever ws_hoisted_descriptors on ", printed, re.M) and "exit 124" in printed


def test_the_suite_call_names_each_best_and_its_policy_22_build():
    here = RESULTS / "2026-12-05_cpu_suite22"
    kernels = device_pairs("_dmw", [A, "ws_op_lazy_qp_ot_pr_pm", N8, D64, C], desc_math="per_mma", mbar_wait="poll")
    call = (here / "device_call.sh").read_text()
    names = re.search(r'C="([^"]+)"', call)[1].split()
    assert len(names) == 15 and all(n in kernels for n in names)
    for base, new in (("ws_op_lazy_qp_w_ot_pr_pk", "_dm"), ("ws_op_lazy_qp_hf_w_ot_pm", "_dy")):
        assert base in names and base + new in names
    text = (here / "static_cpu.txt").read_text()
    blocks = dict(re.findall(r"^(\S+) D(?:64|128): built; \d+ B shared memory a CTA\n((?:  .*\n)+)", text, re.M))
    figs = lambda n: re.sub(r"  SASS.*\n", "", blocks[n])  # noqa: E731
    for n in ("ws_op_lazy_qp_w_ot_pr_pk", "ws3_lazy_qp_hf_ot_pm_ts_s3"):
        assert figs(n) == figs(n + "_dm")  # registers, stack and spills, causal and not
    assert "ATOMG 4" in blocks["ws_op_lazy_qp_hf_w_ot_pm_dy"] and "ATOMG 0" in blocks["ws_op_lazy_qp_hf_w_ot_pm"]
