"""The wgmma descriptors built once a block and operand (desc_math=hoisted) as built on the CPU
(results/2026-12-05_cpu_desc_math): the uniform-datapath shares computed again from the recorded pages, ptxas's figures
say what the README says, the default compiles to the PTX it did, the device kernels are bitwise tier pairs measured by
the call, the rule, and no lever proposes it before a recorded keep."""
import re
import subprocess
import sys

import pytest

from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, device_pairs, recorded_text

HERE = RESULTS / "2026-12-05_cpu_desc_math"


def test_the_uniform_shares_come_from_the_recorded_pages():
    out = subprocess.run([sys.executable, str(HERE / "uniform_share.py")], capture_output=True, text=True, check=True).stdout
    assert out == (HERE / "uniform_share.txt").read_text()
    assert re.findall(r": ([\d.]+)%$", out, re.M) == ["14.6", "13.8", "11.2", "13.7"]
    assert "segment up to its 12th HGMMA: 126 instructions, 90 uniform" in out


def test_a_key_blocks_gemms_are_shorter_and_nothing_else_moves_but_fewer_spill_loads():
    text = (HERE / "static_cpu.txt").read_text()
    blocks = dict(re.findall(r"^(\S+ D\d+): built; (\d+ B shared memory a CTA\n(?:  .*\n)+)", text, re.M))
    assert len(blocks) == 16
    run = lambda b: tuple(map(int, re.search(r"run of (\d+) HGMMAs: (\d+) instructions", b).groups()))  # noqa: E731
    figures = lambda b: re.sub(r"  SASS.*\n", "", b)  # noqa: E731
    for name, body in blocks.items():
        base = name.replace("_dm ", " ")
        if base == name:
            continue
        (n, length), (n0, length0) = run(body), run(blocks[base])
        assert n == n0 and length <= 0.8 * length0, name
        if name == "ws3_lazy_qp_ot_pm_dm D64":  # its causal build loads 4 B fewer from its spills
            assert figures(body) == figures(blocks[base]).replace("loads 52 B", "loads 48 B")
        else:
            assert figures(body) == figures(blocks[base]), name
    assert run(blocks["ws3_lazy_qp_hf_ot_ts_s3 D64"]) == (12, 82) and run(blocks["ws3_lazy_qp_hf_ot_ts_s3_dm D64"]) == (12, 44)


def test_the_default_compiles_to_the_ptx_it_did():
    assert re.search(r"^# 65 of 65 same", recorded_text(HERE / "ptx_unchanged_ws_hopper.txt"), re.M)
    assert re.search(r"^# 719 of 719 same", recorded_text(HERE / "ptx_unchanged_small.txt"), re.M)


def test_the_device_kernels_pair_with_their_bases_and_the_call_measures_them():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    # and two suite bests, and the two-consumer kernel at N512 D64
    device_pairs("_dm", ds.MW + ["ws_op_lazy_qp_w_ot_pr_pk", "ws3_lazy_qp_hf_ot_pm_ts_s3", ds.T2C], desc_math="per_mma")
    call = (HERE / "device_call.sh").read_text()
    assert all(f"--only ${{{v}}}_dm" in call and f"--move ${v}\\>${{{v}}}_dm" in call for v in ("A", "T2", "N8", "D64", "C"))
    assert subprocess.run(["bash", "-n", str(HERE / "device_call.sh")]).returncode == 0


def test_the_rule_keeps_it_to_the_warp_specialised_mainloop():
    with pytest.raises(KnobError, match="knob 'desc_math'=hoisted .* needs mainloop=ws"):
        Knobs.parse({"compute": "wgmma", "layout": "sw128", "staging": "tma", "desc_math": "hoisted"})

