"""Outcomes are a closed set stored as data, never stray exceptions (STYLE.md habit 4)."""

from enum import Enum


class Outcome(str, Enum):
    KEPT = "KEPT"  # margin >= t_keep, C1 and C2 passed
    SLOWER = "SLOWER"  # margin <= 1 - t_noise
    NULL = "NULL"  # |margin - 1| < t_noise: indistinguishable from the A/A null, reverted
    WRONG = "WRONG"  # failed C1 or C2
    COMPILE_FAIL = "COMPILE_FAIL"  # nvcc/ptxas error, log kept
    RESOURCE_FAIL = "RESOURCE_FAIL"  # built, but the launch was refused (resources)
    CRASH = "CRASH"  # the child process died or the kernel faulted
    TIMEOUT = "TIMEOUT"  # the child process hung past its deadline
    BLOCKED_BY_ARITHMETIC = "BLOCKED_BY_ARITHMETIC"  # refused by pre-flight arithmetic, never run
    SUSPICIOUS = "SUSPICIOUS"  # a number that cannot be true; never kept

    @property
    def is_keep(self) -> bool:
        return self is Outcome.KEPT
