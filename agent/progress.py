"""What a person sees while the search runs, and one experiment rendered in full."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


class Reporter:
    """`with Reporter(console, budget) as say: say("kept", ...)`: a line per event above a
    progress bar counting experiments against the budget."""

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

    def say(self, event: str, **d) -> None:
        p, task = self.progress, self.task
        if event == "run":
            dev = d["device"]
            self._line(f"[bold]run {d['run_id']}[/] on {dev.name} ({dev.arch}, {dev.sm_count} SMs, "
                       f"{dev.limits.smem_per_block_optin // 1024} KB smem/block opt-in), problem {d['shape'].key()}"
                       + (f", strategy {d['strategy']}" if d.get("strategy") else ""))
        elif event == "phase":
            p.update(task, description=d["text"])
        elif event == "line":
            self._line(d["text"])
        elif event == "warn":
            self._line(f"[yellow]warning:[/] {d['text']}")
        elif event == "diagnosis":
            diag = d["diagnosis"]
            self._line(f"  diagnosis of {d['knobs'].label()}: " + (f"[cyan]{diag.label}[/] - {diag.summary}" if diag else d["why"]))
        elif event == "aa":
            ms = ", ".join(f"{m:.5f}" for m in d["margins"])
            self._line(f"  A/A null margins {ms}: t_noise {d['t_noise']:.4%}, t_keep {d['t_keep']:.5f} "
                       f"({d.get('source', '')})" + (f"; ceiling {d['ceiling']:.1f} TFLOP/s" if d.get("ceiling") else ""))
        elif event == "experiment":
            name = d["lever"]
            p.update(task, description=f"#{d['seq']} {d['kind']} {name}: {d['cand'].label() if d['cand'] else 'invalid'}")
            band = d.get("predicted")
            pred = f"predicted {band[0]:.2f}-{band[1]:.2f}" if band else "no prediction"
            prior = d.get("prior")
            seen = f" (measured {prior['margin']:.4f} on this kernel in run {prior['run_id']})" if prior else ""
            what = f" -> {d['cand'].label()}" if d.get("cand") is not None and d["kind"] in ("sample", "compound") else ""
            self._line(f"[bold]#{d['seq']}[/] {d['kind']} [bold]{name}[/] on {d['base'].label()}{what}, {pred}{seen}")
        elif event == "ranking":
            if len(d["proposals"]) > 1 or d["proposals"][0].move.kind != "sample":
                for i, prop in enumerate(d["proposals"]):
                    band = prop.predicted
                    b = f"{band[0]:.2f}-{band[1]:.2f}" if band else "-"
                    self._line(f"  {'->' if i == 0 else '  '} {b:>9}  {escape(prop.rationale)}")
        elif event == "remaining":
            self._line("not worth a measurement:")
            for name, why in d["items"]:
                self._line(f"  {name}: {escape(why)}")
        elif event == "kept":
            self._line(f"  [green]KEPT[/] margin {d['margin']:.4f}, {d['tflops']:.1f} TFLOP/s")
            if d.get("diagnosis") is not None:
                self._line(f"  diagnosis now [cyan]{d['diagnosis'].label}[/] - {d['diagnosis'].summary}")
            elif d.get("why"):
                self._line(f"  no diagnosis: {d['why']}")
            if d.get("rescreens"):
                self._line(f"  conditions changed: re-screening {', '.join(d['rescreens'])} first")
            p.advance(task)
        elif event == "rejected":
            m = f" margin {d['margin']:.4f}" if d.get("margin") else ""
            self._line(f"  [red]{d['outcome'].value}[/]{m}: {d['detail']}")
            p.advance(task)
        elif event in ("anchor", "comparator"):
            r = d["result"]
            if r is None:
                self._line(f"  {event}: measurement failed")
            elif event == "anchor":
                self._line(f"[bold]re-anchor[/] {r['tflops_cand']:.1f} TFLOP/s vs seed {r['tflops_base']:.1f} (paired margin {r['margin']:.3f})")
                if d.get("reanchor"):
                    self._line(f"  {d['reanchor'].text}")
            else:
                self._line(f"[bold]SDPA flash[/] {r['tflops_cand']:.1f} TFLOP/s vs final {r['tflops_base']:.1f} (paired margin {r['margin']:.3f})")
        elif event == "done":
            self._line(f"stopped: {d['status']} ({d['reason']})")
            sm = d.get("summary") or {}
            if sm.get("experiments"):
                med = f"{sm['median_seconds']:.0f} s" if sm.get("median_seconds") is not None else "n/a"
                bands = (f"predictions: {sm['inside_band']} of {sm['banded']} measured margins inside their band"
                         if sm["banded"] else "predictions: none (this strategy predicts no band)")
                self._line(f"{bands}; median {med} per experiment; {sm['kept']} kept of {sm['experiments']}")
            sp = sm.get("speculation")
            if sp and sp.get("discarded"):
                self._line(f"{sp['measured']} evaluation(s) measured against a superseded best were discarded "
                           f"({sp['discarded'] - sp['measured']} more dropped before they started); none counted")
            if sm.get("final_tflops"):
                sdpa = (f"; against SDPA flash {sm['final_tflops_vs_sdpa']:.1f} vs {sm['sdpa_flash_tflops']:.1f} TFLOP/s in "
                        f"that pair: {sm['vs_sdpa_flash']:.3f}x" if sm.get("vs_sdpa_flash") else "")
                self._line(f"[bold]summary[/]: seed {sm['seed_tflops']:.1f} -> final {sm['final_tflops']:.1f} TFLOP/s in the "
                           f"re-anchor's pair ({sm['vs_seed']:.2f}x){sdpa}; final kernel {sm['final_knobs']}")


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
