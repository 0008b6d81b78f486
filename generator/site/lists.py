"""Stories grouped for list pages, by the kinds of list in render/kinds.py: every term's stories, newest first,
paginated where the kind is; and the editions the front page shows."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from ..content.config import SiteConfig
from ..render.dates import edition_time
from ..render.kinds import KINDS, LIST_KINDS, Declared, ListKind, terms_of
from ..render.story_view import Term
from ..render.teaser import Teaser


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
    about: Any = None  # what the page shows about its term above the list (an author's bio), if anything


@dataclass(frozen=True)
class Edition:
    """The stories of one edition, newest first, as the front page and the editions page show them: `total` is
    how many it has (the front page may show fewer), `time` its start as a datetime attribute."""

    id: str
    label: str
    path: str
    stories: list[Teaser]
    total: int
    time: str


def grouped(stories: Sequence[Teaser], kind: ListKind) -> dict[str, list[Teaser]]:
    """Each term of this kind that has stories, with its stories, newest first."""
    return by_term(newest_first(stories), kind)


def by_term(stories: Iterable[Teaser], kind: ListKind) -> dict[str, list[Teaser]]:
    """Each term of this kind that has stories, with its stories in the order given."""
    stories_of: dict[str, list[Teaser]] = {}
    for story in stories:
        for term in terms_of(story, kind):
            stories_of.setdefault(term, []).append(story)
    return stories_of


def list_term(kind: ListKind, slug: str, name: str, config: SiteConfig) -> Term:
    """A term of this kind, with the absolute URL of its list's first page."""
    return Term(slug=slug, name=name, url=config.url(kind.path(slug)))


def term_names(kind: ListKind, config: SiteConfig, declared: Declared,
               stories_of: dict[str, list[Teaser]]) -> dict[str, str]:
    """Slug -> name of every term with a page: the declared ones in their order, else those stories have, newest
    first."""
    if kind.declared:
        return dict(kind.terms(declared, stories_of))
    return {value: kind.term_name(value, config) if kind.term_name else value
            for value in sorted(stories_of, reverse=True)}


def listings(stories: Sequence[Teaser], config: SiteConfig, declared: Declared,
             about: Mapping[str, Mapping[str, Any]] | None = None) -> Iterator[Listing]:
    """Every page of every term of every kind of list; `about`: by kind, by term, what its pages show above
    their list."""
    for kind in LIST_KINDS:
        stories_of = grouped(stories, kind)
        intros = (about or {}).get(kind.name, {})
        for slug, name in term_names(kind, config, declared, stories_of).items():
            mine = stories_of.get(slug, [])
            term = list_term(kind, slug, name, config)
            description = kind.describe(name, config, len(mine))
            title = kind.title.format(name=name)
            if not kind.paginated:
                yield Listing(kind, term, title, description, kind.path(slug), mine, None, intros.get(slug))
                continue
            for path, chunk, pager in paginate(mine, kind.path(slug), config.page_size):
                yield Listing(kind, term, title, description, path, chunk, pager, intros.get(slug))


def paginate(stories: list[Teaser], path: str, page_size: int) -> list[tuple[str, list[Teaser], Pager]]:
    """(page path, its stories, pager) for path, path + 'page/2/', ...; an empty list still has page 1."""
    chunks = [stories[i:i + page_size] for i in range(0, len(stories), page_size)] or [[]]
    paths = [path if n == 1 else f"{path}page/{n}/" for n in range(1, len(chunks) + 1)]
    return [(paths[i], chunk, Pager(i + 1, len(chunks), paths[i - 1] if i else None,
                                    paths[i + 1] if i + 1 < len(chunks) else None))
            for i, chunk in enumerate(chunks)]


def term_counts(stories: Sequence[Teaser], config: SiteConfig, declared: Declared) -> dict[str, list[tuple[Term, int]]]:
    """For each kind of list with declared terms, every term with its number of stories, in declaration order."""
    counts = {}
    for kind in LIST_KINDS:
        if kind.declared:
            stories_of = grouped(stories, kind)
            counts[kind.name] = [(list_term(kind, slug, name, config), len(stories_of.get(slug, [])))
                                 for slug, name in kind.terms(declared, stories_of).items()]
    return counts


def editions(stories: Sequence[Teaser], config: SiteConfig) -> list[Edition]:
    """Stories grouped by edition, the newest edition first."""
    kind = KINDS["edition"]
    # newest edition first; within one, newest first (the sort is stable, reversed too)
    ordered = sorted(newest_first(stories), key=lambda story: story.keys[kind.field], reverse=True)
    made = []
    for key, group in groupby(ordered, key=lambda story: story.keys[kind.field]):
        mine = list(group)
        made.append(Edition(key, kind.term_name(key, config), kind.path(key), mine, len(mine), edition_time(key)))
    return made


def front_editions(all_editions: list[Edition], size: int) -> list[Edition]:
    """The newest `size` stories, grouped by edition, newest edition first: the last edition shown may be cut
    short (its `total` says how many it has, its page shows them all)."""
    shown: list[Edition] = []
    left = size
    for edition in all_editions:
        if left <= 0:
            break
        shown.append(dataclasses.replace(edition, stories=edition.stories[:left]))
        left -= len(edition.stories)
    return shown
