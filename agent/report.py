"""`fa5090-search report`: one run as a page a kernel engineer reads, from the database alone.

One self-contained HTML file (plots as inline SVG, no network) and a Markdown twin with PNGs: the
ladder (TFLOP/s after each keep, with SDPA flash and cuDNN as the run's closing pairs measured them),
the predicted band against the measured margin of every experiment, the stall breakdown and tensor
pipe of each profiled kernel, then the experiments, the shelf, the re-anchors, the A/A nulls and the
environment as tables. `collect` returns the very series the plots draw, so a test can hold them to the database.
matplotlib draws (`pip install 'fa5090-search[report]'`); the database is opened read-only."""
from __future__ import annotations

import html
import io
import json
from pathlib import Path

from store import queries as q

from .summary import SDPA_LABEL, YARDSTICK, against_sdpa, run_summary

COLOURS = {"KEPT": "#2a9d3c", "SLOWER": "#c0392b", "NULL": "#d4a017", "WRONG": "#7d3c98"}


class MatplotlibMissing(RuntimeError):
    pass


def collect(db, run_id: int) -> dict:
    """Everything the report shows, as plain data: the plotted series are exactly these lists."""
    run = q.get_run(db, run_id)
    hist = q.history(db, run_id)
    counted = [e for e in hist if e["seq"] is not None and e["outcome"] is not None]
    kept = [e for e in counted if e["outcome"] == "KEPT"]
    diags = [d for d in q.diagnoses(db, run_id) if d.get("metrics")]
    return {
        "run": run, "summary": run_summary(db, run_id),
        "ladder": {"seq": [e["seq"] for e in kept], "lever": [e["lever"] for e in kept],
                   "tflops": [e["tflops_cand"] for e in kept],
                   "seed_tflops": next((e["tflops_base"] for e in counted if e["tflops_base"]), None),
                   **{f"sdpa_{b}_tflops": against_sdpa(hist, b)["theirs_tflops"] for b in YARDSTICK}},
        "bands": [{"seq": e["seq"], "lever": e["lever"], "lo": e["predicted_lo"], "hi": e["predicted_hi"],
                   "margin": e["margin"], "ab": e["margin_ab"], "ba": e["margin_ba"], "outcome": e["outcome"]}
                  for e in counted],
        "stalls": [{"experiment_id": d["experiment_id"], "label": d["label"], "tensor_pipe_pct": d["metrics"].get("tensor_pipe_pct"),
                    "top_stalls": d["metrics"].get("top_stalls") or [], "registers": d["registers"],
                    "ctas_per_sm": d["ctas_per_sm"]} for d in diags],
        "experiments": hist, "shelf": q.shelf(db, run_id), "noise": run.get("noise") or [],
        "reanchors": [e for e in hist if e["kind"] == "reanchor"],
    }


def _plots(data: dict):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise MatplotlibMissing("`report` draws with matplotlib: pip install 'fa5090-search[report]' (or matplotlib)") from e
    figs = {}
    lad = data["ladder"]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    if lad["tflops"]:
        ax.plot(lad["seq"], lad["tflops"], "o-", color=COLOURS["KEPT"], label="after each keep (its pair)")
        for x, y, name in zip(lad["seq"], lad["tflops"], lad["lever"]):
            ax.annotate(name, (x, y), fontsize=6, rotation=20, xytext=(3, 3), textcoords="offset points")
    for b, style in (("flash", "--"), ("cudnn", "-.")):  # each in its own closing pair; absent: not measured
        if lad[f"sdpa_{b}_tflops"]:
            ax.axhline(lad[f"sdpa_{b}_tflops"], ls=style, color="grey", label=f"{SDPA_LABEL[b]} (the run's comparator pair)")
    if lad["seed_tflops"]:
        ax.axhline(lad["seed_tflops"], ls=":", color="grey", label="seed")
    ax.set_xlabel("experiment #")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("the ladder")
    ax.legend(fontsize=7)
    figs["ladder"] = fig
    fig, ax = plt.subplots(figsize=(8, 3.6))
    for b in data["bands"]:
        if b["lo"] is not None:
            ax.vlines(b["seq"], b["lo"], b["hi"], color="#9ab", lw=6, alpha=0.6)
        if b["margin"] is not None:
            ax.plot(b["seq"], b["margin"], "o", color=COLOURS.get(b["outcome"], "black"))
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("experiment #")
    ax.set_ylabel("paired margin (log)")
    ax.set_title("predicted band (bar) against measured margin (dot, coloured by outcome)")
    figs["bands"] = fig
    if data["stalls"]:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        names = sorted({s for d in data["stalls"] for s, _ in d["top_stalls"]})
        bottom = [0.0] * len(data["stalls"])
        xs = list(range(len(data["stalls"])))
        for name in names:
            vals = [dict(d["top_stalls"]).get(name, 0.0) for d in data["stalls"]]
            ax.bar(xs, vals, bottom=bottom, label=name)
            bottom = [a + b for a, b in zip(bottom, vals)]
        ax.set_xticks(xs, [f"exp {d['experiment_id']}\n{d['label']}\ntensor {d['tensor_pipe_pct'] or 0:.0f}%"
                           for d in data["stalls"]], fontsize=5, rotation=30, ha="right")
        ax.set_ylabel("share of stall weight (top 3)")
        ax.set_title("stalls of each profiled kernel (ncu)")
        ax.legend(fontsize=6, ncol=3)
        figs["stalls"] = fig
    return figs, plt


def _table(rows: list[list], head: list[str], md: bool) -> str:
    cell = (lambda v: str(v).replace("|", "\\|")) if md else (lambda v: html.escape(str(v)))
    if md:
        return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
                         ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]) + "\n"
    return ("<table><tr>" + "".join(f"<th>{cell(h)}</th>" for h in head) + "</tr>" +
            "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows) + "</table>")


def _f(x, spec=".4f"):
    return "" if x is None else format(x, spec)


def _sections(data: dict, md: bool) -> list[tuple[str, str]]:
    run, s = data["run"], data["summary"]
    exp_rows = [[e["id"], e["seq"] or "", e["kind"], e["lever"] or "", e["outcome"] or "", _f(e["margin"]),
                 f"{_f(e['margin_ab'])}/{_f(e['margin_ba'])}" if e["margin_ab"] else "",
                 f"{e['predicted_lo']:.2f}-{e['predicted_hi']:.2f}" if e["predicted_lo"] else "",
                 f"{_f(e['tflops_base'], '.1f')} -> {_f(e['tflops_cand'], '.1f')}" if e["tflops_cand"] else "",
                 e["detail"] or ""] for e in data["experiments"]]
    shelf_rows = [[r["lever"], r["outcome"], _f(r["margin"]), r["status"], json.dumps(r["conditions"])] for r in data["shelf"]]
    ra_rows = [[e["id"], _f(e["margin"]), e["detail"] or ""] for e in data["reanchors"]]
    noise_rows = [[f"{n['t_noise']:.4%}", _f(n.get("ms"), ".3f"), ", ".join(f"{m:.5f}" for m in n["margins"]), n["source"]]
                  for n in data["noise"]]
    env = [[k, json.dumps(run.get(k)) if isinstance(run.get(k), dict) else run.get(k)]
           for k in ("gpu_name", "arch", "sm_count", "problem_key", "toolchain", "strategy", "source_hash", "nvcc",
                     "command", "started_at", "finished_at", "status", "stop_reason")]
    summary = [[k, v] for k, v in s.items() if k != "against_sdpa"]  # against_sdpa_text says it in one line
    return [("summary", _table(summary, ["", ""], md)),
            ("experiments", _table(exp_rows, ["id", "#", "kind", "move", "outcome", "margin", "AB/BA", "predicted",
                                              "TFLOP/s", "detail"], md)),
            ("shelf", _table(shelf_rows, ["move", "outcome", "margin", "status", "conditions"], md) if shelf_rows else "empty"),
            ("re-anchors", _table(ra_rows, ["id", "anchor margin", "verdict"], md) if ra_rows else "none"),
            ("A/A nulls", _table(noise_rows, ["t_noise", "ms/call", "margins", "how"], md) if noise_rows else
             f"t_noise {run.get('t_noise')}, margins {run.get('aa_margins')} (one null for the run)"),
            ("environment", _table(env, ["", ""], md))]


def write(db, run_id: int, out: Path) -> dict:
    """report.html (inline SVG) and report.md with PNGs under `out`; returns collect()'s data."""
    data = collect(db, run_id)
    figs, plt = _plots(data)
    out.mkdir(parents=True, exist_ok=True)
    title = f"run {run_id}: {data['run']['problem_key']} on {data['run']['gpu_name']}, strategy {data['summary']['strategy']}"
    svgs = {}
    for name, fig in figs.items():
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        svgs[name] = buf.getvalue()[buf.getvalue().find("<svg"):]
        fig.savefig(out / f"{name}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
            "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;font-size:12px}"
            "td,th{border:1px solid #ccc;padding:2px 5px;vertical-align:top}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>"] + [svgs[n] for n in svgs]
    md = [f"# {title}\n"] + [f"![{n}]({n}.png)\n" for n in svgs]
    for head, body in _sections(data, md=False):
        page.append(f"<h2>{html.escape(head)}</h2>{body}")
    for head, body in _sections(data, md=True):
        md.append(f"## {head}\n\n{body}\n")
    (out / "report.html").write_text("\n".join(page) + "</body></html>\n")
    (out / "report.md").write_text("\n".join(md))
    return data
