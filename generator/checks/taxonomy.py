"""LP01x: every term a story names of a kind site.toml declares is declared there (the kinds are
content/kinds.py's table), and every story and page has a URL of its own."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding, close_match, did_you_mean
from ..content.kinds import GENERATED_FOLDERS, KINDS_TABLE, SITE_FILES, Kind, site_tables
from ..content.models import Page, Story
from ..content.slugs import title_slug
from . import SiteIndex, rule

_NAMED = [kind.label.lower() for kind in site_tables() if kind.front]


@rule("LP010", "story", f"{', '.join(_NAMED[:-1])} or {_NAMED[-1]} not declared in site.toml")
def declared(story: Story, site: SiteIndex) -> Iterator[Finding]:
    for kind in KINDS_TABLE:
        if kind.front is None or kind.declared == "authors":  # (an undeclared author is LP012)
            continue
        given = getattr(story.meta, kind.front)
        for n, value in enumerate(given if kind.many else [] if given is None else [given]):
            loc = (kind.front, n) if kind.many else (kind.front,)
            if kind.declared is None:
                if not title_slug(value):
                    yield story.source.finding(loc, "LP010", f"{kind.name} '{value}' has no letter or digit to make "
                                               f"the address of its page from: expected a word, e.g. water")
            elif value not in (known := getattr(site.config, kind.declared)):
                yield story.source.finding(loc, "LP010", _undeclared(kind, value, known))


def _undeclared(kind: Kind, value: str, known: dict[str, str]) -> str:
    choices = f"one of {', '.join(sorted(known))}, or {value}" if known else value
    return (f"{kind.front} '{value}' is not declared in site.toml{did_you_mean(close_match(value, known))}: "
            f"expected {choices} declared under [{kind.declared}] there")


@rule("LP011", "site", "two stories (or pages) have the same URL, or a page has the URL of a generated file")
def unique_urls(site: SiteIndex) -> Iterator[Finding]:
    first: dict[str, Story] = {}
    for story in sorted(site.stories, key=lambda s: s.path):
        other = first.setdefault(story.url_path, story)
        if other is not story:
            yield story.source.finding(("title",), "LP011", f"same URL {story.url_path} as {other.path}: expected "
                                       "each story under its own date and slug (set slug: to tell them apart)")
    pages: dict[str, Page] = {}
    for page in sorted(site.pages, key=lambda p: p.path):
        other = pages.setdefault(page.url_path, page)
        taken = generated_at(page.url_path)
        if other is not page:
            yield Finding(page.path, 1, 1, "LP011", f"same URL {page.url_path} as {other.path}: expected each page "
                          "at its own path under content/pages/")
        elif taken:
            yield Finding(page.path, 1, 1, "LP011", f"URL {page.url_path} is taken by {taken}: expected the page "
                          "moved or renamed")


def generated_at(url_path: str) -> str | None:
    """What the build writes where a page at url_path would go, if anything."""
    top = url_path.strip("/").split("/")[0]
    if not top:
        return "the front page (index.html)"
    if top in SITE_FILES:
        return f"the generated file {top}"
    return f"the generated folder {top}/" if top in GENERATED_FOLDERS else None
