"""What a person sees while the search runs, and one experiment rendered in full."""

from __future__ import annotations

import json
from functools import singledispatchmethod

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from . import events as ev
from .summary import SDPA_LABEL


class Reporter:
    """`with Reporter(console, budget) as say: say(Kept(...))`: a line per event above a progress bar
    counting experiments against the budget."""

    def __init__(self, console: Console, budget: int):
        self.console, self.budget = console, budget
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=console, transient=True)
        self.task = None

    def __enter__(self):
        self.progress.__enter__()
        self.task = self.progress.add_task("starting", total=self.budget or None)
        return self.say

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def _line(self, text: str) -> None:
        self.progress.console.print(text)

    @singledispatchmethod
    def say(self, event: ev.Event) -> None:
        raise TypeError(f"no rendering of {type(event).__name__}")

    @say.register
    def _(self, e: ev.RunStarted) -> None:
        dev = e.device
        self._line(f"[bold]run {e.run_id}[/] on {dev.name} ({dev.arch}, {dev.sm_count} SMs, "
                   f"{dev.limits.smem_per_block_optin // 1024} KB smem/block opt-in), problem {e.shape.key()}"
                   + (f", strategy {e.strategy}" if e.strategy else ""))

    @say.register
    def _(self, e: ev.Phase) -> None:
        self.progress.update(self.task, description=e.text)

    @say.register
    def _(self, e: ev.Line) -> None:
        self._line(e.text)

    @say.register
    def _(self, e: ev.Warn) -> None:
        self._line(f"[yellow]warning:[/] {escape(e.text)}")

    @say.register
    def _(self, e: ev.Diagnosed) -> None:
        diag = e.diagnosis
        self._line(f"  diagnosis of {e.knobs.label()}: " + (f"[cyan]{diag.label}[/] - {diag.summary}" if diag else e.why))

    @say.register
    def _(self, e: ev.NullMeasured) -> None:
        ms = ", ".join(f"{m:.5f}" for m in e.margins)
        self._line(f"  A/A null margins {ms}: t_noise {e.t_noise:.4%}, t_keep {e.t_keep:.5f} "
                   f"({e.source})" + (f"; ceiling {e.ceiling:.1f} TFLOP/s" if e.ceiling else ""))

    @say.register
    def _(self, e: ev.ExperimentStarted) -> None:
        self.progress.update(self.task, description=f"#{e.seq} {e.move_kind} {e.lever}: "
                                                    f"{e.cand.label() if e.cand else 'invalid'}")
        band = e.predicted
        pred = f"predicted {band[0]:.2f}-{band[1]:.2f}" if band else "no prediction"
        seen = f" (measured {e.prior['margin']:.4f} on this kernel in run {e.prior['run_id']})" if e.prior else ""
        what = f" -> {e.cand.label()}" if e.cand is not None and e.move_kind in ("sample", "compound") else ""
        self._line(f"[bold]#{e.seq}[/] {e.move_kind} [bold]{e.lever}[/] on {e.base.label()}{what}, {pred}{seen}")

    @say.register
    def _(self, e: ev.Ranked) -> None:
        if len(e.proposals) > 1 or e.proposals[0].move.kind != "sample":
            for i, prop in enumerate(e.proposals):
                band = prop.predicted
                b = f"{band[0]:.2f}-{band[1]:.2f}" if band else "-"
                self._line(f"  {'->' if i == 0 else '  '} {b:>9}  {escape(prop.rationale)}")

    @say.register
    def _(self, e: ev.Remaining) -> None:
        self._line("not worth a measurement:")
        for name, why in e.items:
            self._line(f"  {name}: {escape(why)}")

    @say.register
    def _(self, e: ev.Kept) -> None:
        self._line(f"  [green]KEPT[/] margin {e.margin:.4f}, {e.tflops:.1f} TFLOP/s")
        if e.diagnosis is not None:
            self._line(f"  diagnosis now [cyan]{e.diagnosis.label}[/] - {e.diagnosis.summary}")
        elif e.why:
            self._line(f"  no diagnosis: {e.why}")
        if e.rescreens:
            self._line(f"  conditions changed: re-screening {', '.join(e.rescreens)} first")
        self.progress.advance(self.task)

    @say.register
    def _(self, e: ev.Rejected) -> None:
        m = f" margin {e.margin:.4f}" if e.margin else ""
        self._line(f"  [red]{e.outcome.value}[/]{m}: {escape(e.detail)}")  # a worker's stderr is text, not markup
        self.progress.advance(self.task)

    @say.register
    def _(self, e: ev.Anchored) -> None:
        r = e.result
        if r is None:
            self._line("  anchor: measurement failed")
            return
        self._line(f"[bold]re-anchor[/] {r['tflops_cand']:.1f} TFLOP/s vs seed {r['tflops_base']:.1f} (paired margin {r['margin']:.3f})")
        if e.reanchor:
            self._line(f"  {e.reanchor.text}")

    @say.register
    def _(self, e: ev.Compared) -> None:
        r, label = e.result, SDPA_LABEL.get(e.backend, e.backend)
        if r is None:
            self._line(f"  {label} {escape(e.why or 'measurement failed')}")
            return
        self._line(f"[bold]{label}[/] {r['tflops_cand']:.1f} TFLOP/s vs final {r['tflops_base']:.1f} (paired margin {r['margin']:.3f})")

    @say.register
    def _(self, e: ev.Done) -> None:
        self._line(f"stopped: {e.status} ({e.reason})")
        sm = e.summary or {}
        if sm.get("experiments"):
            med = f"{sm['median_seconds']:.0f} s" if sm.get("median_seconds") is not None else "n/a"
            bands = (f"predictions: {sm['inside_band']} of {sm['banded']} measured margins inside their band"
                     if sm["banded"] else "predictions: none (this strategy predicts no band)")
            self._line(f"{bands}; median {med} per experiment; {sm['kept']} kept of {sm['experiments']}")
        t = sm.get("time")
        if t and t["children_s"]:
            parts = (f"the experiments' child processes {t['children_s']:.0f} s, their replicates {t['replicates_s']:.0f} s, "
                     f"ncu profiles {t['profiles_s']:.0f} s, A/A nulls {t['nulls_s']:.0f} s")
            if t.get("replayed"):  # the seconds the recording holds; this replay's own wall time says nothing
                self._line(f"time, as recorded: {parts}")
            else:
                self._line(f"time: {t['wall_s']:.0f} s from start to finish; {parts}, waiting for builds "
                           f"{t['builds_waited_s']:.0f} s")
        sp = sm.get("speculation")
        if sp and sp.get("discarded"):
            self._line(f"{sp['measured']} evaluation(s) measured against a superseded best were discarded "
                       f"({sp['discarded'] - sp['measured']} more dropped before they started); none counted")
        # the closing comparison, each backend in its own pair (or why there is none)
        sdpa = escape(sm["against_sdpa_text"]) if sm.get("against_sdpa_text") else None
        if sm.get("final_tflops"):
            self._line(f"[bold]summary[/]: seed {sm['seed_tflops']:.1f} -> final {sm['final_tflops']:.1f} TFLOP/s in the "
                       f"re-anchor's pair ({sm['vs_seed']:.2f}x); {sdpa}; final kernel {sm['final_knobs']}")
        elif sdpa and any(a["status"] != "not measured" for a in sm["against_sdpa"]):  # a screen's fixed kernel
            self._line(f"[bold]summary[/]: {sdpa}; kernel {sm['final_knobs']}")


class CampaignReporter(Reporter):
    """A Reporter for `tune`: a bar counting the campaign's problems above the bar of the run in
    progress, which starts again at each problem."""

    def __init__(self, console: Console, problems: int, budget: int):
        super().__init__(console, budget)
        self.problems, self.campaign = problems, None

    def __enter__(self):
        self.progress.__enter__()
        self.campaign = self.progress.add_task("campaign", total=self.problems)
        self.task = self.progress.add_task("starting", total=self.budget or None)
        return self.say

    def starting(self, i: int, planned, action: str) -> None:
        """Problem i (0-based) of the campaign is next; `action`: searched, resumed or finished before."""
        self.progress.update(self.campaign, completed=i,
                             description=f"campaign: problem {i + 1} of {self.problems} ({planned.bucket})")
        self.progress.reset(self.task, total=self.budget or None, description="starting")
        self._line(f"[bold]problem {i + 1} of {self.problems}[/]: {planned.shape.key()}, bucket {planned.bucket} "
                   f"(serves N {', '.join(map(str, planned.seqlens))}): {action}")

    def finished(self) -> None:
        self.progress.update(self.campaign, completed=self.problems, description="campaign: done")


def _v(x, spec: str = "") -> str:
    """A stored value, or '-' where the database holds none (never a zero that was not measured)."""
    return "-" if x is None else format(x, spec)


def render_experiment(console: Console, e: dict, ncu_csv_now: str | None = None) -> None:
    """`ncu_csv_now`: where the diagnosis's ncu CSV is on this machine (the database stores where the
    recording machine wrote it)."""
    base, knobs = e.get("base_knobs") or {}, e.get("knobs") or {}
    changed = {k: f"{base.get(k)} -> {v}" for k, v in knobs.items() if base and base.get(k) != v}
    band = (e.get("predicted_lo"), e.get("predicted_hi"))
    lines = [
        f"[bold]experiment {e['id']}[/] (run {e['run_id']}, #{e['seq'] or '-'}, {e['kind']}) lever [bold]{e['lever'] or '-'}[/]",
        f"knobs: {json.dumps(knobs) if knobs else '-'}",
        f"changed: {json.dumps(changed) if changed else '-'}",
        f"hypothesis: {escape(e['hypothesis'] or '-')}",
        f"predicted margin: {_v(band[0], '.2f')}-{_v(band[1], '.2f')}" if None not in band else "predicted margin: -",
        f"outcome: [bold]{e['outcome'] or '-'}[/]  {escape(e['detail'] or '')}",
    ]
    if e.get("rationale"):
        lines.append(f"why this move: {escape(e['rationale'])}")
    st = e.get("static") or {}
    for who in ("best", "candidate"):
        f = st.get(who)
        if f:
            lines.append(f"compiler figures, {who}: {_v(f.get('registers'))} registers, {_v(f.get('spill_bytes'))} B spilled, "
                         f"{_v(f.get('smem_per_cta'))} B smem/CTA, {_v(f.get('ctas_per_sm'))} CTAs/SM ({_v(f.get('warps_per_sm'))} "
                         f"warps, {_v(f.get('rows_per_sm'))} rows) limited by {_v(f.get('limiter'))}")
    if e["margin"] is not None:
        lines.append(f"margin {e['margin']:.5f} (p10 {_v(e['margin_lo'], '.5f')}, p90 {_v(e['margin_hi'], '.5f')}; "
                     f"AB {_v(e['margin_ab'], '.5f')}, BA {_v(e['margin_ba'], '.5f')})")
    if e["tflops_cand"] is not None or e["tflops_base"] is not None:
        lines.append(f"TFLOP/s: base {_v(e['tflops_base'], '.1f')}, candidate {_v(e['tflops_cand'], '.1f')}")
    for m in e.get("measurements", []):
        if m["kind"] in ("c1", "c2") and m["payload"]:
            worst = max(m["payload"].get("checks", []), key=lambda c: c["max_abs"] / c["bound"], default=None)
            if worst:
                lines.append(f"{m['kind']}: {'pass' if m['ok'] else 'FAIL'}, worst max_abs {worst['max_abs']:.3g} against bound "
                             f"{worst['bound']:.3g} at N={worst['shape']['N']}")
    d = e.get("diagnosis")
    if d:
        lines.append(f"diagnosis: [cyan]{d['label']}[/] - {escape(d['summary'] or '')}")
        csv = ncu_csv_now if ncu_csv_now is not None else _v(d.get("ncu_csv"))
        lines.append(f"registers {_v(d['registers'])}, smem/CTA {_v(d['smem_per_cta'])}, CTAs/SM {_v(d['ctas_per_sm'])}, "
                     f"warps/SM {_v(d['warps_per_sm'])}, limiter {_v(d['limiter'])}, ncu CSV {csv}")
    if e.get("shelf"):
        s = e["shelf"]
        lines.append(f"shelf: {s['status']} under {json.dumps(s['conditions'])}")
    # a frame in a terminal; in a pipe or a file plain lines (a frame there is as wide as the longest line)
    text = "\n".join(lines)
    console.print(Panel(text, expand=False) if console.is_terminal else text)
