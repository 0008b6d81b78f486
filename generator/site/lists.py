"""Stories grouped for list pages, by the kinds of list in site/kinds.py: every term's stories, newest first,
paginated where the kind is; and the editions the front page shows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby

from ..content.config import SiteConfig
from ..render.story_view import Term
from ..render.teaser import Teaser
from .kinds import KINDS, LIST_KINDS, ListKind, terms_of


def newest_first(stories: Sequence[Teaser]) -> list[Teaser]:
    """Newest published first; the URL breaks ties so the order never depends on input order."""
    return sorted(stories, key=lambda story: (story.published, story.path), reverse=True)


@dataclass(frozen=True)
class Pager:
    """Where one page of a paginated list sits: its number, the count, and its neighbours' paths."""

    number: int
    count: int
    prev: str | None
    next: str | None


@dataclass(frozen=True)
class Listing:
    """One page of a list: what list.html renders."""

    kind: ListKind
    term: Term
    title: str
    description: str
    path: str
    stories: list[Teaser]
    pager: Pager | None


@dataclass(frozen=True)
class Edition:
    """The stories of one edition, newest first, as the front page and the editions page show them."""

    id: str
    label: str
    path: str
    stories: list[Teaser]


def grouped(stories: Sequence[Teaser], kind: ListKind) -> dict[str, list[Teaser]]:
    """Each term of this kind that has stories, with its stories, newest first."""
    by_term: dict[str, list[Teaser]] = {}
    for story in newest_first(stories):
        for term in terms_of(story, kind):
            by_term.setdefault(term, []).append(story)
    return by_term


def term_names(kind: ListKind, config: SiteConfig, found: dict[str, list[Teaser]]) -> dict[str, str]:
    """Slug -> name of every term with a page: the declared ones in their order, else those found, newest first."""
    if kind.declared:
        return dict(kind.terms(config))
    return {value: kind.term_name(value) if kind.term_name else value for value in sorted(found, reverse=True)}


def listings(stories: Sequence[Teaser], config: SiteConfig) -> Iterator[Listing]:
    """Every page of every term of every kind of list."""
    for kind in LIST_KINDS:
        found = grouped(stories, kind)
        for slug, name in term_names(kind, config, found).items():
            mine = found.get(slug, [])
            term = Term(slug=slug, name=name, url=config.url(f"{kind.prefix}{slug}/"))
            description = kind.describe(name, config, len(mine))
            title = kind.title.format(name=name)
            if not kind.paginated:
                yield Listing(kind, term, title, description, f"{kind.prefix}{slug}/", mine, None)
                continue
            for path, chunk, pager in paginate(mine, f"{kind.prefix}{slug}/", config.page_size):
                yield Listing(kind, term, title, description, path, chunk, pager)


def paginate(stories: list[Teaser], path: str, page_size: int) -> list[tuple[str, list[Teaser], Pager]]:
    """(page path, its stories, pager) for path, path + 'page/2/', ...; an empty list still has page 1."""
    chunks = [stories[i:i + page_size] for i in range(0, len(stories), page_size)] or [[]]
    paths = [path if n == 1 else f"{path}page/{n}/" for n in range(1, len(chunks) + 1)]
    return [(paths[i], chunk, Pager(i + 1, len(chunks), paths[i - 1] if i else None,
                                    paths[i + 1] if i + 1 < len(chunks) else None))
            for i, chunk in enumerate(chunks)]


def term_counts(stories: Sequence[Teaser], config: SiteConfig) -> dict[str, list[tuple[Term, int]]]:
    """For each kind of list with declared terms, every term with its number of stories, in declaration order."""
    counts = {}
    for kind in LIST_KINDS:
        if kind.declared:
            found = grouped(stories, kind)
            counts[kind.name] = [(Term(slug=slug, name=name, url=config.url(f"{kind.prefix}{slug}/")),
                                  len(found.get(slug, []))) for slug, name in kind.terms(config).items()]
    return counts


def editions(stories: Sequence[Teaser]) -> list[Edition]:
    """Stories grouped by edition, the newest edition first."""
    kind = KINDS["edition"]
    ordered = sorted(newest_first(stories), key=lambda story: story.keys[kind.field], reverse=True)
    return [Edition(key, kind.term_name(key), f"{kind.prefix}{key}/", newest_first(list(group)))
            for key, group in groupby(ordered, key=lambda story: story.keys[kind.field])]


def front_editions(all_editions: list[Edition], page_size: int) -> list[Edition]:
    """Whole editions, newest first, until page_size stories are on the front page (always at least one)."""
    shown: list[Edition] = []
    for edition in all_editions:
        if shown and sum(len(e.stories) for e in shown) + len(edition.stories) > page_size:
            break
        shown.append(edition)
    return shown
