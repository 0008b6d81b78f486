"""The input records of a site (stories, manifests, pages) as validated models."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

from .findings import SourceMap
from .kinds import KINDS_TABLE
from .layout import utc_date
from .slugs import SLUG_PATTERN, slugify

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
EDITION_PATTERN = r"^\d{4}-\d{2}-\d{2}(T\d{2})?$"  # an hour, or a day when site.toml says edition = "day"

Id = Annotated[str, Field(strict=True), StringConstraints(pattern=ID_PATTERN)]
Text = Annotated[str, Field(strict=True), StringConstraints(min_length=1)]


UNWAIVABLE = frozenset({"LP001", "LP002", "LP003", "LP004", "LP005"})  # the story must load and be placed


def _waivable(code: str) -> str:
    if code in UNWAIVABLE:
        raise ValueError(f"{code} cannot be waived (LP001-LP005 make a story loadable): fix what it reports instead")
    return code


RuleCode = Annotated[str, Field(strict=True), StringConstraints(pattern=r"^LP\d{3}$"), AfterValidator(_waivable)]


def _in_range(value: dt.date) -> dt.date:
    """A date the outputs can write (utc_date says which)."""
    utc_date(value)
    return value


Moment = Annotated[AwareDatetime, AfterValidator(_in_range)]
MomentOrDay = Annotated[AwareDatetime | dt.date, AfterValidator(_in_range)]


class Strict(BaseModel):
    """Unknown fields are errors: a typo must not pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Claim(Strict):
    id: Id
    text: Text
    retracted: bool = False  # the source withdrew this claim: stories citing it fail LP026 until corrected


class Retraction(Strict):
    """The source withdrew the whole record: when, and what it said."""

    date: Moment
    note: Text


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
    retracted: Retraction | None = None


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


class Correction(Strict):
    """A dated note that sets the record straight; one naming a manifest acknowledges its retraction (LP026)."""

    date: MomentOrDay
    text: Text
    manifest: Id | None = None


class LeadImage(Strict):
    """The story's lead image: a file of content/images/, what it shows (alt, LP071), who made it (credit, LP072)."""

    src: Annotated[str, Field(strict=True), StringConstraints(min_length=1, max_length=500)]
    alt: Annotated[str, Field(strict=True), StringConstraints(max_length=1000)] = ""
    credit: Annotated[str, Field(strict=True), StringConstraints(max_length=300)] | None = None
    caption: Annotated[Text, StringConstraints(max_length=1000)] | None = None


Slug = Annotated[str, Field(strict=True), StringConstraints(pattern=SLUG_PATTERN)]


class StoryHead(Strict):
    """The first fields of a story's front matter; the terms it is filed under (newsroom, beat, trust, tags,
    series) follow them, one field for each kind content/kinds.py says a story names, then the rest."""

    title: Annotated[Text, StringConstraints(max_length=200)]
    description: Annotated[Text, StringConstraints(max_length=400)]
    published: Moment


TermText = Annotated[Text, StringConstraints(max_length=100)]
MAX_TERMS = 50  # terms of one kind a story may name


def _term_fields() -> dict[str, Any]:
    """The field of each kind whose terms a story names in its front matter: one term, or (`many`) a list."""
    fields: dict[str, Any] = {}
    for kind in KINDS_TABLE:
        if kind.front is None:
            continue
        if kind.many:
            fields[kind.front] = (list[TermText], Field(default=[], max_length=MAX_TERMS))
        else:
            fields[kind.front] = (Text, ...) if kind.required else (Text | None, None)
    return fields


StoryFiled = create_model("StoryFiled", __base__=StoryHead, __module__=__name__, **_term_fields())


class FrontMatter(StoryFiled):
    """A story's front matter as SPEC sections 2, 6.1 and 6.3 list it."""

    ledger: list[LedgerEntry] = Field(min_length=1)
    slug: Slug | None = None
    updated: MomentOrDay | None = None
    edition: Annotated[str, Field(strict=True), StringConstraints(pattern=EDITION_PATTERN)] | None = None
    key_facts: list[KeyFact] = []
    unresolved: list[Text] = []
    decision_card: DecisionCard | None = None
    related: list[Annotated[str, Field(strict=True)]] | None = None
    draft: bool = False
    corrections: list[Correction] = []
    waive: dict[RuleCode, Text] = {}  # rule code -> the published reason this story is exempt from it
    authors: list[Slug] = Field(default=[], max_length=20)  # each a file content/authors/<slug>.md (LP012)
    image: LeadImage | None = None

    @field_validator("edition")
    @classmethod
    def _edition_form(cls, edition: str | None, info: ValidationInfo) -> str | None:
        """An edition is an hour (YYYY-MM-DDTHH) or, when the site's editions are days, a day (YYYY-MM-DD)."""
        mode = (info.context or {}).get("edition", "hour")
        if edition is not None and (len(edition) == 13) != (mode == "hour"):
            form = "an hour, YYYY-MM-DDTHH" if mode == "hour" else "a day, YYYY-MM-DD"
            raise ValueError(f"'{edition}' is not {form}: expected e.g. \"{'2026-11-21T10' if mode == 'hour' else '2026-11-21'}\" "
                             f"(site.toml sets edition = \"{mode}\")")
        return edition

    @field_validator("updated")
    @classmethod
    def _updated_not_before_published(cls, updated: dt.datetime | dt.date | None,
                                      info: ValidationInfo) -> dt.datetime | dt.date | None:
        """A story cannot have changed before it was published: such an `updated` would be shown, or silently
        passed over for the published time, as the story's last change."""
        published = info.data.get("published")
        if updated is None or published is None:
            return updated
        early = updated < published if isinstance(updated, dt.datetime) else updated < published.astimezone(dt.timezone.utc).date()
        if early:
            raise PydanticCustomError(
                "before_published", "{shown} is before the story's published date {published}: expected that date "
                "or a later one (or no updated: field until the story changes)",
                {"at": (), "shown": updated.isoformat(), "published": published.isoformat()})
        return updated

    @field_validator("corrections")
    @classmethod
    def _not_before_published(cls, corrections: list[Correction], info: ValidationInfo) -> list[Correction]:
        """A correction cannot predate the story it corrects (SPEC 6.3)."""
        published = info.data.get("published")
        for i, correction in enumerate(corrections if published is not None else ()):
            when = correction.date
            early = when < published if isinstance(when, dt.datetime) else when < published.astimezone(dt.timezone.utc).date()
            if early:
                raise PydanticCustomError(
                    "before_published", "{shown} is before the story's published date {published}: expected that "
                    "date or a later one", {"at": (i, "date"), "shown": when.isoformat(), "published": published.isoformat()})
        return corrections


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

    def brief(self, shown: tuple[ImageUse, ...] = ()) -> StoryBrief:
        """What site-wide rules and indexes read of this story; `shown`: the images of its body."""
        meta = self.meta
        places = {loc: at for loc, at in self.source.marks.items() if loc[:1] in _BRIEF_PLACES}
        lead = meta.image
        images = ((ImageUse(lead.src, lead.alt, lead.credit, True, *self.source.at(("image", "src"))),) if lead else ())
        return StoryBrief(self.path, self.key, meta.title, meta.published, meta.newsroom,
                          None if meta.related is None else tuple(meta.related), meta.draft,
                          SourceMap(self.source.path, places), dict(meta.waive),
                          tuple((entry.manifest, tuple(entry.claims)) for entry in meta.ledger),
                          frozenset(c.manifest for c in meta.corrections if c.manifest),
                          tuple(meta.authors), images + tuple(shown),
                          tuple(sorted(_due(correction.date) for correction in meta.corrections)))

    @functools.cached_property
    def key(self) -> str:
        """`YYYY-MM-DD/slug`: how `related` names a story, and its URL below /stories/."""
        return f"{self.published_utc.date().isoformat()}/{self.slug}"

    @property
    def url_path(self) -> str:
        return f"/stories/{self.key}/"


_BRIEF_PLACES = (("title",), ("related",), ("waive",), ("authors",), ("image",))


@dataclass(frozen=True)
class ImageUse:
    """An image a story shows: its src (relative to content/images/), its alt text, its credit (the lead image
    has one), and where it is written (the lead image's src line, or the body's line and column)."""

    src: str
    alt: str
    credit: str | None
    lead: bool
    line: int
    col: int


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
    waive: dict[str, str] = field(default_factory=dict)
    ledger: tuple[tuple[str, tuple[str, ...]], ...] = ()  # each manifest of its ledger, with the claims it uses
    corrected: frozenset[str] = frozenset()  # the manifests its corrections name
    authors: tuple[str, ...] = ()             # the slugs of its authors
    images: tuple[ImageUse, ...] = ()         # the images it shows, the lead image first
    corrections: tuple[dt.datetime, ...] = ()  # when each of its corrections falls due (a day: its start, UTC)

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


def _due(value: dt.date) -> dt.datetime:
    """A correction's date as the moment it falls due: a day at its start in UTC, a time as it is."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    return dt.datetime.combine(value, dt.time(), dt.timezone.utc)
