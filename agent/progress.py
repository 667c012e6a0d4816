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
            if sm.get("final_tflops"):
                sdpa = (f"; against SDPA flash {sm['final_tflops_vs_sdpa']:.1f} vs {sm['sdpa_flash_tflops']:.1f} TFLOP/s in "
                        f"that pair: {sm['vs_sdpa_flash']:.3f}x" if sm.get("vs_sdpa_flash") else "")
                self._line(f"[bold]summary[/]: seed {sm['seed_tflops']:.1f} -> final {sm['final_tflops']:.1f} TFLOP/s in the "
                           f"re-anchor's pair ({sm['vs_seed']:.2f}x){sdpa}; final kernel {sm['final_knobs']}")


def render_experiment(console: Console, e: dict) -> None:
    base, knobs = e.get("base_knobs") or {}, e.get("knobs") or {}
    changed = {k: f"{base.get(k)} -> {v}" for k, v in knobs.items() if base and base.get(k) != v}
    lines = [
        f"[bold]experiment {e['id']}[/] (run {e['run_id']}, #{e['seq'] or '-'}, {e['kind']}) lever [bold]{e['lever'] or '-'}[/]",
        f"knobs: {json.dumps(knobs)}",
        f"changed: {json.dumps(changed) if changed else '-'}",
        f"hypothesis: {escape(e['hypothesis'] or '-')}",
        f"predicted margin: {e['predicted_lo']}-{e['predicted_hi']}" if e["predicted_lo"] else "predicted margin: -",
        f"outcome: [bold]{e['outcome'] or '-'}[/]  {e['detail'] or ''}",
    ]
    if e.get("rationale"):
        lines.append(f"why this move: {escape(e['rationale'])}")
    st = e.get("static") or {}
    for who in ("best", "candidate"):
        f = st.get(who)
        if f:
            lines.append(f"compiler figures, {who}: {f['registers']} registers, {f['spill_bytes']} B spilled, "
                         f"{f['smem_per_cta']} B smem/CTA, {f['ctas_per_sm']} CTAs/SM ({f['warps_per_sm']} warps, "
                         f"{f['rows_per_sm']} rows) limited by {f['limiter']}")
    if e["margin"] is not None:
        def v(x):
            return "-" if x is None else f"{x:.5f}"
        lines.append(f"margin {e['margin']:.5f} (p10 {v(e['margin_lo'])}, p90 {v(e['margin_hi'])}; "
                     f"AB {v(e['margin_ab'])}, BA {v(e['margin_ba'])})")
    if e["tflops_cand"]:
        lines.append(f"TFLOP/s: base {e['tflops_base']:.1f}, candidate {e['tflops_cand']:.1f}")
    for m in e.get("measurements", []):
        if m["kind"] in ("c1", "c2") and m["payload"]:
            worst = max(m["payload"].get("checks", []), key=lambda c: c["max_abs"] / c["bound"], default=None)
            if worst:
                lines.append(f"{m['kind']}: {'pass' if m['ok'] else 'FAIL'}, worst max_abs {worst['max_abs']:.3g} against bound "
                             f"{worst['bound']:.3g} at {worst['shape']['N']=}".replace("worst['shape']['N']=", "N="))
    d = e.get("diagnosis")
    if d:
        lines.append(f"diagnosis: [cyan]{d['label']}[/] - {d['summary']}")
        lines.append(f"registers {d['registers']}, smem/CTA {d['smem_per_cta']}, CTAs/SM {d['ctas_per_sm']}, "
                     f"warps/SM {d['warps_per_sm']}, limiter {d['limiter']}, ncu CSV {d['ncu_csv']}")
    if e.get("shelf"):
        s = e["shelf"]
        lines.append(f"shelf: {s['status']} under {json.dumps(s['conditions'])}")
    console.print(Panel("\n".join(lines)))
