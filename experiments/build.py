"""Building candidates: nvcc into a shared library per candidate, driven by ninja.

The cache key hashes everything that can change the binary: the kernel source, the knobs,
the instantiation set, the arch, the flags and the nvcc version. Several candidates build in
parallel (ninja -j), a rebuilt candidate is a cache hit, and a compile error is a result with
its log kept, never an exception that stops a search.

A cache directory may be shared: two `run`s on two databases, the workers of one host, a killed
run and its resume. One build at a time writes its ninja file and runs ninja there, under an
advisory lock (flock) on <cache>/.build.lock that the kernel releases when its holder exits, however
it exits, so a lock left by a killed process is never stale: the next build takes it at once. nvcc
writes <key>/fa.so.part and a finished compile renames it, so a compile killed half-way leaves no
fa.so that a later build would take for a cache hit.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kernel_src.knobs import HEADERS, SOURCE, Knobs, source_hash

FLAGS = ["-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-lineinfo", "-Xptxas", "-v"]
LIBRARY = ["-shared", "-Xcompiler", "-fPIC,-fvisibility=hidden"]  # what host=False drops for -cubin


class BuildError(RuntimeError):
    pass


class BuildSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    knobs: Knobs
    arch: str  # "sm_90"
    dtypes: tuple[str, ...] = ("float16",)
    dims: tuple[int, ...] = (128,)
    causals: tuple[bool, ...] = (False, True)
    defect: int = 0  # experiments.defects only; 0 adds no flag, so normal keys never see it
    trace: bool = False  # kernel_src/trace.cuh's item trace (profiler/item_trace.py); off adds no flag
    source: str = SOURCE.name  # another file of kernel_src/ (mma_peak.cu, the ceiling microbenchmark)
    # False: the device code alone (nvcc -cubin, fa.cubin): cicc's front end still parses the host code and
    # instantiates every template it names (a static_assert there fails the build), ptxas still reports each
    # kernel; only the host compiler's pass and the link are skipped: 7.0-8.7 s against 8.5-9.8 s for one
    # configuration's eight instantiations on sm_80 (results/2026-12-01_cpu_ci_time/nvcc_one_configuration.txt);
    # the instantiations are the larger part (2 of them: 2.9 s)
    host: bool = True

    def source_path(self) -> Path:
        return SOURCE.with_name(self.source)

    def defines(self) -> dict[str, int]:
        d = self.knobs.defines()
        if self.defect:
            d["FA_DEFECT"] = self.defect
        if self.trace:
            d["FA_ITEM_TRACE"] = 1
        d["FA_DTYPES"] = sum(1 << ("float16", "bfloat16").index(t) for t in set(self.dtypes))
        d["FA_DIMS"] = sum(1 << (64, 128).index(x) for x in set(self.dims))
        d["FA_CAUSALS"] = sum(1 << int(c) for c in set(self.causals))
        return d

    def flags(self) -> list[str]:
        num = self.arch.removeprefix("sm_")
        if self.knobs.needs_arch() == self.arch:
            num += "a"  # the architecture-specific target: wgmma exists on sm_90a, not in sm_90's forward-compatible set
        base = FLAGS if self.host else [f for f in FLAGS if f not in LIBRARY] + ["-cubin"]
        return (base + [f"-I{SOURCE.parent}", f"-gencode=arch=compute_{num},code=sm_{num}"]
                + [f"-D{k}={v}" for k, v in sorted(self.defines().items())])

    def output(self) -> str:
        """The file the build writes in its cache entry."""
        return "fa.so" if self.host else "fa.cubin"

    def key(self) -> str:
        h = hashlib.sha256()
        flags = [f for f in self.flags() if not f.startswith("-I")]  # where the checkout lives is not the binary
        for part in (self.source, source_hash(self.source_path()), self.knobs.canonical(), " ".join(flags), nvcc_version()):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:16]


class BuildResult(BaseModel):
    key: str
    ok: bool
    library: str | None
    log: str
    seconds: float
    cached: bool
    ahead: bool = False  # built in the background while something else was measured (experiments.lab.Lab.build_ahead)


def nvcc_path() -> str:
    found = shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc") and "/usr/local/cuda/bin/nvcc")
    if not found:
        raise BuildError("nvcc was not found on PATH or in /usr/local/cuda/bin; install the CUDA toolkit (12.0 or newer)")
    return found


@lru_cache(maxsize=1)
def nvcc_version() -> str:
    out = subprocess.run([nvcc_path(), "--version"], capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1] if out.strip() else "unknown"


def ninja_path() -> str:
    found = shutil.which("ninja")
    if found:
        return found
    try:
        import ninja  # the PyPI package ships the binary

        return os.path.join(ninja.BIN_DIR, "ninja")
    except ImportError as e:  # pragma: no cover - ninja is a declared dependency
        raise BuildError("ninja was not found; pip install ninja") from e


def _q(s: str) -> str:
    return s.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


LOCK = ".build.lock"


@contextmanager
def cache_lock(cache_dir: Path, timeout: float):
    """Hold <cache_dir>/.build.lock (flock, exclusive) for one build. Its holder's pid and host are
    written in it for the message of a build that waits longer than `timeout` s, which raises
    BuildError naming them. The lock lives in the open file, not in the file's existence: when the
    holder exits (SIGKILL included) the kernel releases it, so the file a dead process leaves behind
    holds nothing. (flock is per host: a cache on a network file system shared across hosts gets a
    cache per host instead, docs/several-gpus.md.)"""
    path = Path(cache_dir) / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        t0 = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - t0 > timeout:
                    holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
                    raise BuildError(f"the build cache {cache_dir} has been locked for {timeout:.0f} s by {holder}; "
                                     f"another build is using it (set FA5090_CACHE to another directory, or wait)") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def build(specs: list[BuildSpec], cache_dir: Path, jobs: int | None = None, timeout: float = 600, nice: int = 0,
          started=None) -> dict[str, BuildResult]:
    """Build every spec (an entry whose output exists is a hit; ninja builds the rest); returns results keyed by
    spec.key(). `nice`: ninja and its compilers at that CPU priority (a build in the background of a measurement);
    `started(proc)`: called with the running ninja, in its own process group, so its caller can stop it
    (experiments.lab.Lab.build_ahead)."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    nvcc = nvcc_path()
    lines = [
        "ninja_required_version = 1.5",
        "rule nvcc",
        f"  command = {nvcc} $flags $in -o $out.part > $out.log 2>&1 && mv -f $out.part $out || (cat $out.log; exit 1)",
        "  description = nvcc $out",
        "",
    ]
    keys = {}
    for spec in specs:
        key = spec.key()
        keys[key] = spec
        (cache_dir / key).mkdir(exist_ok=True)
        (cache_dir / key / "spec.json").write_text(spec.model_dump_json(indent=1))
    cmd = [ninja_path(), "-C", str(cache_dir), "-f", "build.ninja", "-k", "0"]  # .ninja_log stays in the cache
    if jobs:
        cmd += ["-j", str(jobs)]
    if nice:
        cmd = ["nice", "-n", str(nice), *cmd]
    stdout, seconds = "", 0.0
    with cache_lock(cache_dir, timeout):
        before = {k: (cache_dir / k / s.output()).exists() for k, s in keys.items()}
        # An entry whose output exists is a hit by its key alone (the key is everything that makes the binary, and an
        # output appears only whole: nvcc writes $out.part, then mv). Ninja is given the missing ones only: it would
        # also rebuild an entry whose command line names another checkout's path or whose sources are newer than its
        # output, as every file of a fresh clone is, so that a cache kept across CI runs was rebuilt in each.
        deps = " ".join(_q(str(h)) for h in HEADERS)
        for key, spec in keys.items():
            if before[key]:
                continue
            out, src = _q(str(cache_dir / key / spec.output())), _q(str(spec.source_path()))
            lines.append(f"build {out}: nvcc {src} | {deps}")
            lines.append("  flags = " + " ".join(f.replace("$", "$$") for f in spec.flags()))
        if not all(before.values()):
            (cache_dir / "build.ninja").write_text("\n".join(lines) + "\n")
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            if started is not None:
                started(proc)
            try:
                stdout, _ = proc.communicate(timeout=timeout)
            except BaseException:  # a timeout, a Ctrl-C: no compiler of ours outlives the call
                stop_build(proc)
                raise
            seconds = time.perf_counter() - t0
    results = {}
    for key in keys:
        so = cache_dir / key / keys[key].output()
        log_path = cache_dir / key / f"{keys[key].output()}.log"
        log = log_path.read_text() if log_path.exists() else stdout[-4000:]
        ok = so.exists()
        results[key] = BuildResult(key=key, ok=ok, library=str(so) if ok else None, log=log,
                                   seconds=0.0 if before[key] else seconds, cached=before[key] and ok)
    return results


def stop_build(proc: subprocess.Popen, reap: bool = True) -> None:
    """A running ninja and the compilers it started, stopped; reaped unless `reap` is False (another thread waits
    on it). Ninja starts each command in a process group of its own and forwards SIGTERM to them (a SIGKILL of
    ninja alone would leave nvcc running, to write its library later): SIGTERM first, SIGKILL to the group if it
    has not gone within 10 s. A compile stopped half-way leaves only its fa.so.part: nothing a later build takes
    for a cache hit."""
    import signal

    def send(sig):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass

    send(signal.SIGTERM)
    for pid in process_tree(proc.pid):  # a paused build (pause_build) takes its SIGTERM once continued
        try:
            os.kill(pid, signal.SIGCONT)
        except (ProcessLookupError, PermissionError):
            pass
    if reap:
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            proc.communicate()


def process_tree(root: int) -> list[int]:
    """`root` and every process under it, parents first (from /proc; [] where there is no /proc or it is gone).
    Ninja starts each compile in a process group of its own, so its group alone does not reach them."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out if os.path.exists(f"/proc/{root}") else []


def _state(pid: int) -> str | None:
    """A process's state letter from /proc (R, S, T, Z...), None where it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def pause_build(proc: subprocess.Popen, pause: bool, settle_s: float = 2.0) -> None:
    """A running ninja and its compilers stopped (SIGSTOP, ninja first so it starts nothing new) or continued
    (SIGCONT): no compile shares the CPU with a timed measurement.

    A stop takes effect when its process next runs, and a compiler signalled a moment before it forks has a child
    the tree read before did not hold: the pause reads the tree again until every process in it is stopped (or a
    zombie its stopped parent has not reaped), for at most `settle_s`, and returns then."""
    import signal

    done: set[int] = set()
    deadline = time.monotonic() + settle_s
    while True:
        # states first, the tree after: a child forked before its parent stopped is in a tree read after the stop
        settled = all(_state(pid) in (None, "T", "t", "Z") for pid in done)
        new = [pid for pid in process_tree(proc.pid) if pid not in done]
        if not pause or (settled and not new) or time.monotonic() > deadline:
            if not pause:
                for pid in new:
                    _signal(pid, signal.SIGCONT)
            return
        for pid in new:
            done.add(pid)
            _signal(pid, signal.SIGSTOP)
        time.sleep(0.002)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def build_file(source: Path, library: Path, archs: list[str], timeout: float = 1200) -> BuildResult:
    """One generated .cu (export --dispatch) into one library with the candidates' flags, one
    -gencode per arch; the log (ptxas -v included) lands beside it as <library>.log."""
    cmd = [nvcc_path(), *FLAGS, *[f"-gencode=arch=compute_{a.removeprefix('sm_')},code={a}" for a in archs],
           str(source), "-o", str(library)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    log = proc.stdout + proc.stderr
    Path(str(library) + ".log").write_text(" ".join(cmd) + "\n" + log)
    ok = proc.returncode == 0 and Path(library).exists()
    return BuildResult(key=Path(library).name, ok=ok, library=str(library) if ok else None, log=log,
                       seconds=time.perf_counter() - t0, cached=False)
