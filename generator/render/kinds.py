"""The kinds of list page, as data: each row says where its pages live, which field of a story's view puts the
story on them, where their terms are declared, how they are titled, paginated and followed. Listings, counts,
navigation, feeds and sitemap dates are all made from this table, and every link to a term's page (a story's
kicker, a teaser's, a byline's, a feed's categories) is made by its row's path(); a new kind of list is a new
row (and, if its terms are declared, a table in site.toml). It sits with the views, below site/, because the
views and templates link to these pages too."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..content.authors import Author
from ..content.config import SiteConfig
from .dates import shown_time


def edition_label(edition: str, config: SiteConfig) -> str:
    """2026-11-27T10 -> its hour as every other time on the site reads (date_format, in the site's time zone);
    a day edition -> its day (day_format)."""
    if len(edition) == 13:
        return shown_time(f"{edition}:00:00Z", config.timezone, config.date_format)
    return shown_time(edition, config.timezone, config.day_format)


Declared = Mapping[str, Mapping[str, str]]  # where terms are declared -> their slugs and names, in order


def declared_terms(config: SiteConfig, authors: Mapping[str, Author] | None = None) -> Declared:
    """Every place terms are declared: site.toml's tables, and the author files (by slug)."""
    return {"newsrooms": config.newsrooms, "beats": config.beats,
            "authors": {slug: authors[slug].meta.name for slug in sorted(authors or {})}}


@dataclass(frozen=True)
class ListKind:
    name: str                   # what its pages are called (their CSS class reads listing-<name>)
    label: str                  # the kicker above a page's title ("Newsroom")
    prefix: str                 # a term's pages are at prefix + slug + "/" (then "page/2/", ...)
    field: str                  # the field of a story's view that holds its term ("newsroom.slug")
    declared: str | None        # where the terms are declared (slug = name), in order: a site.toml table, or
                                # "authors" (content/authors/); None: the values the stories have, newest first
    title: str                  # a page's title: {name} is the term's name
    description: str            # {name}, {site}, {count} and {stories} ("story" or "stories")
    paginated: bool             # page_size stories a page, else all on one page
    feed: str | None            # each term's Atom and JSON feeds have this description ({name}, {site}); None: none
    teaser_kicker: str          # the term a teaser names above its title on these pages: a field of the view
                                # holding a term ("newsroom", "beat"), the name of the kind whose page it links
    term_name: Callable[[str, SiteConfig], str] | None = None  # an undeclared term's name, from its value
    template: str = "list.html"  # what renders its pages (given `listing`)
    unused: bool = True          # a declared term no built story has gets its page too (an author's would show a
                                 # person whose only stories are drafts or scheduled)

    @property
    def fingerprint(self) -> str:
        """A kind is code: its settings count in every output through the generator's own digest."""
        return self.name

    def path(self, slug: str) -> str:
        """Where a term's first page is (under base_path)."""
        return f"{self.prefix}{slug}/"

    def terms(self, declared: Declared, used: Container[str] | None = None) -> Mapping[str, str]:
        """The declared terms with a page, slug -> name, in declaration order (`declared`: declared_terms();
        `used`: the terms the built stories have, which are all that have one unless the kind shows `unused`)."""
        terms = declared.get(self.declared, {}) if self.declared else {}
        return terms if self.unused or used is None else {slug: name for slug, name in terms.items() if slug in used}

    def describe(self, name: str, config: SiteConfig, count: int) -> str:
        return self.description.format(name=name, site=config.title, count=count,
                                       stories="story" if count == 1 else "stories")


LIST_KINDS = (
    ListKind("edition", "Edition", "/editions/", "edition", None, "Edition of {name}",
             "The {name} edition of {site}: {count} {stories}.", False, None, "beat", edition_label,
             template="edition.html"),
    ListKind("newsroom", "Newsroom", "/newsrooms/", "newsroom.slug", "newsrooms", "{name}",
             "Every story from the {name} newsroom, newest first.", True, "Stories from the {name} newsroom of {site}.",
             "beat"),
    ListKind("beat", "Beat", "/beats/", "beat.slug", "beats", "{name}", "Every story on the {name} beat, newest first.",
             True, None, "newsroom"),
    ListKind("author", "Author", "/authors/", "authors.slug", "authors", "{name}", "Every story by {name}, newest first.",
             True, "Stories by {name} in {site}.", "newsroom", template="author.html", unused=False),
)
KINDS = {kind.name: kind for kind in LIST_KINDS}


# What orders stories and places them on the site's pages: kept apart from a story's JSON, so that planning
# the pages of thousands of stories never parses it.
KEY_FIELDS = ("path", "published", "updated", "edition", "cited_manifest_ids", "images.src", "corrections.date",
              *(kind.field for kind in LIST_KINDS))


def story_keys(data: Mapping[str, Any]) -> dict[str, Any]:
    """The key fields of a story's view (as JSON data)."""
    return {name: _lookup(data, name) for name in KEY_FIELDS}


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    """A field by its dotted name; through a list, the field of each item (a story's terms may be several)."""
    value: Any = data
    for part in dotted.split("."):
        value = [item[part] for item in value] if isinstance(value, list) else value[part]
    return value


def terms_of(story: Any, kind: ListKind) -> list[str]:
    """The terms of this kind a story is listed under: one, or (a list-valued field) several."""
    value = story.keys[kind.field]
    return value if isinstance(value, list) else [value]


class NavLink(NamedTuple):
    """A link of the site's navigation: its text, its href (under base_path) and its absolute URL (what the
    `current` filter compares a page's canonical URL with)."""

    name: str
    href: str
    url: str


class Navigation(NamedTuple):
    """The links every page carries (templates read it as `nav`): the front page, the editions, and each term
    site.toml declares, by kind (`nav.lists.newsroom`, `nav.lists.beat`; `nav.lists.author` is empty: authors
    are declared in content/authors/, and reached from their stories)."""

    latest: NavLink
    editions: NavLink
    lists: dict[str, list[NavLink]]


def navigation(config: SiteConfig) -> Navigation:
    """The links of site.toml's terms (an author's page is reached from their stories, not the navigation)."""
    base = config.base_path
    declared = declared_terms(config)

    def link(name: str, path: str) -> NavLink:
        return NavLink(name, base + path, config.url(path))

    lists = {kind.name: [link(name, kind.path(slug)) for slug, name in kind.terms(declared).items()]
             for kind in LIST_KINDS if kind.declared}
    return Navigation(link("Latest", "/"), link("Editions", KINDS["edition"].prefix), lists)
