"""Build faults: a shared build cache, a stale lock, a compile killed half-way. One build
at a time holds <cache>/.build.lock (flock, released by the kernel when its holder exits, however it
exits), and nvcc writes fa.so.part, renamed when the compile finishes (experiments/build.py). The
compiler here is a stand-in on PATH that sleeps and writes its output, so the builds overlap for
certain and the tests take seconds; the real compile through the same rule is
tests/test_kernel_build.py::test_rebuild_is_a_cache_hit."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from experiments import build as b
from kernel_src.knobs import Knobs

FAKE_NVCC = """#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, fake for tests"; exit 0;; esac
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
sleep ${FAKE_NVCC_SLEEP:-1}
echo "ptxas info: fake" ; printf 'ELF' > "$out"
"""


@pytest.fixture
def fake_nvcc(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    nvcc = bindir / "nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    b.nvcc_version.cache_clear()
    yield nvcc
    b.nvcc_version.cache_clear()


def _spec(bc: int) -> b.BuildSpec:
    return b.BuildSpec(knobs=Knobs.parse_assignments(["compute=mma", f"bc={bc}"]), arch="sm_90")


_CHILD = textwrap.dedent("""
    import json, sys
    from experiments import build as b
    from kernel_src.knobs import Knobs
    spec = b.BuildSpec(knobs=Knobs.parse_assignments(["compute=mma", "bc=" + sys.argv[2]]), arch="sm_90")
    r = b.build([spec], sys.argv[1])[spec.key()]
    print(json.dumps({"ok": r.ok, "cached": r.cached}))
""")


def test_two_processes_building_in_one_cache_both_get_their_libraries(tmp_path, fake_nvcc):
    """Without the lock the second process rewrote build.ninja between the first one's write and its
    ninja call, and the first one's candidate came back as a compile failure."""
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(cache), str(bc)], stdout=subprocess.PIPE, text=True)
             for bc in (32, 64, 128)]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs) and all('"ok": true' in o for o in outs), outs
    for bc in (32, 64, 128):
        assert (cache / _spec(bc).key() / "fa.so").read_text() == "ELF"


def test_a_lock_left_by_a_killed_builder_holds_nothing(tmp_path, fake_nvcc, monkeypatch):
    """A builder SIGKILLed while it holds the lock (mid-compile) leaves the lock file and a
    fa.so.part, never a fa.so: the next build takes the lock at once and compiles the candidate
    anew (not a cache hit)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("FAKE_NVCC_SLEEP", "30")
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(cache), "64"], start_new_session=True)
    key = _spec(64).key()
    for _ in range(200):  # until it holds the lock and its compile has started
        if (cache / key / "fa.so.log").exists():
            break
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    held = (cache / b.LOCK).read_text()
    assert f"pid {child.pid}" in held and not (cache / key / "fa.so").exists()
    monkeypatch.setenv("FAKE_NVCC_SLEEP", "0")
    t0 = time.monotonic()
    r = b.build([_spec(64)], cache, timeout=20)[key]
    assert r.ok and not r.cached and time.monotonic() - t0 < 10
    assert f"pid {os.getpid()}" in (cache / b.LOCK).read_text()


def test_a_build_that_waits_past_its_timeout_names_the_holder(tmp_path, fake_nvcc):
    cache = tmp_path / "cache"
    cache.mkdir()
    with b.cache_lock(cache, timeout=5):  # another open file: flock conflicts even in one process
        with pytest.raises(b.BuildError, match=rf"locked for 0 s by pid {os.getpid()} on .*another build is using it"):
            b.build([_spec(64)], cache, timeout=0.3)


def test_a_partial_library_from_a_killed_compile_is_never_a_cache_hit(tmp_path, fake_nvcc):
    """What a compile killed before its rename leaves (fa.so.part) is overwritten by the next
    compile; only the renamed fa.so counts as built."""
    cache = tmp_path / "cache"
    key = _spec(64).key()
    (cache / key).mkdir(parents=True)
    (cache / key / "fa.so.part").write_text("trunc")
    r = b.build([_spec(64)], cache)[key]
    assert r.ok and not r.cached and (cache / key / "fa.so").read_text() == "ELF"
    assert not (cache / key / "fa.so.part").exists()


def test_an_entry_is_a_hit_from_another_checkout_with_newer_sources(tmp_path, fake_nvcc, monkeypatch):
    """A cache kept across CI runs: each run is a fresh clone at another path, its sources newer than every output,
    and ninja, given the edge, would compile the entry again. An entry whose output exists is a hit by its key (the
    key leaves out where the checkout lives) and no ninja starts for it; a missing one is still built."""
    cache = tmp_path / "cache"
    first = b.build([_spec(64)], cache)[_spec(64).key()]
    assert first.ok and not first.cached
    clone = tmp_path / "clone" / "kernel_src"
    clone.mkdir(parents=True)
    source = clone / b.SOURCE.name
    source.write_bytes(b.SOURCE.read_bytes())  # written now: newer than the cached output
    monkeypatch.setattr(b, "SOURCE", source)
    ran = []
    real = subprocess.Popen
    monkeypatch.setattr(b.subprocess, "Popen", lambda cmd, *a, **k: ran.append(cmd) or real(cmd, *a, **k))
    again = b.build([_spec(64)], cache)[_spec(64).key()]
    assert again.ok and again.cached and again.library == first.library and ran == []
    other = b.build([_spec(64), _spec(32)], cache)
    assert other[_spec(32).key()].ok and not other[_spec(32).key()].cached and other[_spec(64).key()].cached
    assert len(ran) == 1 and str(cache / _spec(64).key()) not in (cache / "build.ninja").read_text()
