"""What a build learns of each input file and output, as plain data: the memo keeps these between builds, and
a build takes one back only when the bytes it was made from are the same (by digest)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..analysis.similarity import Features
from ..content.findings import Finding
from ..content.image_files import ImageFile
from ..content.models import StoryBrief
from ..render.story_job import StoryJob


@dataclass
class ManifestRecord:
    """A manifest file as read: its id, what loading it found, and whether no manifest rule can fire on it
    (`plain`: a plain file that found nothing is read again only when a stage needs its claims)."""

    digest: str
    id: str | None
    findings: list[Finding]
    plain: bool = False


@dataclass
class ImageRecord:
    """An image file as measured: its digest ("" when it could not be read and no scan took one) and the
    ImageFile, or why it cannot be used."""

    digest: str
    image: ImageFile | str


MadeFrom = tuple[StoryJob, str, str]  # a story's job, the story templates' digest, the fingerprint of the two


@dataclass
class Rendered:
    """A story's three variants as last made: the fingerprint of what they were made from (its job,
    engine/stories.py, and the story templates), each output's digest, and its teaser (its view without
    sections, as JSON, which list pages read; None when the memo it was loaded from keeps it: Memo.teaser) with
    its digest and the fields that order and place it, and the digest of what the search index reads of its
    HTML page."""

    job: str
    outputs: dict[str, str]
    teaser: bytes | None
    teaser_digest: str
    keys: dict[str, Any]
    indexed: str


@dataclass(frozen=True)
class StoryRecord:
    """A story file as read: its bytes' digest, the digests of the manifests it refers to as they were, the
    findings of loading it and of its local rules, and what site-wide work needs of it (None when its front
    matter did not validate)."""

    path: str
    digest: str
    refs: dict[str, str]
    findings: list[Finding]
    brief: StoryBrief | None = None
    features: Features | None = None
    cited: frozenset[str] = frozenset()
    draft: bool = False  # marked `draft: true` (read from the YAML as written when the front matter is wrong)
    rendered: Rendered | None = field(default=None, compare=False)


@dataclass
class PageRecord:
    """A site output as last made: the fingerprint of what it was made from, its digest, its source, the
    producer that made it and the story outputs it read."""

    made_from: str  # (not `fingerprint`: that attribute would make a record stand for one digest)
    digest: str
    source: str
    producer: str = ""
    reads: tuple[str, ...] = ()


@dataclass
class ShardRecord:
    """A search shard's bundle as last made: the fingerprint of its pages, whether it was the primary (which
    alone publishes Pagefind's scripts), and each published file's digest by output path."""

    made_from: str
    primary: bool
    files: dict[str, str]


@dataclass
class SearchRecord:
    """The search index as last made: each shard's record by name, and every output's digest by path (the
    shards' files and the list of them)."""

    shards: dict[str, ShardRecord] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
