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
