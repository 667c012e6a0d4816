"""The K/V loads with an L2 evict-last policy (kv_l2_hint=evict_last) as built on the CPU
(results/2026-12-04_cpu_kv_l2_hint): ptxas's figures say what the README says, its device kernels are bitwise tier pairs
of their bases and the device call measures them, and the one lever that proposes it came with policy 23."""
import re
import sys

import agent.levers
from recorded import RESULTS, device_pairs

HERE = RESULTS / "2026-12-04_cpu_kv_l2_hint"


def test_every_k_and_v_load_takes_the_policy_and_nothing_else_moves():
    text = (HERE / "static_cpu.txt").read_text()
    blocks = dict(re.findall(r"^(\S+ D\d+): built; (\d+ B shared memory a CTA\n(?:  .*\n)+)", text, re.M))
    assert len(blocks) == 10
    for name, body in blocks.items():
        base = name.replace("_kh ", " ")
        loads, hinted = map(int, re.search(r"UTMALDG (\d+), with a cache policy \(desc\[URn\]\) (\d+)", body).groups())
        if base == name:
            assert hinted == 0, name
            continue
        figures = lambda b: re.sub(r"SASS.*", "", b)  # noqa: E731  shared memory, registers, stack, spills
        assert figures(body) == figures(blocks[base]), name
        base_loads = int(re.search(r"UTMALDG (\d+)", blocks[base])[1])
        assert loads == base_loads
        q_by_tma = "_qp_" in name
        # the Q loads (one 64-column box per head-dim slice, in each of the two builds) keep no hint
        assert hinted == loads - (2 * int(name.split(" D")[1]) // 64 if q_by_tma else 0), name


def test_the_device_kernels_pair_with_their_bases_and_the_call_measures_them():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    device_pairs("_kh", ds.KH, kv_l2_hint="none")
    call = (RESULTS / "2026-12-04_cpu_dynamic_schedule" / "device_call.sh").read_text()
    assert all(f"--only ${{{v}}}_kh" in call for v in ("A", "C", "CB"))
    assert "--move $A\\>${A}_kh" in call and "--move $CB\\>${CB}_kh" in call and 'fp16=${A}_kh"' in call


def test_one_lever_proposes_it_from_policy_23():
    from agent.policy import POLICIES
    from agent.replay.catalog import as_read_by

    assert [lv.name for lv in agent.levers.CATALOG if "kv_l2_hint" in lv.sets] == ["kv_evict_last"]
    assert not any("kv_l2_hint" in lv.sets for lv in as_read_by(POLICIES[22]))
