"""The settings a recorded run ran with where its recording does not say (agent.bench.Replay.settings,
agent.resume): each SearchOptions field added after some runs were recorded, with the value those
runs had in effect."""
from __future__ import annotations

# a recording made before runs recorded their settings at all: the first agent, one A/A null for the
# whole run, three repeats of it, no comparator after a screen, a screen's rank taken as it came, the
# final kernel paired against SDPA flash only
LEGACY = {"strategy": "ladder", "renoise": False, "aa_repeats": 3, "agent_version": 1, "screen_comparator": False,
          "screen_singles_first": False, "comparators": ("flash",), "lazy_null": False, "tpe_draw": "uniform"}
# settings added after recordings that do record a setup: what those recordings ran with
LATER_SETTINGS = {"agent_version": 1, "screen_comparator": False, "screen_singles_first": False,
                  "comparators": ("flash",), "lazy_null": False, "tpe_draw": "uniform"}
