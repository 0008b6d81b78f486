"""A story's authors as its byline and its author pages show them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..content.author_files import Author
from ..content.body import render_markdown
from ..content.config import SiteConfig
from ..content.kinds import KINDS
from .view import View


class AuthorView(View):
    """An author of a story: slug, name and role, their page on this site (path, url), their own address."""

    slug: str
    name: str
    role: str | None
    path: str
    url: str
    profile: str | None


class AuthorPage(View):
    """What an author's page shows above their stories: the author, their bio as HTML, how to reach them."""

    author: AuthorView
    bio_html: str
    email: str | None


def author_view(author: Author, config: SiteConfig) -> AuthorView:
    meta = author.meta
    path = KINDS["author"].path(author.slug)
    return AuthorView(slug=author.slug, name=meta.name, role=meta.role, path=path, url=config.url(path),
                      profile=meta.url)


def author_views(slugs: Sequence[str], authors: Mapping[str, Author], config: SiteConfig) -> list[AuthorView]:
    """The story's authors in its order; a slug with no file is left out (LP012 reports it)."""
    return [author_view(authors[slug], config) for slug in dict.fromkeys(slugs) if slug in authors]


def author_page(author: Author, config: SiteConfig) -> AuthorPage:
    return AuthorPage(author=author_view(author, config), bio_html=render_markdown(author.bio), email=author.meta.email)


def byline(authors: Sequence[AuthorView]) -> str:
    """'By Ana Lima', 'By Ana Lima and Tom Reyes', 'By A, B and C'; nothing without authors."""
    names = [author.name for author in authors]
    if not names:
        return ""
    return "By " + "".join(name_separator(n, len(names)) + name for n, name in enumerate(names))


def name_separator(position: int, count: int) -> str:
    """What goes before the name at `position` of `count` in a byline ("", ", " or " and "): the templates,
    which link each name, join them by this too (the filter byline_separator, given the loop)."""
    return "" if position == 0 else " and " if position == count - 1 else ", "
