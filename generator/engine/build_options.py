"""What a caller asks of a build, as one value: the same for the command line, the preview, the agent desk and
the tests. The standard library only: the command makes one before it imports the rest of the engine."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    drafts: bool = False         # build the stories marked draft: true
    base_url: str | None = None  # instead of site.toml's
    jobs: int | None = None      # processes (default: every core)
    search: bool = True          # make the search index (without it, the store keeps the last one)
    now: dt.datetime | None = None  # the build's time, which decides what is scheduled (default: engine/clock.py)
    scheduled: bool = False      # build the scheduled stories too (the preview does, under a banner)
    force: bool = False          # read and make everything again, as if no build had run before
