"""SASS instruction census by family (HMMA, MUFU.EX2, FFMA, LDSM, LDGSTS, BAR, ...), per kernel,
from `cuobjdump --dump-sass`. A static count: it says which instructions the compiler emitted
(the seed's layer 1), not how long they take (layer 3 needs a timed ablation)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter

_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INST = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")
KEEP_SUBOP = {"MUFU"}  # MUFU.EX2 and MUFU.RCP are different units of work


class CuobjdumpMissing(RuntimeError):
    pass


def cuobjdump_path() -> str:
    """cuobjdump from PATH, the CUDA toolkit, or the nvidia-cuda-cuobjdump wheel (which needs
    nvidia-cuda-nvdisasm beside it)."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    for root in ("/usr/local/cuda/bin",):
        if os.path.exists(os.path.join(root, "cuobjdump")):
            return os.path.join(root, "cuobjdump")
    try:
        import nvidia

        for base in nvidia.__path__:
            for sub in ("cu13/bin", "cuda_cuobjdump/bin"):
                p = os.path.join(base, sub, "cuobjdump")
                if os.path.exists(p):
                    return p
    except ImportError:
        pass
    raise CuobjdumpMissing("cuobjdump was not found: install the CUDA toolkit or `pip install nvidia-cuda-cuobjdump "
                           "nvidia-cuda-nvdisasm`")


def dump_sass(library: str) -> str:
    exe = cuobjdump_path()
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(exe) + os.pathsep + env.get("PATH", "")  # nvdisasm sits beside it in the wheels
    p = subprocess.run([exe, "--dump-sass", library], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise CuobjdumpMissing(f"cuobjdump failed: {(p.stderr or p.stdout).strip().splitlines()[-1:]}")
    return p.stdout


def census(sass: str) -> dict[str, Counter]:
    """{mangled function: Counter(family -> count)}."""
    out: dict[str, Counter] = {}
    cur = None
    for line in sass.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(1), Counter())
            continue
        if cur is None:
            continue
        m = _INST.search(line)
        if m:
            op, mods = m.group(1), m.group(2)
            fam = op + (mods.split(".")[1:2] and "." + mods.split(".")[1] or "") if op in KEEP_SUBOP else op
            cur[fam] += 1
    return out
