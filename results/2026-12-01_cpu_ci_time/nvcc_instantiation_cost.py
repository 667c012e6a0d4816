"""What one matrix compile costs by its number of instantiations: nvcc -cubin of one covering configuration with
1, 2 (both mask modes), 4 and 8 instantiations; CPU seconds (user + sys of nvcc's process tree) beside wall, since
the machine is shared. Usage: python3 results/2026-12-01_cpu_ci_time/nvcc_instantiation_cost.py INDEX ARCH ..."""

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from experiments.build import BuildSpec, nvcc_path  # noqa: E402
from kernel_src.covering import covering_set  # noqa: E402

VARIANTS = {
    "1: fp16 D64 non-causal": (("float16",), (64,), (False,)),
    "1: bf16 D128 causal": (("bfloat16",), (128,), (True,)),
    "2: fp16 D128, both masks": (("float16",), (128,), (False, True)),
    "2: bf16 D64, both masks": (("bfloat16",), (64,), (False, True)),
    "4: fp16 D64+128": (("float16",), (64, 128), (False, True)),
    "8: every instantiation": (("float16", "bfloat16"), (64, 128), (False, True)),
}
cs = covering_set()
out = Path(tempfile.mkdtemp()) / "x.cubin"
for index, arch in zip(sys.argv[1::2], sys.argv[2::2]):
    k = cs[int(index)]
    print(f"# covering configuration {index}, {k.label()}, {arch}, load {os.getloadavg()[0]:.1f}")
    for name, (t, d, c) in VARIANTS.items():
        s = BuildSpec(knobs=k, arch=arch, dtypes=t, dims=d, causals=c, host=False)
        r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        p = subprocess.run([nvcc_path(), *s.flags(), str(s.source_path()), "-o", str(out)], capture_output=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        print(f"{name:28s} rc {p.returncode}  wall {time.time() - t0:5.2f} s  cpu {cpu:5.2f} s", flush=True)
