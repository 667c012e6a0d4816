"""The dynamic schedule (schedule=dynamic) as built on the CPU (results/2026-12-04_cpu_dynamic_schedule): its model
computes again from the recorded ncu counters, its ptxas figures say what the README says, its device kernels are
bitwise tier pairs of their static builds, and no lever proposes it before a recorded keep."""
import re
import subprocess
import sys

from kernel_src.knobs import Knobs
from recorded import RESULTS, load_script

HERE = RESULTS / "2026-12-04_cpu_dynamic_schedule"


def test_the_model_computes_again_on_this_machine():
    out = subprocess.run([sys.executable, str(HERE / "dynamic_model.py")], capture_output=True, text=True,
                         check=True).stdout
    assert out == (HERE / "dynamic_model.txt").read_text()
    # what the README states from it
    assert "F = 14502 (fitted to the average SM)" in out
    fixed = re.findall(r"(static|dynamic)\s+busiest\s+(\d+)", out.split("2.")[0])
    assert fixed == [("static", "81790"), ("dynamic", "81790")]  # at fixed costs greedy is round robin
    assert "per SM  : s = 0.0165; static busiest   85244" in out and "dynamic busiest   83004" in out
    assert "per item: s = 0.0408; static busiest   85244" in out and "dynamic busiest   83904" in out
    assert "margin 1.015 - 1.025" in out
    assert "launch over the static final 0.997" in out and "launch over the static final 0.993" in out
    causal = {ln.split("  ")[1].strip(): ln.split()[-3:] for ln in out.split("6. causal")[1].splitlines()[2:] if ln.strip()}
    assert causal == {"B8 H32/8 N1024 D128 (128 x 128)": ["1.031", "1.031", "1.005"],
                      "B2 H16 N8192 D128 (128 x 128)": ["1.062", "1.001", "1.002"],
                      "B2 H16 N4096 D64 (192 x 128)": ["1.149", "1.018", "1.013"]}


def test_the_model_reads_the_recorded_counters():
    model = load_script(HERE / "dynamic_model.py")
    rec = model.recorded()
    assert (rec["ours"]["max"], rec["ours"]["avg"], rec["ours"]["elapsed"]) == (85244, 79311.36, 90742)
    assert rec["cuDNN"]["elapsed"] - rec["cuDNN"]["max"] == 2952
    # the order the kernel's decode gives without a mask: every head's third tile (the tail items) first
    cs = model.costs(1.0)
    assert len(cs) == 768 and cs[:256] == [0.82] * 256 and cs[256:] == [1.0] * 512


def test_the_builds_say_what_the_readme_says():
    text = (HERE / "static_cpu.txt").read_text()
    blocks = dict(re.findall(r"^(\S+ D\d+): built.*?\n((?:  .*\n)+)", text, re.M))
    assert len(blocks) == 13
    for name, body in blocks.items():
        non_causal = re.search(r"non-causal: (\d+) registers, stack \d+ B, spill stores (\d+) B, loads (\d+) B", body)
        assert non_causal[2] == non_causal[3] == "0", name  # no spill without a mask, either schedule
        atomg = int(re.search(r"ATOMG (\d+)", body)[1])
        assert atomg == (4 if "_dy " in name + " " else 0), name  # the claim and the count done, in each of two builds
        static = name.replace("_dy ", " ")
        if static != name and static in blocks:  # (the launch-order build has no static build of its own here)
            regs = lambda n: re.search(r"non-causal: (\d+) registers", blocks[n])[1]  # noqa: E731
            assert regs(name) == regs(static)
            hgmma = lambda n: re.search(r"HGMMA (\d+), MUFU.EX2 (\d+)", blocks[n]).groups()  # noqa: E731
            assert hgmma(name) == hgmma(static)
    smem = dict(re.findall(r"^(\S+) D64: built; (\d+) B", text, re.M))
    assert int(smem["ws3_lazy_qp_hf_ot_ts_s3_dy"]) - int(smem["ws3_lazy_qp_hf_ot_ts_s3"]) == 16


def test_the_device_kernels_pair_with_their_static_builds():
    sys.path.insert(0, str(RESULTS.parent / "scripts"))
    import device_suite as ds

    pairs = [p for dims in ds.TIER.values() for p in dims if p[0].endswith("_dy")]
    launch = ["ws3_lazy_qp_ot_ts_s3_dy", "ws3_lazy_qp_hf_ot_ts_s3"]  # the final's items in launch order
    suite = ["ws_op_lazy_qp_hf_w_ot_pm_dy", "ws_op_lazy_qp_hf_w_ot_pm"]  # the suite's causal N1024 GQA best, later
    assert sorted(pairs) == sorted([[f"{n}_dy", n] for n in ds.DYN] + [launch, suite])
    for cand, base in pairs:
        a, b = Knobs.parse(ds.KERNELS[cand]), Knobs.parse(ds.KERNELS[base])
        assert a.replace(schedule="static", cta_order=b.cta_order) == b  # the schedule moved (and, once, the order)
    assert Knobs.parse(ds.KERNELS[launch[0]]).cta_order.value == "launch"
    call = (HERE / "device_call.sh").read_text()
    assert all(f"--only ${v}_dy" in call for v in ("{A}", "{S}", "{T2}", "{C}")) and "--only $LO" in call


def test_the_hand_off_protocol_holds_and_wrong_variants_are_caught():
    """model_slot.py: the slot's mbarriers with PTX's parity waits, G CTAs claiming from one counter, two launches; it
    checks the protocol the kernel's comments state, not the compiled kernel (the H200 tier does that)."""
    p = subprocess.run([sys.executable, str(HERE / "model_slot.py"), "25"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ok  ") == 5 and "no deadlock, every item once on one CTA" in p.stdout
    for wrong in ("consumer_parity", "put_without_wait", "no_reset"):
        assert re.search(rf"wrong variant {wrong}: caught in (\d+) of 25", p.stdout), p.stdout
        assert int(re.search(rf"wrong variant {wrong}: caught in (\d+)", p.stdout)[1]) >= 20
    assert (HERE / "model_slot.txt").read_text().count("ok  ") == 5
