"""fa5090-search: profiling-driven search over a FlashAttention forward kernel's knobs.

Each command's docstring is its --help; every listing takes --json. The commands live in
agent/commands/ (search: run, rescreen, calibrate, baseline; review: history, show, shelf,
levers; tools: doctor, derive-tolerance, static, export; tune: a campaign of runs); importing them registers them on `app`.
"""

from __future__ import annotations

from agent.commands import review, search, tools, tune  # noqa: F401 - registers the commands on app
from agent.commands.common import app, plain_help, said_on_damage

# --help lists the commands in this order, the order of a first session (doctor first)
ORDER = ("doctor", "run", "tune", "sweep", "history", "show", "shelf", "compare", "report", "rescreen", "calibrate", "baseline",
         "derive-tolerance", "static", "export", "levers", "knobs")


def _rank(c) -> int:
    name = c.name or c.callback.__name__.replace("_", "-")
    return ORDER.index(name) if name in ORDER else len(ORDER)


app.registered_commands.sort(key=_rank)
plain_help(app)
for _c in app.registered_commands:
    _c.callback = said_on_damage(_c.callback)

__all__ = ["app"]

if __name__ == "__main__":  # pragma: no cover
    app()
