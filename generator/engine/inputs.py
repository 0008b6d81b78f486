"""The two values a run of the engine hands from stage to stage: `Run`, what it was asked (the site's folder,
the options, what the last run learned, where its scratch files and progress go), and `SiteInputs`, the site
as read and checked. Each stage takes these rather than their fields one by one, so an option or an input
added here reaches every stage that reads it with no signature changed on the way."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import Report
from ..content.author_files import Author
from ..content.config import SiteConfig
from ..content.findings import Finding
from ..content.image_files import ImageFile
from ..content.manifest_files import KnownManifest
from ..content.models import ManifestFile, Page, StoryBrief
from .build_options import Options
from .pool import default_jobs
from .records import ImageRecord, ManifestRecord, StoryRecord

if TYPE_CHECKING:
    from .memo import Memo
    from .read import Spill, Spilled

Progress = Callable[[str, int, int], None]  # (stage, done, total): told as stories are read and rendered


@dataclass(frozen=True)
class Prior:
    """What the last run learned (its memo, made for the same key), the digest of each content file by its
    path as shown, as this run's scan found it (which tells which of the memo's records still hold), and the
    (key, options) the memo this run learns is made for."""

    memo: Memo | None = None
    digests: Mapping[str, str] = field(default_factory=dict)
    key: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Run:
    """One run of the engine: the site at `root`, the options, the prior run's memo; `texts`, story files'
    bytes by path as shown, checked as if written there (a story checked before it is saved); `spill`, where
    the read stories' sections wait for their pages (when building); `progress`, told of each story."""

    root: Path
    options: Options = Options()
    prior: Prior = Prior()
    texts: Mapping[str, bytes] = field(default_factory=dict)
    spill: Spill | None = None
    progress: Progress | None = None

    @property
    def jobs(self) -> int:
        return self.options.jobs or default_jobs()

    @property
    def memo(self) -> Memo | None:
        return self.prior.memo

    def told(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)


@dataclass
class SiteInputs:
    """The site as read and checked. `records`: every story file, drafts too, by path; `stories`: the site's
    stories (a draft only when drafts are built, a story published after the build's time only when scheduled
    ones are); `fresh`: the stories read this time (the rest came from the memo); `spilled`: where the sections
    of the fresh ones wait."""

    config: SiteConfig | None
    report: Report
    manifests: dict[str, ManifestFile | KnownManifest] = field(default_factory=dict)  # by id
    manifest_files: list[ManifestFile | KnownManifest] = field(default_factory=list)  # every one read, by path
    manifest_records: dict[str, ManifestRecord] = field(default_factory=dict)
    records: dict[str, StoryRecord] = field(default_factory=dict)
    stories: list[StoryBrief] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    fresh: set[str] = field(default_factory=set)
    spilled: dict[str, Spilled] = field(default_factory=dict)
    repeats: dict | None = None
    scores: dict[tuple[str, str], float] = field(default_factory=dict)
    authors: dict[str, Author] = field(default_factory=dict)
    images: dict[str, ImageFile] = field(default_factory=dict)            # by src
    image_records: dict[str, ImageRecord] = field(default_factory=dict)  # by path as shown, for the memo
    scheduled: list[StoryBrief] = field(default_factory=list)             # published after the build's time
    now: dt.datetime | None = None                                        # the build's time

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings
