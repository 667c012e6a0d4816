"""Every kernel of scripts/device_suite.py built for sm_90a on this CPU machine (nvcc 13.0; fp16, D=64 and, unless
built for D=64 alone, D=128; non-causal and causal): does ptxas say it serialised the wgmma (C7520)?

    python3 results/2026-12-03_h200_agent_suite/scan_c7520.py > results/2026-12-03_h200_agent_suite/scan_c7520.txt"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from device_suite import KERNELS, d64_only  # noqa: E402

from experiments.build import BuildSpec, build  # noqa: E402
from kernel_src.knobs import Knobs  # noqa: E402
from profiler.ptxas import parse_ptxas  # noqa: E402


def main() -> None:
    names = [n for n, k in KERNELS.items() if k.get("compute") == "wgmma"]
    specs = {n: BuildSpec(knobs=Knobs.parse(KERNELS[n]), arch="sm_90", dtypes=("float16",),
                          dims=(64,) if d64_only(n) else (64, 128), causals=(False, True), host=False) for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        built = build(list(specs.values()), Path(tmp), jobs=2)
        for n, s in specs.items():
            b = built[s.key()]
            if not b.ok:
                print(n, "FAILED")
                continue
            serialized = [r.function for r in parse_ptxas(b.log) if r.entry and r.wgmma_serialized]
            print(n, "SERIALIZED" if serialized else "ok", len(serialized), flush=True)


if __name__ == "__main__":
    main()
