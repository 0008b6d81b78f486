"""The input records of a site (stories, manifests, pages) as validated models."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from .findings import SourceMap
from .slugs import slugify

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


EDITION_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}$"


Id = Annotated[str, Field(strict=True), StringConstraints(pattern=ID_PATTERN)]


Text = Annotated[str, Field(strict=True), StringConstraints(min_length=1)]


def _in_range(value: dt.date) -> dt.date:
    """Years 1000 to 9999 in UTC: every output writes a date with four digits for its year, and a time at
    the ends of the calendar cannot be converted to UTC at all (0001-01-01T00:00:00+14:00)."""
    try:
        year = value.astimezone(dt.timezone.utc).year if isinstance(value, dt.datetime) else value.year
    except OverflowError:
        year = 0
    if not 1000 <= year <= 9999:
        raise ValueError("must fall between the years 1000 and 9999 (in UTC)")
    return value


Moment = Annotated[AwareDatetime, AfterValidator(_in_range)]


class Strict(BaseModel):
    """Unknown fields are errors: a typo must not pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    def __reduce__(self) -> tuple:
        """Pickled as its JSON and validated again when unpickled: the same model, in a third of the time both
        ways (the build's workers send the parent every story's front matter)."""
        return _from_json, (type(self), self.model_dump_json())


def _from_json(model: type[Strict], text: str) -> Strict:
    return model.model_validate_json(text)


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
    published: Moment
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
    published: Moment
    newsroom: Text
    beat: Text
    trust: Text
    ledger: list[LedgerEntry] = Field(min_length=1)
    slug: Annotated[str, Field(strict=True), StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")] | None = None
    updated: Annotated[AwareDatetime | dt.date, AfterValidator(_in_range)] | None = None
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
    meta: FrontMatter | Brief
    body: str
    body_line: int
    source: SourceMap

    @property
    def slug(self) -> str:
        return self.meta.slug or slugify(self.meta.title)

    @property
    def published_utc(self) -> dt.datetime:
        return self.meta.published.astimezone(dt.timezone.utc)

    def brief(self) -> Story:
        """This story as the memo keeps it: only what site-wide work reads of a story it does not read again
        (the places of its title and related entries, where site-wide findings point)."""
        meta = self.meta
        kept = Brief(meta.title, meta.slug, meta.published, meta.newsroom, meta.related, meta.draft)
        places = {loc: at for loc, at in self.source.marks.items() if loc[:1] in (("title",), ("related",))}
        brief = Story(self.path, self.folder, self.name, kept, "", self.body_line, SourceMap(self.source.path, places))
        brief.key = self.key  # computed once
        return brief

    @functools.cached_property
    def key(self) -> str:
        """`YYYY-MM-DD/slug`: how `related` names a story, and its URL below /stories/."""
        return f"{self.published_utc.date().isoformat()}/{self.slug}"

    @property
    def url_path(self) -> str:
        return f"/stories/{self.key}/"


@dataclass
class Brief:
    """The front-matter fields of a story kept by the build memo (a FrontMatter is far slower to load)."""

    title: str
    slug: str | None
    published: dt.datetime
    newsroom: str
    related: list[str] | None
    draft: bool


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
    digest: str = ""  # of the file's text: what a story that cites it was checked and rendered against
    plain: bool = False  # its id is its file name and no claim id repeats: no manifest rule can fire


@dataclass
class Page:
    """A plain page from content/pages/: `terms/reuse.md` is served at /terms/reuse/."""

    path: str
    url_path: str
    meta: PageMatter
    body: str
    body_line: int
