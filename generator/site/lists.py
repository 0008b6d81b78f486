"""Stories grouped for list pages: editions, newsrooms and beats, paginated."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby

from ..content.config import SiteConfig
from ..render.story_view import StoryView, Term


def newest_first(views: list[StoryView]) -> list[StoryView]:
    """Newest published first; the URL breaks ties so the order never depends on input order."""
    return sorted(views, key=lambda view: (view.published, view.path), reverse=True)


@dataclass(frozen=True)
class Edition:
    """The stories published in one edition (an hour, `YYYY-MM-DDTHH`), newest first."""

    id: str
    label: str
    path: str
    stories: list[StoryView]


@dataclass(frozen=True)
class Pager:
    """Where one page of a paginated list sits: its number, the count, and its neighbours' paths."""

    number: int
    count: int
    prev: str | None
    next: str | None


@dataclass(frozen=True)
class Listing:
    """One list page (a newsroom, a beat or an edition): what list.html renders."""

    kind: str
    term: Term
    title: str
    description: str
    path: str
    stories: list[StoryView]
    pager: Pager | None
    feeds: bool = False


def editions(views: list[StoryView]) -> list[Edition]:
    """Stories grouped by edition, the newest edition first."""
    ordered = sorted(newest_first(views), key=lambda view: view.edition, reverse=True)
    return [Edition(key, edition_label(key), f"/editions/{key}/", newest_first(list(group)))
            for key, group in groupby(ordered, key=lambda view: view.edition)]


def edition_label(edition: str) -> str:
    """2026-11-27T10 -> 2026-11-27 10:00 UTC, the way every other time on the site reads."""
    return f"{edition[:10]} {edition[11:13]}:00 UTC"


def front_editions(all_editions: list[Edition], page_size: int) -> list[Edition]:
    """Whole editions, newest first, until page_size stories are on the front page (always at least one)."""
    shown: list[Edition] = []
    for edition in all_editions:
        if shown and sum(len(e.stories) for e in shown) + len(edition.stories) > page_size:
            break
        shown.append(edition)
    return shown


def paginate(stories: list[StoryView], path: str, page_size: int) -> list[tuple[str, list[StoryView], Pager]]:
    """(page path, its stories, pager) for path, path + 'page/2/', ...; an empty list still has page 1."""
    chunks = [stories[i:i + page_size] for i in range(0, len(stories), page_size)] or [[]]
    paths = [path if n == 1 else f"{path}page/{n}/" for n in range(1, len(chunks) + 1)]
    return [(paths[i], chunk, Pager(i + 1, len(chunks), paths[i - 1] if i else None,
                                    paths[i + 1] if i + 1 < len(chunks) else None))
            for i, chunk in enumerate(chunks)]


def term_listings(views: list[StoryView], config: SiteConfig, kind: str) -> Iterator[Listing]:
    """Every page of every declared newsroom (kind 'newsroom') or beat (kind 'beat'), in declaration order."""
    names = config.newsrooms if kind == "newsroom" else config.beats
    by_term: dict[str, list[StoryView]] = {}
    slug_of = operator.attrgetter(f"{kind}_slug")
    for view in newest_first(views):
        by_term.setdefault(slug_of(view), []).append(view)
    for slug, name in names.items():
        term = Term(slug=slug, name=name, url=config.url(f"/{kind}s/{slug}/"))
        mine = by_term.get(slug, [])
        description = (f"Every story from the {name} newsroom, newest first." if kind == "newsroom"
                       else f"Every story on the {name} beat, newest first.")
        for path, chunk, pager in paginate(mine, f"/{kind}s/{slug}/", config.page_size):
            yield Listing(kind, term, name, description, path, chunk, pager, feeds=kind == "newsroom")


def term_counts(views: list[StoryView], config: SiteConfig, kind: str) -> list[tuple[Term, int]]:
    """Each declared newsroom or beat with its number of stories, in declaration order."""
    names = config.newsrooms if kind == "newsroom" else config.beats
    counts = Counter(map(operator.attrgetter(f"{kind}_slug"), views))
    return [(Term(slug=slug, name=name, url=config.url(f"/{kind}s/{slug}/")), counts[slug])
            for slug, name in names.items()]


def edition_listings(all_editions: list[Edition], config: SiteConfig) -> Iterator[Listing]:
    for edition in all_editions:
        term = Term(slug=edition.id, name=edition.label, url=config.url(edition.path))
        count = len(edition.stories)
        description = f"The {edition.label} edition of {config.title}: {count} stor{'y' if count == 1 else 'ies'}."
        yield Listing("edition", term, f"Edition of {edition.label}", description, edition.path, edition.stories,
                      None)
