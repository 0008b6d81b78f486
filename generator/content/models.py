"""The input records of a site (stories, manifests, pages) as validated models."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from .findings import SourceMap
from .slugs import slugify

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
EDITION_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}$"

Id = Annotated[str, Field(strict=True), StringConstraints(pattern=ID_PATTERN)]
Text = Annotated[str, Field(strict=True), StringConstraints(min_length=1)]


class Strict(BaseModel):
    """Unknown fields are errors: a typo must not pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Claim(Strict):
    id: Id
    text: Text


class Source(Strict):
    name: Text
    url: Annotated[str, Field(strict=True), StringConstraints(pattern=r"^https?://\S+$")]


class Manifest(Strict):
    id: Id
    title: Text
    source: Source
    published: AwareDatetime
    brief: str | None = None
    claims: list[Claim] = Field(min_length=1)


class LedgerEntry(Strict):
    manifest: Id
    claims: list[Id]


class KeyFact(Strict):
    text: Text
    labels: list[Text] = []
    cites: list[Id] = Field(min_length=1)


class DecisionCard(Strict):
    useful_for: list[Text] = []
    not_for: list[Text] = []
    compare_against: list[Text] = []


class FrontMatter(Strict):
    """A story's front matter exactly as SPEC section 2 lists it."""

    title: Annotated[Text, StringConstraints(max_length=200)]
    description: Annotated[Text, StringConstraints(max_length=400)]
    published: AwareDatetime
    newsroom: Text
    beat: Text
    trust: Text
    ledger: list[LedgerEntry] = Field(min_length=1)
    slug: Annotated[str, Field(strict=True), StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")] | None = None
    updated: AwareDatetime | dt.date | None = None
    edition: Annotated[str, Field(strict=True), StringConstraints(pattern=EDITION_PATTERN)] | None = None
    key_facts: list[KeyFact] = []
    unresolved: list[Text] = []
    decision_card: DecisionCard | None = None
    related: list[Annotated[str, Field(strict=True)]] | None = None
    draft: bool = False


class PageMatter(Strict):
    title: Annotated[Text, StringConstraints(max_length=200)]
    description: str | None = None


@dataclass
class Story:
    """A story file whose front matter validated: the model plus where it came from."""

    path: str
    folder: str
    name: str
    meta: FrontMatter
    body: str
    body_line: int
    source: SourceMap

    @property
    def slug(self) -> str:
        return self.meta.slug or slugify(self.meta.title)

    @property
    def published_utc(self) -> dt.datetime:
        return self.meta.published.astimezone(dt.timezone.utc)

    def brief(self) -> StoryBrief:
        """What site-wide rules and indexes read of this story."""
        meta = self.meta
        places = {loc: at for loc, at in self.source.marks.items() if loc[:1] in (("title",), ("related",))}
        return StoryBrief(self.path, self.key, meta.title, meta.published, meta.newsroom,
                          None if meta.related is None else tuple(meta.related), meta.draft,
                          SourceMap(self.source.path, places))

    @functools.cached_property
    def key(self) -> str:
        """`YYYY-MM-DD/slug`: how `related` names a story, and its URL below /stories/."""
        return f"{self.published_utc.date().isoformat()}/{self.slug}"

    @property
    def url_path(self) -> str:
        return f"/stories/{self.key}/"


@dataclass(frozen=True)
class StoryBrief:
    """A story as site-wide rules and indexes see it: its name, time and place in the site, and where its
    title and related entries stand in its file (the findings of site-wide rules point there)."""

    path: str
    key: str
    title: str
    published: dt.datetime
    newsroom: str
    related: tuple[str, ...] | None
    draft: bool
    source: SourceMap

    @property
    def url_path(self) -> str:
        return f"/stories/{self.key}/"


@dataclass
class StoryFile:
    """A story file whose front matter did not validate: its body can still be checked."""

    path: str
    body: str
    body_line: int


@dataclass
class ManifestFile:
    path: str
    name: str
    manifest: Manifest
    source: SourceMap
    digest: str = ""  # of the file's bytes: what a story that cites it was checked and rendered against
    plain: bool = False  # its id is its file name and no claim id repeats: no manifest rule can fire

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def fingerprint(self) -> str:
        return self.digest


@dataclass
class Page:
    """A plain page from content/pages/: `terms/reuse.md` is served at /terms/reuse/."""

    path: str
    url_path: str
    meta: PageMatter
    body: str
    body_line: int
