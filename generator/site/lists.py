"""Stories grouped for the kinds' pages (the kinds of content/kinds.py's table): every term's stories, newest
first (a series' in the order to read them), paginated where the kind is; each kind's index of its terms;
the terms the front page lists; and the editions it shows."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from ..content.config import SiteConfig
from ..content.kinds import KINDS, PAGED, Kind
from ..render.dates import edition_time
from ..render.story_terms import Declared, declared_of, term_name, terms_of
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

    kind: Kind
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


@dataclass(frozen=True)
class IndexEntry:
    """A term on its kind's index page: the term, its first page, its number of stories, and (where the kind's
    index lists them) its stories, newest first."""

    term: Term
    path: str
    count: int
    stories: list[Teaser]


@dataclass(frozen=True)
class KindIndex:
    """A kind's index page: every term that has a page, in the kind's order."""

    kind: Kind
    entries: list[IndexEntry]


def grouped(stories: Sequence[Teaser], kind: Kind) -> dict[str, list[Teaser]]:
    """Each term of this kind that has stories, with its stories, newest first."""
    return by_term(newest_first(stories), kind)


def by_term(stories: Iterable[Teaser], kind: Kind) -> dict[str, list[Teaser]]:
    """Each term of this kind that has stories, with its stories in the order given."""
    stories_of: dict[str, list[Teaser]] = {}
    for story in stories:
        for term in terms_of(story, kind):
            stories_of.setdefault(term, []).append(story)
    return stories_of


def list_term(kind: Kind, slug: str, name: str, config: SiteConfig) -> Term:
    """A term of this kind, with the absolute URL of its list's first page."""
    return Term(slug=slug, name=name, url=config.url(kind.path(slug)))


def term_names(kind: Kind, config: SiteConfig, declared: Declared,
               stories_of: dict[str, list[Teaser]]) -> dict[str, str]:
    """Slug -> name of every term with a page, in the kind's order: the declared ones in their order, else
    those the stories have (named by the newest story filed under each), by name or the latest first."""
    if kind.declared:
        terms = declared_of(kind, declared)
        return {slug: name for slug, name in terms.items() if kind.unused or slug in stories_of}
    names = {slug: term_name(stories[0], kind, slug, config) for slug, stories in stories_of.items()}
    if kind.order == "name":
        return dict(sorted(names.items(), key=lambda item: (item[1].casefold(), item[0])))
    return dict(sorted(names.items(), reverse=True))


def listings(stories: Sequence[Teaser], config: SiteConfig, declared: Declared,
             about: Mapping[str, Mapping[str, Any]] | None = None) -> Iterator[Listing]:
    """Every page of every term of every kind with pages; `about`: by kind, by term, what its pages show above
    their list."""
    for kind in PAGED:
        stories_of = grouped(stories, kind)
        intros = (about or {}).get(kind.name, {})
        for slug, name in term_names(kind, config, declared, stories_of).items():
            mine = stories_of.get(slug, [])[::-1] if kind.oldest_first else stories_of.get(slug, [])
            term = list_term(kind, slug, name, config)
            description = kind.describe(name, config.title, len(mine))
            title = kind.title.format(name=name)
            if not kind.paginated:
                yield Listing(kind, term, title, description, kind.path(slug), mine, None, intros.get(slug))
                continue
            for path, chunk, pager in paginate(mine, kind.path(slug), config.page_size):
                yield Listing(kind, term, title, description, path, chunk, pager, intros.get(slug))


def indexes(stories: Sequence[Teaser], config: SiteConfig, declared: Declared) -> Iterator[KindIndex]:
    """The index page of each kind with pages: a kind every story has a term of always has one, another once
    it has a term."""
    for kind in PAGED:
        stories_of = grouped(stories, kind)
        entries = [IndexEntry(list_term(kind, slug, name, config), kind.path(slug), len(stories_of.get(slug, [])),
                              stories_of.get(slug, []) if kind.index_stories else [])
                   for slug, name in term_names(kind, config, declared, stories_of).items()]
        if entries or kind.required:
            yield KindIndex(kind, entries)


def paginate(stories: list[Teaser], path: str, page_size: int) -> list[tuple[str, list[Teaser], Pager]]:
    """(page path, its stories, pager) for path, path + 'page/2/', ...; an empty list still has page 1."""
    chunks = [stories[i:i + page_size] for i in range(0, len(stories), page_size)] or [[]]
    paths = [path if n == 1 else f"{path}page/{n}/" for n in range(1, len(chunks) + 1)]
    return [(paths[i], chunk, Pager(i + 1, len(chunks), paths[i - 1] if i else None,
                                    paths[i + 1] if i + 1 < len(chunks) else None))
            for i, chunk in enumerate(chunks)]


def term_counts(stories: Sequence[Teaser], config: SiteConfig, declared: Declared) -> list[KindIndex]:
    """The kinds the front page lists, in the table's order, each with its terms and their numbers of stories
    (a kind without a term is left out)."""
    return [index for index in indexes(stories, config, declared) if index.kind.front_page]


def editions(stories: Sequence[Teaser], config: SiteConfig) -> list[Edition]:
    """Stories grouped by edition, the newest edition first."""
    kind = KINDS["edition"]
    # newest edition first; within one, newest first (the sort is stable, reversed too)
    ordered = sorted(newest_first(stories), key=lambda story: story.keys[kind.field], reverse=True)
    made = []
    for key, group in groupby(ordered, key=lambda story: story.keys[kind.field]):
        mine = list(group)
        made.append(Edition(key, term_name(mine[0], kind, key, config), kind.path(key), mine, len(mine),
                            edition_time(key)))
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
