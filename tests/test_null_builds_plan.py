"""The call that asks where a keep's between-process spread comes from (results/2026-12-03_cpu_null_builds): its A and
A' are two libraries of one machine code (recorded with nvcc 13.0), and the script's A' is built as recorded."""
import subprocess
import sys

from recorded import RESULTS

from experiments.build import BuildSpec
from kernel_src.knobs import Knobs

HERE = RESULTS / "2026-12-03_cpu_null_builds"


def test_a_and_a_prime_are_one_machine_code_in_two_libraries():
    text = (HERE / "sass_same.txt").read_text()
    assert "A: library b36f2f9e7995d2f2, 1 kernel(s); A': library 2a463b81aa04a466, 2 kernel(s)" in text
    assert text.rstrip().endswith("identical in A and A': True")
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    from device_suite import KERNELS
    k = Knobs.parse(KERNELS["ws_op_lazy_qp_w_ot_pr_pk"])
    keys = [BuildSpec(knobs=k, arch="sm_90a", dtypes=("float16",), dims=(128,), causals=c).key()
            for c in ((False,), (False, True))]
    assert keys[0] != keys[1]  # two libraries (the recorded keys hold for the source and nvcc the record names)


def test_the_script_says_what_it_needs():
    out = subprocess.run([sys.executable, str(HERE / "null_builds.py"), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--repeats" in out.stdout
