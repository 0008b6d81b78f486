"""Slugs: what one may be (a story's file name and its slug: field, an author's file, site.toml's keys), the
default slug of a title, as SPEC section 2 defines it, and the slug of a title or tag in any language."""

import re

SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
SLUG = re.compile(SLUG_PATTERN)
MAX_SLUG = 70
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(title: str) -> str:
    """Lower-case, runs of non [a-z0-9] to '-', cut to 70, '-' stripped at both ends."""
    return _NOT_SLUG.sub("-", title.lower())[:MAX_SLUG].strip("-")


def title_slug(title: str) -> str:
    """A URL slug that keeps the letters of any language: 'Café' -> 'cafe', 'Straße' -> 'strasse' (a new story's
    slug, a tag's)."""
    from slugify import slugify as keep_letters

    return keep_letters(title, max_length=MAX_SLUG, word_boundary=True, replacements=[["'", ""], ["\u2019", ""]])
