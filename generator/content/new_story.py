"""A new story file: its place, its slug and a skeleton whose placeholders `check` names until they are filled.
`ledgerpress new` and the agent desk start stories through these same functions."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .findings import close_match, did_you_mean
from .layout import story_file
from .slugs import MAX_SLUG, SLUG, title_slug

if TYPE_CHECKING:  # the command line imports this module on every command: pydantic only when a story is made
    from .config import SiteConfig

MAX_TITLE = 200
# Placeholders that fail validation on purpose, so that `check` names each one until it is replaced.
MANIFEST_PLACEHOLDER = "REPLACE with a manifest id: run `ledgerpress manifest new` or `ledgerpress manifests pull`"
CLAIM_PLACEHOLDER = "REPLACE with the ids of the claims you use from that manifest"
BODY_PLACEHOLDER = "REPLACE with the manifest id"


class StoryRefused(ValueError):
    """A value a new story cannot have: `given` names it (title, newsroom, beat, trust, date, slug, author);
    `instead`, when set, names the value to give in its place (each caller words the names its own way)."""

    def __init__(self, given: str, message: str, instead: str | None = None) -> None:
        super().__init__(message)
        self.given, self.message, self.instead = given, message, instead


@dataclass(frozen=True)
class StoryAsked:
    """What a new story is given: by `ledgerpress new`'s argument and options, or the desk's draft_story."""

    title: str
    newsroom: str
    beat: str
    trust: str | None = None      # default: the first of site.toml's [trust]
    draft: bool = True
    date: str | None = None       # ISO 8601 (default: now)
    slug: str | None = None       # default: from the title
    authors: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewStory:
    """A story ready to be written: where, and its text."""

    path: Path
    shown: str  # content/stories/<date>/<slug>.md
    slug: str
    published: dt.datetime
    draft: bool
    text: str


def plan_story(root: Path, config: SiteConfig, asked: StoryAsked, now: dt.datetime | None = None) -> NewStory:
    """Check every value a new story is given and make its text; raises StoryRefused, writes nothing."""
    title = clean_title(asked.title)
    check_keys(config, newsroom=asked.newsroom, beat=asked.beat, trust=asked.trust)
    slug = story_slug(asked.slug, title)
    check_authors(root, asked.authors)
    now = now or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    published = published_at(asked.date, now)
    try:
        shown = story_file(published, slug)
    except ValueError as err:
        raise StoryRefused("date", str(err)) from None
    placed = dataclasses.replace(asked, title=title, slug=slug, trust=asked.trust or next(iter(config.trust)))
    return NewStory(root / shown, shown, slug, published, asked.draft, skeleton(placed, published))


def write_story(story: NewStory) -> None:
    """Write it; a file that exists already is never replaced (FileExistsError)."""
    story.path.parent.mkdir(parents=True, exist_ok=True)
    with open(story.path, "x", encoding="utf-8") as out:
        out.write(story.text)


def published_at(value: str | None, now: dt.datetime) -> dt.datetime:
    """An ISO 8601 date (at the current time of day) or date and time (UTC when it has no offset)."""
    if value is None:
        return now
    try:
        if len(value) == 10:
            day = dt.date.fromisoformat(value)
            return dt.datetime.combine(day, now.timetz())
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise StoryRefused("date", f"'{value}' is not an ISO 8601 date (2026-11-20) or date and time "
                           "(2026-11-20T14:30:00+01:00)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def clean_title(title: str) -> str:
    title = " ".join(title.split())
    if not title:
        raise StoryRefused("title", "the title is empty")
    if len(title) > MAX_TITLE:
        raise StoryRefused("title", f"the title is {len(title)} characters; at most {MAX_TITLE}")
    return title


def check_keys(config: SiteConfig, **given: str | None) -> None:
    """Each of newsroom, beat and trust must be a key its table in site.toml declares."""
    for name, value in given.items():
        table = "newsrooms" if name == "newsroom" else "beats" if name == "beat" else name
        known = getattr(config, table)
        if value is not None and value not in known:
            raise StoryRefused(name, f"'{value}' is not one of {', '.join(sorted(known))} (from site.toml)"
                                     f"{did_you_mean(close_match(value, known))}: use one of them, or add {value} "
                                     f"under [{table}] in content/site.toml")


def story_slug(given: str | None, title: str) -> str:
    if given is not None:
        if not SLUG.fullmatch(given) or len(given) > MAX_SLUG:
            raise StoryRefused("slug", f"'{given}' is not a slug: a-z, 0-9 and single '-' between them, at most "
                               f"{MAX_SLUG} characters")
        return given
    made = title_slug(title)
    if not made:
        raise StoryRefused("title", "the title has no letters or digits to make a slug from", instead="slug")
    return made


def check_authors(root: Path, authors: tuple[str, ...]) -> None:
    for author in authors:
        if not SLUG.fullmatch(author) or not os.path.isfile(root / "content" / "authors" / f"{author}.md"):
            raise StoryRefused("author", f"no author '{author}': add content/authors/{author}.md first")


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar that reads back as text: JSON's escapes, and YAML's line breaks escaped too."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\x85")


def skeleton(story: StoryAsked, published: dt.datetime) -> str:
    """The new story's text (its values checked, its slug and trust level chosen): every required field, its
    slug pinned, and placeholders that `check` reports."""
    lines = ["---", f"title: {yaml_string(story.title)}",
             f"slug: {story.slug}  # pinned: the URL stays when the title changes",
             'description: ""  # required: one or two sentences that say what happened',
             f"published: {published.isoformat().replace('+00:00', 'Z')}",
             f"newsroom: {story.newsroom}", f"beat: {story.beat}", f"trust: {story.trust}"]
    if story.authors:
        lines.append(f"authors: {json.dumps(list(story.authors))}")
    if story.draft:
        lines.append("draft: true  # checked, but built only with --drafts: delete this line to publish")
    lines += ["ledger:  # the manifests this story rests on, and the claims it uses from each",
              f"  - manifest: {json.dumps(MANIFEST_PLACEHOLDER)}",
              f"    claims: [{json.dumps(CLAIM_PLACEHOLDER)}]",
              "---", "", "## What happened", "",
              "Write each paragraph from the claims it cites, and end it with the id of the manifest they come "
              f"from. [cites: {BODY_PLACEHOLDER}]", ""]
    return "\n".join(lines)
