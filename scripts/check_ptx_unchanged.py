"""The kernel's device code is unchanged by a restructuring of kernel_src/: for every configuration of the checked
sets, the PTX that nvcc emits from BASE's kernel_src/ and from the working tree's, compared line by line after
dropping comment lines, stripping the mangled names (_ZN2fa...) and the virtual-register numbers (the method of
results/2026-11-30_cpu_build_checks/check_knobs_off_identical.sh): "same" or "differs". The detail says how close "same" is: "raw identical"
(byte for byte, comments aside), "identical after renumbering registers" (each kernel's virtual registers numbered
in order of first use: the same dataflow, registers named differently) or only "identical with register numbers
stripped". nvcc 13's cicc is not deterministic on some inputs (staging=scalar with copies=unrolled: the same .ii
gives other registers, offsets and orders from run to run, BASE's source as much as the tree's): a difference is
compiled again on both sides up to RETRIES times, and is "same" when some output of the tree equals some output of
BASE, or, when BASE never gives the same PTX twice, when every output of both has the same count of every
instruction opcode (the detail says so: a weaker check). No GPU needed.

The sets: kernel_src.covering.covering_set() on sm_80, sm_90 and sm_120, the same set with copies=unrolled and
with exp_poly=quarter / exp_poly=half / pv_slab=on moved in wherever valid (the covering set pins those knobs
off, scripts/device_ladder.py --move runs them), hopper_set() on sm_90a (also with copies=unrolled and
exp_poly=half where valid), the warp-specialised mainloop (mainloop=ws, scripts/device_suite.py's kernels: two and
three consumer warpgroups, overlap, turns, persistence, BC 64/128/176, Q by TMA, two CTAs per SM) on sm_90a, and the defect and fault battery
(experiments.defects) on its base configuration on the three archs. Every configuration compiles all eight
instantiations (fp16/bf16 x D 64/128 x causal or not) unless --small (fp16 D=128, causal and not).

    PYTHONPATH=$PWD python3 scripts/check_ptx_unchanged.py [--base main] [--jobs 2] [--small] [--only SET]...
        [--config LABEL]... [--every N] [--tree DIR] [--cache DIR] [--out FILE]

BASE is a commit (default main: the source the tree must match; a commit before a change main made on purpose
compares against the wrong kernel). --config keeps the configurations of that label, as the report prints it
(with --only, in those sets alone).

BASE's PTX is cached under --cache (keyed by BASE, flags and nvcc version), so a second run compiles the new
tree only. Exit status 0 when every configuration is "same", 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments.defects import BASE as DEFECT_BASE, DEFECTS, FAULTS, NUMERICS  # noqa: E402
from kernel_src.covering import covering_set, hopper_set  # noqa: E402
from kernel_src.knobs import KnobError, Knobs  # noqa: E402

ARCHS = ("sm_80", "sm_90", "sm_120")
EVERY = ["-DFA_DTYPES=3", "-DFA_DIMS=3", "-DFA_CAUSALS=3"]
SMALL = ["-DFA_DTYPES=1", "-DFA_DIMS=2", "-DFA_CAUSALS=3"]
RETRIES = 4  # further compiles of each side when the first two differ
# mainloop=ws (kernel_src/mainloop_sm90_ws.cuh), as scripts/device_suite.py builds it
WS = dict(compute="wgmma", layout="sw128", staging="tma", exp="ex2", q_in="smem", softmax="fused",
          kv_release="producer", mainloop="ws", kv_stages=2, causal_mask="predicate", br=128, warps=8, bc=128)
OP = {**WS, "pipeline": "on", "pingpong": "on"}
WS3 = {**WS, "pipeline": "on", "warps": 12, "br": 192}
WS_SET = [WS, {**WS, "pipeline": "on"}, {**WS, "pingpong": "on"}, OP, {**OP, "persistent": "on"},
          {**OP, "rescale_skip": "on", "rescale_lazy": "on"}, {**OP, "bc": 64, "cta_order": "heaviest_first"},
          {**OP, "bc": 176, "rescale_skip": "on", "rescale_lazy": "on"}, WS3, {**WS3, "persistent": "on"},
          # Q by the producer's TMA (q_load=tma), alone and persistent; two CTAs per SM at BC 64
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma"},
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on"},
          {**WS3, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on"},
          {**WS, "rescale_skip": "on", "rescale_lazy": "on", "bc": 64, "min_ctas": 2},
          {**WS, "rescale_skip": "on", "rescale_lazy": "on", "bc": 64, "min_ctas": 2, "q_load": "tma", "persistent": "on"},
          # the wide PV, the stream of items and O by TMA, each on the persistent kernel with Q by TMA, and O by TMA
          # on one CTA per item at two CTAs per SM
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on", "pv_wide": "on"},
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on", "item_stream": "on"},
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on", "o_store": "tma"},
          {**OP, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on", "item_stream": "on",
           "o_store": "tma"},
          {**WS3, "rescale_skip": "on", "rescale_lazy": "on", "q_load": "tma", "persistent": "on", "item_stream": "on"},
          {**WS, "rescale_skip": "on", "rescale_lazy": "on", "bc": 64, "min_ctas": 2, "o_store": "tma"}]


def moved(cs: list[Knobs], **move) -> list[Knobs]:
    out = []
    for k in cs:
        try:
            out.append(k.replace(**move))
        except KnobError:
            pass
    return out


def configurations() -> list[tuple[str, str, str, list[str]]]:
    """(set, label, arch, -D flags) for every configuration checked."""
    cov, hop = covering_set(), hopper_set()
    sets = {
        "covering": (cov, ARCHS),
        "covering+copies=unrolled": (covering_set("unrolled"), ARCHS),
        "covering+exp_poly=quarter": (moved(cov, exp_poly="quarter"), ARCHS),
        "covering+exp_poly=half": (moved(cov, exp_poly="half"), ARCHS),
        "covering+pv_slab=on": (moved(cov, pv_slab="on"), ARCHS),
        "hopper": (hop, ("sm_90a",)),
        "hopper+copies=unrolled": (moved(hop, copies="unrolled"), ("sm_90a",)),
        "hopper+exp_poly=half": (moved(hop, exp_poly="half"), ("sm_90a",)),
        "ws": ([Knobs.parse(d) for d in WS_SET], ("sm_90a",)),
    }
    out = []
    for name, (knobs, archs) in sets.items():
        for k in knobs:
            defs = [f"-D{n}={v}" for n, v in sorted(k.defines().items())]
            out += [(name, k.label(), a, defs) for a in archs]
    base = [f"-D{n}={v}" for n, v in sorted(DEFECT_BASE.defines().items())]
    for dname, (code, _) in {**DEFECTS, **FAULTS}.items():
        out += [("defects", f"{DEFECT_BASE.label()} defect={dname}", a, base + [f"-DFA_DEFECT={code}"]) for a in ARCHS]
    for dname, (code, _, knobs) in NUMERICS.items():
        own = [f"-D{n}={v}" for n, v in sorted(knobs.defines().items())]
        out += [("defects", f"{knobs.label()} defect={dname}", a, own + [f"-DFA_DEFECT={code}"]) for a in ARCHS]
    return out


_MANGLED = re.compile(r"_ZN2fa[A-Za-z0-9_]*")
_VREG = re.compile(r"%([a-z]+)[0-9]+")
_VREG_NUM = re.compile(r"%([a-z]+)([0-9]+)")


def code_lines(ptx: str) -> list[str]:
    return [ln for ln in ptx.splitlines() if not ln.startswith("//")]


def normalise(lines: list[str]) -> str:
    """The project's method (results/2026-11-30_cpu_build_checks/check_knobs_off_identical.sh): mangled names and register numbers stripped."""
    return "\n".join(_VREG.sub(r"%\1", _MANGLED.sub("", ln)) for ln in lines)


def renumber(lines: list[str]) -> str:
    """A stricter form: mangled names stripped, and each kernel's virtual registers renumbered in the order they
    first appear (per register class; the .reg declarations' counts dropped). Two PTX texts equal here compute
    the same values from the same values in the same order: only the registers' names differ."""
    out, seen = [], {}
    for ln in lines:
        if ".entry " in ln:
            seen = {}
        ln = _MANGLED.sub("", ln)
        if ln.lstrip().startswith(".reg "):
            out.append(re.sub(r"<[0-9]+>", "<>", ln))
            continue
        out.append(_VREG_NUM.sub(lambda m: f"%{m[1]}{seen.setdefault(m[1], {}).setdefault(m[0], len(seen[m[1]]))}", ln))
    return "\n".join(out)


def digest(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def nvcc_version() -> str:
    return subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]


def opcode_counts(lines: list[str]) -> str:
    """The weakest form, for a compiler whose output varies from run to run (the same source, other registers,
    offsets and orders): how many times each instruction opcode (a line's first word) occurs."""
    counts: dict[str, int] = {}
    for ln in lines:
        w = ln.split()
        if w:
            counts[w[0]] = counts.get(w[0], 0) + 1
    return "\n".join(f"{k} {v}" for k, v in sorted(counts.items()))


def compile_ptx(src_dir: Path, arch: str, flags: list[str], inst: list[str]) -> tuple[str, str, str, str] | str:
    """(raw, renumbered, normalised, opcode-count) digests of the PTX, or the compiler's error text."""
    with tempfile.NamedTemporaryFile(suffix=".ptx") as f:
        cmd = ["nvcc", "-O3", "-std=c++17", "-ptx", f"-arch={arch}", *flags, *inst, str(src_dir / "fa_fwd.cu"), "-o", f.name]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return "compile error: " + p.stderr[-400:]
        lines = code_lines(Path(f.name).read_text())
    return (digest("\n".join(lines)), digest(renumber(lines)), digest(normalise(lines)),
            digest(opcode_counts(lines)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--small", action="store_true", help="fp16 D=128 instantiations only (causal and not)")
    ap.add_argument("--only", action="append", default=[], help="only this set (repeatable)")
    ap.add_argument("--config", action="append", default=[], help="only the configuration of this label (repeatable)")
    ap.add_argument("--every", type=int, default=1, help="every N-th configuration of each set (a quick look)")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "fa5090_ptx_check"))
    ap.add_argument("--out", help="also write the report here")
    ap.add_argument("--tree", help="the new kernel sources: this directory instead of the working tree's kernel_src/")
    a = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ptxcheck."))
    old, new = work / "old", work / "new"
    old.mkdir()
    new.mkdir()
    base_sha = subprocess.run(["git", "rev-parse", a.base], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    names = subprocess.run(["git", "ls-tree", "--name-only", base_sha, "kernel_src/"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    for n in names:
        if n.endswith((".cu", ".cuh")):
            (old / Path(n).name).write_bytes(subprocess.run(["git", "show", f"{base_sha}:{n}"], cwd=ROOT,
                                                            capture_output=True, check=True).stdout)
    for f in Path(a.tree or ROOT / "kernel_src").iterdir():  # a frozen copy: edits during the run do not leak in
        if f.suffix in (".cu", ".cuh"):
            (new / f.name).write_bytes(f.read_bytes())

    inst = SMALL if a.small else EVERY
    cfgs = [c for c in configurations() if (not a.only or c[0] in a.only) and (not a.config or c[1] in a.config)]
    if a.config and not cfgs:
        ap.error("no configuration has that label (--config takes a label as the report prints it)")
    if a.every > 1:
        index: dict[str, int] = {}
        kept = []
        for c in cfgs:
            i = index[c[0]] = index.get(c[0], -1) + 1
            if i % a.every == 0:
                kept.append(c)
        cfgs = kept
    nv = nvcc_version()
    cache = Path(a.cache) / base_sha[:12]
    cache.mkdir(parents=True, exist_ok=True)

    def old_ptx(arch, flags):
        key = digest(" ".join([nv, arch, *flags, *inst]))[:24]
        hit = cache / key
        if hit.exists() and len(hit.read_text().split()) == 4:
            return tuple(hit.read_text().split())
        r = compile_ptx(old, arch, flags, inst)
        if isinstance(r, tuple):
            hit.write_text(" ".join(r))
        return r

    def level(o, n) -> str:
        return ("raw identical" if o[0] == n[0] else "identical after renumbering registers" if o[1] == n[1]
                else "identical with register numbers stripped")

    def one(c):
        setname, label, arch, flags = c
        o, n = old_ptx(arch, flags), compile_ptx(new, arch, flags, inst)
        if isinstance(o, str) or isinstance(n, str):
            return setname, label, arch, "differs", f"old: {o if isinstance(o, str) else 'ok'}; new: {n if isinstance(n, str) else 'ok'}"
        if o[2] == n[2]:
            return setname, label, arch, "same", level(o, n)
        # cicc is not deterministic on some inputs (the same .ii gives different instruction orders from run to
        # run, e.g. staging=scalar with copies=unrolled): compile both again and look for a common output
        olds, news = {o[2]: o}, {n[2]: n}
        for i in range(RETRIES):
            for src, seen in ((old, olds), (new, news)):
                r = compile_ptx(src, arch, flags, inst)
                if isinstance(r, tuple):
                    seen.setdefault(r[2], r)
            if i == 0 and len(olds) == 1 and len(news) == 1:
                break  # both sides gave the same PTX twice: a difference, not the compiler's noise
            common = set(olds) & set(news)
            if common:
                d = sorted(common)[0]
                return (setname, label, arch, "same",
                        f"{level(olds[d], news[d])}; nondeterministic compiler: BASE gave {len(olds)} and the tree "
                        f"{len(news)} distinct PTX in {i + 2} compiles each, {len(common)} of them common")
        if len(olds) > 1:  # BASE's own output varies from run to run: compare how many of each instruction
            oc, nc = {v[3] for v in olds.values()}, {v[3] for v in news.values()}
            if len(oc) == 1 and oc == nc:
                return (setname, label, arch, "same",
                        f"the same count of every instruction opcode; nondeterministic compiler: BASE gave {len(olds)} "
                        f"and the tree {len(news)} distinct PTX in {RETRIES + 1} compiles each, none twice the same")
        return setname, label, arch, "differs", (f"{len(olds)} distinct PTX from BASE, {len(news)} from the tree, none "
                                                  f"common in {min(i + 2, RETRIES + 1)} compiles each")

    t0 = time.time()
    progress = open(a.out + ".partial", "w") if a.out else None  # each row as it is decided (a long run's record)
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futures = [ex.submit(one, c) for c in cfgs]
        for f in as_completed(futures):
            if progress:
                progress.write("\t".join(f.result()) + "\n")
                progress.flush()
        rows = [f.result() for f in futures]
    lines = [f"$ PYTHONPATH=$PWD python3 {shlex.join(sys.argv)}",
             f"# BASE {a.base} ({base_sha[:12]}); {nv}",
             f"# instantiations: {' '.join(inst)}; new tree: {a.tree or 'the working tree of ' + ROOT.name}",
             "# set\tconfiguration\tarch\tresult\tdetail"]
    lines += ["\t".join(r) for r in rows]
    same = sum(r[3] == "same" for r in rows)
    raw = sum(r[4].startswith("raw identical") for r in rows)
    renum = sum(r[4].startswith(("raw identical", "identical after renumbering")) for r in rows)
    by_set = {}
    for r in rows:
        s = by_set.setdefault(r[0], [0, 0])
        s[0] += 1
        s[1] += r[3] == "same"
    lines.append(f"# {same} of {len(rows)} same after normalisation ({renum} of them the same after renumbering registers, "
                 f"{raw} byte-identical); "
                 + "; ".join(f"{k} {v[1]}/{v[0]}" for k, v in by_set.items()) + f"; {time.time() - t0:.0f} s")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        Path(a.out).write_text(text)
        progress.close()
        Path(a.out + ".partial").unlink()
    subprocess.run(["rm", "-rf", str(work)])
    return 0 if same == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
