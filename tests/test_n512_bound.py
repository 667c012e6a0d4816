"""The bound at B16 H16 N512 D64 (results/2026-12-04_cpu_n512_bound): no assignment of today's three-warpgroup items to
132 CTAs reaches cuDNN's recorded elapsed cycles; the search for the best makespan is exact on small cases."""
import itertools

from recorded import RESULTS, load_script

HERE = RESULTS / "2026-12-04_cpu_n512_bound"


def _bound():
    return load_script(HERE / "bound.py")


def test_holds_agrees_with_brute_force_on_small_cases():
    mod = _bound()
    for f, t, nf, nt, g in ((5, 3, 4, 3, 3), (7, 4, 5, 2, 2), (10, 8, 3, 3, 2)):
        loads = []
        # every way to hand nf + nt items to g CTAs, up to the order of the CTAs
        for split in itertools.product(range(g), repeat=nf + nt):
            load = [0] * g
            for i, c in enumerate(split):
                load[c] += f if i < nf else t
            loads.append(max(load))
        best = min(loads)
        assert mod.holds(best, f, t, nf, nt, g) and not mod.holds(best - 1, f, t, nf, nt, g)


def test_the_printed_bound(capsys):
    _bound().main()
    out = capsys.readouterr().out
    assert out == (HERE / "bound.txt").read_text()
    assert "the best makespan of any assignment 82612 (turned rounds: 82612)" in out
    assert "cuDNN's / ours 0.980" in out and "a cut of 2.1%" in out
    assert "at most 10108 cycles, 1.035 of two thirds of F" in out


def test_the_device_call_measures_what_the_move_builds():
    """device_call.sh (not yet run): its first two-warpgroup kernel is what ws_mainloop_short_items builds from the
    naive N512 D64 run's best at the ask where policies 19-20 take it; every kernel it names is one of device_suite's,
    each compiling for sm_90 at D=64 without a spill (static_s2.txt, this machine's ptxas)."""
    import re
    import subprocess

    from agent import levers
    from kernel_src.knobs import Knobs
    from scripts.device_suite import KERNELS

    script = (HERE / "device_call.sh").read_text()
    assert subprocess.run(["bash", "-n", str(HERE / "device_call.sh")]).returncode == 0
    names = dict(re.findall(r"\b([FALMK])=(\w+)", script.split("\nrun()")[0]))
    assert set(names.values()) <= set(KERNELS) and names["F"] == "ws3_lazy_qp_hf_ot_pm_ts_s3"
    best = Knobs.parse({"compute": "wgmma", "layout": "sw128", "staging": "tma", "exp": "ex2", "br": 64, "bc": 64,
                        "warps": 4, "kv_stages": 2, "q_in": "smem", "softmax": "fused", "copies": "unrolled"})
    move = levers.get("ws_mainloop_short_items").apply(best)
    assert Knobs.parse(KERNELS[names["A"]]) == move
    rows = [ln.split(" | ") for ln in (HERE / "static_s2.txt").read_text().splitlines()[2:]]
    assert {r[0].lstrip("| ") for r in rows} == {names[k] for k in "ALMK"}
    assert all(r[3] == "0" for r in rows if r[1] == "64")
