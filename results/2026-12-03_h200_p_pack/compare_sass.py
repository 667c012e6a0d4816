"""The measured kernels' SASS from one source tree, for comparing two trees (CPU, nvcc 13.0, cuobjdump):

    git worktree add /tmp/old 24fb660
    python3 results/2026-12-03_h200_p_pack/compare_sass.py /tmp/old /tmp/sass_old
    python3 results/2026-12-03_h200_p_pack/compare_sass.py $PWD /tmp/sass_new
    cmp /tmp/sass_old/NAME.sass /tmp/sass_new/NAME.sass   (sass_as_measured.txt)"""
import sys, subprocess, re
from pathlib import Path
root = Path(sys.argv[1]); sys.path.insert(0, str(root)); sys.path.insert(0, str(root / "scripts"))
from experiments.build import BuildSpec, build
from kernel_src.knobs import Knobs
import device_suite as ds
names = ["ws_op_lazy_w_oq_pk", "ws_op_lazy_qp_hf_w_ot_pm", "ws3_lazy_qp_ot_pm", "ws2c_ot_pk", "ws_op_lazy_qp_w_ot_pr_pk",
         "ws_op_bc176_lazy_hf_w_oq_pm", "ws3_lazy_hf_oq_pm"]
specs = {n: BuildSpec(knobs=Knobs.parse(ds.KERNELS[n]), arch="sm_90", dtypes=("float16", "bfloat16"), dims=(64,) if ds.d64_only(n) else (64, 128), causals=(False, True), host=False) for n in names}
res = build(list(specs.values()), Path(sys.argv[2]), jobs=2)
from profiler.sass import cuobjdump_path
cu = cuobjdump_path()
for n, sp in specs.items():
    out = subprocess.run([cu, "-sass", res[sp.key()].library], capture_output=True, text=True).stdout
    ins = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", out)
    Path(sys.argv[2], n + ".sass").write_text("\n".join(ins))
    print(n, len(ins))
