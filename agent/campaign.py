"""`tune`: a model's attention shapes as one campaign of searches, one run per problem, in one database.

The problems come from a Hugging Face config.json (its attention heads, K/V heads, head dim, dtype,
and causal for a decoder) with the sequence lengths and batch sizes to serve, or from a shapes file
of problem keys. They are grouped the way `export --dispatch` serves them: the dispatch table keys
on (dtype, D, causal, N bucket) (kernel_src.dispatch), so one kernel serves every length and batch
of a bucket, and the campaign runs one search per bucket, not per length. It searches at the
bucket's costliest requested call, the longest length at the largest batch: a call's matmul work
grows as B * N^2, so within a power-of-two bucket the longest length costs up to 4x the shortest, and
it is a length actually served (the bucket's upper edge may not be).

Each search is `run`'s (agent.loop.run_search, the same keep protocol), its own run in the one
database. Re-running the campaign reads the database first: a problem whose run finished is
skipped, one that was interrupted (or stopped on an error) is resumed (agent.resume), one never
started is searched.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from experiments.problem import Shape
from kernel_src.dispatch import bucket_name, bucket_of
from kernel_src.knobs import DTYPES, HEAD_DIMS, Knobs
from store import queries as q

from .events import Line, Say, quiet
from .loop import run_search
from .resume import RESUMABLE, resume_search
from .state import SearchError, SearchOptions

from .summary import FINISHED  # noqa: F401 - a run's statuses once it stopped by itself (used by callers)


class ConfigError(ValueError):
    """A config.json or shapes file the campaign cannot take; the message names the field or line."""


# the spellings of a dtype seen in config.json files (torch_dtype, or dtype since transformers 5)
_DTYPE_NAMES = {"float16": "float16", "fp16": "float16", "half": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16"}
_OTHER_DTYPES = ("float32", "fp32", "float", "float64", "double", "float8_e4m3fn", "float8_e5m2", "int8")


def dtype_of(name: str, where: str) -> str:
    d = str(name).removeprefix("torch.").lower()
    if d in _DTYPE_NAMES:
        return _DTYPE_NAMES[d]
    if d in _OTHER_DTYPES:
        raise ConfigError(f"{where} is {name}: the kernel is built for {' and '.join(DTYPES)} only; "
                          "say which one to serve with --dtype")
    raise ConfigError(f"{where}: unknown dtype '{name}' (the kernel is built for {' and '.join(DTYPES)})")


def head_dim_ok(d: int, where: str) -> int:
    if d not in HEAD_DIMS:
        raise ConfigError(f"{where}: head dim {d} is not one the kernel is built for (D must be "
                          f"{' or '.join(map(str, HEAD_DIMS))}, kernel_src/knobs.py HEAD_DIMS)")
    return d


@dataclass(frozen=True)
class Attention:
    """A model's attention as the kernel sees it."""

    heads: int
    kv_heads: int
    head_dim: int
    dtype: str
    causal: bool
    source: str  # where each figure came from, for the plan's title

    def problems(self, seqlens: list[int], batches: list[int]) -> list[Shape]:
        return [Shape(B=b, H=self.heads, N=n, D=self.head_dim, dtype=self.dtype, causal=self.causal,
                      Hkv=None if self.kv_heads == self.heads else self.kv_heads) for b in batches for n in seqlens]


def _positive_int(cfg: dict, name: str, path: Path) -> int:
    v = cfg[name]
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ConfigError(f"{path}: '{name}' must be a positive integer, not {json.dumps(v)}")
    return v


def _decoder(cfg: dict) -> bool | None:
    """True for a decoder (a causal LM), False for an encoder, None when the config does not say."""
    archs = [str(a) for a in cfg.get("architectures") or []]
    if cfg.get("is_decoder") or any("CausalLM" in a or "LMHeadModel" in a for a in archs):
        return True
    if any(a.endswith(("ForMaskedLM", "ForTokenClassification", "ForQuestionAnswering")) for a in archs):
        return False
    return None


def from_hf_config(path: Path, dtype: str | None = None, causal: bool | None = None) -> Attention:
    """num_attention_heads, num_key_value_heads (absent: MHA), head_dim (absent or null:
    hidden_size / num_attention_heads), torch_dtype or dtype, and causal for a decoder (its
    architectures name a CausalLM, or is_decoder). A multimodal config's text_config is read when the
    top level has no attention heads. `dtype` and `causal` given here win over the file."""
    try:
        top = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ConfigError(f"no config at {path}") from None
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path} is not a JSON file ({e})") from None
    if not isinstance(top, dict):
        raise ConfigError(f"{path}: a config.json holds one JSON object, not a {type(top).__name__}")
    cfg, seen = top, str(path)
    if "num_attention_heads" not in top and isinstance(top.get("text_config"), dict):
        cfg, seen = {**top["text_config"], "architectures": top.get("architectures")}, f"{path} text_config"
    if "num_attention_heads" not in cfg:
        raise ConfigError(f"{path}: no 'num_attention_heads' (a Hugging Face transformer's config.json has it); "
                          "give the model's config.json, or a --shapes file")
    heads = _positive_int(cfg, "num_attention_heads", path)
    kv = _positive_int(cfg, "num_key_value_heads", path) if cfg.get("num_key_value_heads") is not None else heads
    if heads % kv:
        raise ConfigError(f"{path}: num_attention_heads={heads} is not a multiple of num_key_value_heads={kv}")
    if cfg.get("head_dim") is not None:
        d, how = _positive_int(cfg, "head_dim", path), "head_dim"
    elif cfg.get("hidden_size") is not None:
        hidden = _positive_int(cfg, "hidden_size", path)
        if hidden % heads:
            raise ConfigError(f"{path}: no 'head_dim', and hidden_size={hidden} is not a multiple of "
                              f"num_attention_heads={heads}")
        d, how = hidden // heads, f"hidden_size {hidden} / num_attention_heads {heads}"
    else:
        raise ConfigError(f"{path}: neither 'head_dim' nor 'hidden_size' (the head dim is one of them, or their ratio "
                          "to num_attention_heads)")
    head_dim_ok(d, f"{path} ({how})")
    if dtype is None:
        named = next((k for k in ("torch_dtype", "dtype") if cfg.get(k) or top.get(k)), None)
        if named is None:
            raise ConfigError(f"{path}: no 'torch_dtype' or 'dtype'; say which dtype to serve with --dtype")
        dtype = dtype_of(cfg.get(named) or top.get(named), f"{path}: '{named}'")
        dsrc = named
    else:
        dsrc = "--dtype"
    if causal is None:
        causal = _decoder(cfg)
        if causal is None:
            raise ConfigError(f"{path}: its architectures ({', '.join(cfg.get('architectures') or []) or 'none'}) do not "
                              "say decoder or encoder; give --causal (a decoder) or --no-causal")
        csrc = "a decoder" if causal else "an encoder"
    else:
        csrc = "--causal" if causal else "--no-causal"
    return Attention(heads=heads, kv_heads=kv, head_dim=d, dtype=dtype, causal=causal,
                     source=f"{seen}: {heads} heads, {kv} K/V heads, D {d} ({how}), {dtype} ({dsrc}), "
                            f"{'causal' if causal else 'non-causal'} ({csrc})")


_KEY = re.compile(r"B(\d+)-H(\d+)(?:-Hkv(\d+))?-N(\d+)-D(\d+)-([A-Za-z0-9_.]+)-(causal|noncausal)")


def read_shapes(path: Path) -> list[Shape]:
    """One problem key a line, as the tool prints them (history, show, the run's title):
    `B1-H32-Hkv8-N4096-D128-bfloat16-causal`; `-HkvK` only for grouped-query attention; `#` starts a
    comment, blank lines are skipped."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        raise ConfigError(f"no shapes file at {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} cannot be read as a text file ({e})") from None
    out = []
    for i, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        m = _KEY.fullmatch(text)
        where = f"{path} line {i}"
        if m is None:
            raise ConfigError(f"{where}: '{text}' is not a problem key like B1-H32-Hkv8-N4096-D128-bfloat16-causal")
        b, h, kv, n, d, dt, c = m.groups()
        try:
            out.append(Shape(B=int(b), H=int(h), Hkv=int(kv) if kv and int(kv) != int(h) else None, N=int(n),
                             D=head_dim_ok(int(d), where), dtype=dtype_of(dt, where), causal=c == "causal"))
        except ValueError as e:  # Shape's own checks (Hkv dividing H, positive sizes)
            if isinstance(e, ConfigError):
                raise
            raise ConfigError(f"{where}: " + "; ".join(x["msg"].removeprefix("Value error, ") for x in e.errors())) from None
    if not out:
        raise ConfigError(f"{path} holds no problem (one key a line, e.g. B1-H32-Hkv8-N4096-D128-bfloat16-causal)")
    return out


@dataclass(frozen=True)
class Planned:
    """One search of the campaign: the problem it runs at and the calls its kernel will serve."""

    shape: Shape  # the representative: the bucket's longest requested length at its largest batch
    bucket: str  # kernel_src.dispatch.bucket_name
    seqlens: tuple[int, ...]  # the requested lengths this bucket serves
    batches: tuple[int, ...]


def plan(problems: list[Shape]) -> list[Planned]:
    """The problems grouped by what a dispatch row serves, (H, Hkv, D, dtype, causal, N bucket): one
    search per group at its longest length and largest batch (see the module's docstring)."""
    groups: dict[tuple, list[Shape]] = {}
    for s in problems:
        groups.setdefault((s.H, s.kv_heads, s.D, s.dtype, s.causal, bucket_of(s.N)), []).append(s)
    out = []
    for key in sorted(groups, key=lambda k: (DTYPES.index(k[3]), k[2], k[4], k[0], k[1], k[5])):
        g = groups[key]
        rep = g[0].model_copy(update={"N": max(s.N for s in g), "B": max(s.B for s in g)})
        out.append(Planned(shape=Shape(**rep.model_dump()), bucket=bucket_name(key[5]),
                           seqlens=tuple(sorted({s.N for s in g})), batches=tuple(sorted({s.B for s in g}))))
    return out


@dataclass
class Done:
    """What the campaign did with one planned search."""

    planned: Planned
    run_id: int
    action: str  # "finished before" | "resumed" | "searched"
    status: str = ""
    best: str = ""
    tflops: float | None = None
    notes: list[str] = field(default_factory=list)


def where_stands(db, shape: Shape) -> tuple[str, dict | None]:
    """("new", None), ("done", run), ("resume", run) or ("running", run): the latest run of this
    problem in the database, read after a read-write open has marked runs whose process is gone."""
    runs = [r for r in q.runs(db) if r["problem_key"] == shape.key()]
    if not runs:
        return "new", None
    r = runs[-1]
    if r["status"] in FINISHED:
        return "done", r
    if r["status"] in RESUMABLE:
        return "resume", r
    return "running", r


# bench_for(shape, bench settings, run id, n): the bench of one search; n is 0 for a new run, else the
# how-manieth resume of it (where the caller records it: recording.jsonl, recording.resume-n.jsonl)
BenchFor = Callable[[Shape, dict, int, int], object]


def tune(planned: list[Planned], db, *, bench_for: BenchFor, options: SearchOptions, bench_settings: dict,
         artifacts: Path, command: str, seed: Knobs = Knobs(), say: Say = quiet,
         starting: Callable[[int, Planned, str], None] = lambda i, p, action: None) -> list[Done]:
    """Every planned search in order: skipped when its run finished, resumed when it was interrupted,
    else searched as `run` searches. `starting(i, planned, action)` is told before each one."""
    from agent.summary import best_of_run, measured_best

    out = []
    for i, p in enumerate(planned):
        state, run = where_stands(db, p.shape)
        if state == "running":
            raise SearchError(f"run {run['id']} ({p.shape.key()}) is running in another process (pid "
                              f"{run.get('owner_pid')}); wait for it, or stop it and run this again")
        action = {"new": "searched", "done": "finished before", "resume": "resumed"}[state]
        starting(i, p, action)
        if state == "done":
            rid = run["id"]
        elif state == "resume":
            n = len(run.get("resumes") or []) + 1
            bench = bench_for(p.shape, (run.get("options") or {}).get("bench") or bench_settings, run["id"], n)
            try:
                rid = resume_search(bench, db, run["id"], artifacts=artifacts, say=say)
            finally:
                bench.close()  # its spare children and background build end with its search
        else:
            next_id = db.execute("select coalesce(max(id), 0) + 1 from runs").fetchone()[0]
            bench = bench_for(p.shape, bench_settings, next_id, 0)
            try:
                rid = run_search(bench, db, shape=p.shape, seed=seed, artifacts=artifacts, options=options,
                                 command=command, say=say, bench_settings=bench_settings, one_problem=False)
            finally:
                bench.close()
        done = q.get_run(db, rid)
        best = measured_best(db, done)
        out.append(Done(planned=p, run_id=rid, action=action, status=done["status"],
                        best=best_of_run(db, rid).label(), tflops=best[1] if best else None))
        if best is None:
            say(Line(text=f"[yellow]run {rid} ({p.shape.key()}) kept no kernel: export --dispatch leaves it out[/]"))
        elif best[2].startswith("its seed"):
            say(Line(text=f"run {rid} ({p.shape.key()}) kept nothing over its seed: export --dispatch serves the seed "
                          "there, as measured by the run"))
    return out
