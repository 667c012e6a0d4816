"""What the hardware says: ncu CSV and ptxas report -> metrics -> a diagnosis."""

from profiler.diagnosis import Diagnosis, Metrics, diagnose, metrics_from_row
from profiler.metrics import METRICS, STALL_REASONS, metric_names
from profiler.ncu import (CountersNotPermitted, NcuFailed, NcuFormatError, NcuMissing, NcuResult, NcuTimeout,
                          NoKernelProfiled, ProfilerError, UnknownMetric, ncu_command, parse_raw_csv, run_ncu)
from profiler.ptxas import PtxasRecord, find_entry, parse_ptxas

__all__ = ["Diagnosis", "Metrics", "diagnose", "metrics_from_row", "METRICS", "STALL_REASONS", "metric_names",
           "CountersNotPermitted", "NcuFailed", "NcuFormatError", "NcuMissing", "NcuResult", "NcuTimeout",
           "NoKernelProfiled", "ProfilerError", "UnknownMetric", "ncu_command", "parse_raw_csv", "run_ncu",
           "PtxasRecord", "find_entry", "parse_ptxas"]
