"""Run Nsight Compute on one launch of the kernel and read its raw-page CSV."""
from __future__ import annotations

import csv
import os
import signal
import subprocess

from pydantic import BaseModel

from profiler.metrics import metric_names


class ProfilerError(Exception):
    """Base of every error the profiler raises on purpose; str() is one sentence a CLI can print."""


class NcuMissing(ProfilerError):
    pass


class CountersNotPermitted(ProfilerError):
    pass


class UnknownMetric(ProfilerError):
    pass


class NoKernelProfiled(ProfilerError):
    pass


class NcuTimeout(ProfilerError):
    pass


class NcuFailed(ProfilerError):
    pass


class NcuFormatError(ProfilerError):
    pass


class NcuRow(dict):
    """One profiled launch: metric name -> float (str where ncu printed no number, e.g. 'n/a'),
    plus the identity columns ('Kernel Name', 'Block Size', ...) as str, and `units`."""

    def __init__(self, values: dict, units: dict[str, str]):
        super().__init__(values)
        self.units = units


class NcuResult(BaseModel):
    command: list[str]
    returncode: int
    csv: str
    stderr: str

    def rows(self) -> list[NcuRow]:
        return parse_raw_csv(self.csv)


def ncu_command(argv: list[str], arch: str, kernel_regex: str = "fa_fwd", launch_skip: int = 1,
                launch_count: int = 1, ncu: str = "ncu") -> list[str]:
    # --print-units base: without it ncu rescales per launch (usecond/msecond, Kbyte), so two
    # candidates' CSVs would not share units. --clock-control none: clocks are locked outside ncu,
    # as the seed's instrument requires; ncu's own base-clock lock would change the thing measured.
    return [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
            "--kernel-name", f"regex:{kernel_regex}", "--launch-skip", str(launch_skip),
            "--launch-count", str(launch_count),
            "--metrics", ",".join(dict.fromkeys(metric_names(arch).values())),
            "--target-processes", "all", *argv]


def check_output(text: str) -> None:
    """Raise the ProfilerError that ncu's console text (stdout + stderr) reports, if any."""
    if "ERR_NVGPUCTRPERM" in text:
        raise CountersNotPermitted(
            "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run it as root, or load "
            "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 and reboot.")
    for line in text.splitlines():
        if "Failed to find metric" in line:
            raise UnknownMetric(f"ncu does not know a requested metric on this GPU ({line.strip()}): check "
                                "it with `ncu --query-metrics --chip <chip>` and fix profiler/metrics.py.")


def run_ncu(argv: list[str], arch: str, timeout: float, *, kernel_regex: str = "fa_fwd",
            launch_skip: int = 1, launch_count: int = 1, ncu: str = "ncu",
            cwd: str | None = None, env: dict[str, str] | None = None) -> NcuResult:
    cmd = ncu_command(argv, arch, kernel_regex, launch_skip, launch_count, ncu)
    try:
        # Own session: with --target-processes all the profiled program is a grandchild, and a
        # timeout must take it down too.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=cwd, env=env, start_new_session=True)
    except (FileNotFoundError, PermissionError):
        raise NcuMissing(f"Nsight Compute ({ncu}) is not an executable on PATH: install it or pass "
                         "its full path.") from None
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise NcuTimeout(f"ncu ran past {timeout:g} s profiling {' '.join(argv)}.") from None
    except BaseException:  # Ctrl-C reaches only our own group: the profiled program must not outlive us
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    check_output(out + "\n" + err)
    result = NcuResult(command=cmd, returncode=p.returncode, csv=out, stderr=err)
    if not result.rows():
        if p.returncode != 0:
            tail = (err.strip() or out.strip() or "no output").splitlines()[-1]
            raise NcuFailed(f"ncu exited {p.returncode} without a profile: {tail}")
        raise NoKernelProfiled(f"ncu profiled no launch matching regex:{kernel_regex} after skipping "
                               f"{launch_skip}: check the kernel name and how often the program launches it.")
    return result


def _number(cell: str) -> float | str:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return cell


def parse_raw_csv(text: str) -> list[NcuRow]:
    """Rows of `ncu --csv --page raw`: preamble (==PROF== lines, the program's stdout), a header of
    quoted metric names, a units row, then one row per profiled launch."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        cells = next(csv.reader([line]), [])
        if "Kernel Name" in cells or (cells[:1] == ["ID"] and len(cells) > 1):
            start = i
            break
    if start is None:
        return []
    rows = [r for r in csv.reader(lines[start:]) if r]
    header = rows[0]
    if "Metric Name" in header:
        raise NcuFormatError("this is ncu's details page (one row per metric); profile with --page raw.")
    units: dict[str, str] = {}
    out = []
    for r in rows[1:]:
        if len(r) != len(header) or r[0].startswith("=="):
            continue  # a stray program or ==PROF== line after the table
        if not r[0]:  # the units row: identity columns are blank
            units = {h: u for h, u in zip(header, r) if u}
            continue
        # Only metric columns are numbers: 'ID' and 'CC' stay as ncu printed them.
        out.append(NcuRow({h: _number(c) if "__" in h else c for h, c in zip(header, r)}, units))
    return out
