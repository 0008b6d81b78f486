"""The links every page carries (templates read them as `nav`): the front page, the editions, and the declared
terms of each kind whose row of content/kinds.py places them in a row of the navigation."""

from __future__ import annotations

from typing import NamedTuple

from ..content.config import SiteConfig
from ..content.kinds import KINDS, KINDS_TABLE
from .story_terms import declared_of, declared_terms


class NavLink(NamedTuple):
    """A link of the site's navigation: its text, its href (under base_path), its absolute URL (what the
    `current` filter compares a page's canonical URL with), and whether a page below it is in its section."""

    name: str
    href: str
    url: str
    section: bool = True


class NavRow(NamedTuple):
    """One row of links, named by the kind whose terms it holds (its CSS class reads nav-<plural>)."""

    name: str
    links: list[NavLink]


class Navigation(NamedTuple):
    """`rows`, in order: the first starts with the front page and ends with the editions; `latest`, `editions`
    and `lists` (each kind's links by its name) name the same links one by one."""

    latest: NavLink
    editions: NavLink
    lists: dict[str, list[NavLink]]
    rows: list[NavRow]


def navigation(config: SiteConfig) -> Navigation:
    """The links of site.toml's terms, by the navigation row their kind names (an author's page is reached from
    their stories, not the navigation)."""
    base = config.base_path
    declared = declared_terms(config)

    def link(name: str, path: str, section: bool = True) -> NavLink:
        return NavLink(name, base + path, config.url(path), section)

    placed = sorted((kind for kind in KINDS_TABLE if kind.nav is not None), key=lambda kind: kind.nav)
    lists = {kind.name: [link(name, kind.path(slug)) for slug, name in declared_of(kind, declared).items()]
             for kind in placed}
    latest, editions = link("Latest", "/", section=False), link("Editions", KINDS["edition"].prefix)
    rows = [NavRow(kind.plural, lists[kind.name]) for kind in placed]
    if rows:
        rows[0] = NavRow(rows[0].name, [latest, *rows[0].links, editions])
    return Navigation(latest, editions, lists, rows)
