"""What a build tells its caller, as data: its findings, why it wrote nothing (if it refused), its counts, the
stories it left scheduled and the output files it changed. The command line prints it, the preview shows it,
the agent desk returns it. The standard library only, like the options."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..content.findings import Finding, counted


@dataclass(frozen=True)
class Counts:
    """The stories and pages of the site built, its files, and what the build did to them."""

    stories: int = 0
    pages: int = 0
    files: int = 0
    written: int = 0
    unchanged: int = 0
    deleted: int = 0


class Scheduled(NamedTuple):
    """A story that waits for its time: its file (as findings show it), its address and when it is due."""

    path: str
    url_path: str
    due: dt.datetime


@dataclass
class Report:
    """One build: `ok` when it refused nothing and no error remains (then the output holds the new site)."""

    out: str                                   # where the site went (a folder, or "memory")
    findings: list[Finding] = field(default_factory=list)
    refused: str | None = None                 # why nothing was written: the output folder refused, locked by
                                               # another build, a write the disk refused, a time unreadable
    up_to_date: bool = False                   # nothing to do: the counts and findings are the last build's
    counts: Counts = Counts()
    scheduled: list[Scheduled] = field(default_factory=list)  # soonest first
    changed: list[str] = field(default_factory=list)          # output files written, then those deleted
    search: bool = False                       # the search index was asked for, and made
    notes: list[str] = field(default_factory=list)  # besides findings: what the next build will cost, and why
    seconds: float = 0.0
    # What the build learned (its memo and indexes): the next build in this process starts from it, and a
    # process that ends right after holds it to its end rather than freeing it object by object.
    learned: Any = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.refused is None and not any(finding.severity == "error" for finding in self.findings)

    def summary(self) -> str:
        """The closing line: stories, pages, files written and skipped, time (of the last build, when this one
        found nothing to do)."""
        counts = self.counts
        prefix = "up to date: " if self.up_to_date else "built "
        written = "nothing written" if self.up_to_date else (
            f"{counts.written:,} written, {counts.unchanged:,} unchanged, {counts.deleted:,} deleted")
        return (f"{prefix}{counted(counts.stories, 'story')}, {counted(counts.pages, 'page')}, "
                f"{counted(counts.files, 'file')} in {self.out} ({written}) in {self.seconds:.2f} s")

    def waiting(self) -> str | None:
        """How many stories wait for their time, and which is next: they go out with the first build after it."""
        if not self.scheduled:
            return None
        path, _, when = self.scheduled[0]
        return (f"{counted(len(self.scheduled), 'story')} scheduled, not built yet; the next, {path}, is due at "
                f"{when.astimezone(dt.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')} (a build at or after that time publishes it)")


def os_reason(err: OSError, where: Path | str) -> str:
    """What the system refused, in a line: the file (else `where`) and why."""
    return f"{err.filename or where}: {err.strerror or err}"
