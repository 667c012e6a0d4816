"""mbarrier waits with a suspend-time hint (mbar_wait=suspend) as built on the CPU (results/2026-12-05_cpu_mbar_wait):
the asks again counted from the recorded ncu pages are what polls.py computes from them now, ptxas's figures say what
the README says, the device kernels are bitwise tier pairs of their bases and the call measures them, the rule refuses
the knob outside the TMA pipeline, and the one lever that proposes it came with policy 23."""
import re
import subprocess
import sys

import pytest

import agent.levers
from kernel_src.knobs import KnobError, Knobs
from recorded import RESULTS, device_pairs, recorded_text

HERE = RESULTS / "2026-12-05_cpu_mbar_wait"


def test_the_asks_again_are_counted_from_the_recorded_pages():
    out = subprocess.run([sys.executable, str(HERE / "polls.py")], capture_output=True, text=True, check=True).stdout
    assert out == (HERE / "polls.txt").read_text()
    shares = [float(x) for x in re.findall(r"instructions \(YIELD, TRYWAIT, branch\): ([\d.]+)% of", out)]
    assert shares == [8.7, 8.9]
    assert "Q empty) | 0 | 106,804 | 636 | 167.9" in out  # the producer's wait for the Q tile
    assert "sdpa_cudnn: 18,965,436 in all; SYNCS 208,757, YIELD 0, BRA 196,883" in out


def test_the_hint_sleeps_in_the_sass_and_nothing_else_moves():
    text = (HERE / "static_cpu.txt").read_text()
    blocks = dict(re.findall(r"^(\S+ D\d+): built; (\d+ B shared memory a CTA\n(?:  .*\n)+)", text, re.M))
    assert len(blocks) == 16
    for name, body in blocks.items():
        waits, sleeps, yields = map(int, re.search(r"TRYWAIT (\d+), NANOSLEEP.SYNCS 0x989680 (\d+), YIELD (\d+)", body).groups())
        base = name.replace("_mw ", " ")
        if base == name:
            assert sleeps == 0, name
            continue
        figures = lambda b: re.sub(r"SASS.*", "", b)  # noqa: E731  shared memory, registers, stack, spills
        assert figures(body) == figures(blocks[base]), name
        assert sleeps == waits // 2 and waits == int(re.search(r"TRYWAIT (\d+)", blocks[base])[1]), name
        assert yields < int(re.search(r"YIELD (\d+)", blocks[base])[1]) or yields <= 1, name


def test_the_device_kernels_pair_with_their_bases_and_the_call_measures_them():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    device_pairs("_mw", ds.MW, mbar_wait="poll")
    call = (HERE / "device_call.sh").read_text()
    assert all(f"--only ${{{v}}}_mw" in call for v in ("A", "T2", "N8", "D64", "C"))
    assert all(f"--move ${v}\\>${{{v}}}_mw" in call for v in ("A", "T2", "N8", "D64", "C"))
    assert subprocess.run(["bash", "-n", str(HERE / "device_call.sh")]).returncode == 0


def test_the_rule_keeps_it_to_the_tma_pipeline():
    with pytest.raises(KnobError, match="knob 'mbar_wait'=suspend .* needs staging=tma"):
        Knobs.parse({"compute": "mma", "staging": "cp_async", "mbar_wait": "suspend"})


def test_one_lever_proposes_it_from_policy_23():
    from agent.policy import POLICIES
    from agent.replay.catalog import as_read_by

    assert [lv.name for lv in agent.levers.CATALOG if "mbar_wait" in lv.sets] == ["ws_suspended_waits"]
    assert not any("mbar_wait" in lv.sets for lv in as_read_by(POLICIES[22]))


def test_the_default_compiles_to_the_ptx_it_did():
    assert re.search(r"^# 719 of 719 same", recorded_text(HERE / "ptx_unchanged_small.txt"), re.M)
