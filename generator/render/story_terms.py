"""A story's terms as the site's pages read them (the kinds are content/kinds.py's table): the fields of its
view that order it and place it on the kinds' pages, kept apart from its JSON so that planning the pages of
thousands of stories never parses it; the terms of one kind a story is under; each term's name; and where
the terms of each kind are declared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..content.author_files import Author
from ..content.config import SiteConfig
from ..content.kinds import PAGED, Kind, site_tables
from .dates import shown_time


def edition_label(edition: str, config: SiteConfig) -> str:
    """2026-11-27T10 -> its hour as every other time on the site reads (date_format, in the site's time zone);
    a day edition -> its day (day_format)."""
    if len(edition) == 13:
        return shown_time(f"{edition}:00:00Z", config.timezone, config.date_format)
    return shown_time(edition, config.timezone, config.day_format)


Declared = Mapping[str, Mapping[str, str]]  # where terms are declared -> their slugs and names, in order


def declared_terms(config: SiteConfig, authors: Mapping[str, Author] | None = None) -> Declared:
    """Every place terms are declared: site.toml's tables (of the kinds that have one), and the author files."""
    found: dict[str, Mapping[str, str]] = {kind.declared: getattr(config, kind.declared) for kind in site_tables()}
    found["authors"] = {slug: authors[slug].meta.name for slug in sorted(authors or {})}
    return found


def declared_of(kind: Kind, declared: Declared) -> Mapping[str, str]:
    """A kind's declared terms, slug -> name, in declaration order (none for a kind that declares none)."""
    return declared.get(kind.declared, {}) if kind.declared else {}


def name_field(kind: Kind) -> str | None:
    """Where a story's view holds the names of its terms of this kind, when no table or file declares them and
    their names are as the stories write them (a tag's)."""
    return kind.field.removesuffix(".slug") + ".name" if kind.declared is None and kind.names is None else None


# What orders stories and places them on the site's pages: kept apart from a story's JSON.
KEY_FIELDS = tuple(dict.fromkeys(("path", "published", "updated", "edition", "cited_manifest_ids", "images.src",
                                  "corrections.date", *(kind.field for kind in PAGED),
                                  *filter(None, map(name_field, PAGED)))))


def story_keys(data: Mapping[str, Any]) -> dict[str, Any]:
    """The key fields of a story's view (as JSON data)."""
    return {name: _lookup(data, name) for name in KEY_FIELDS}


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    """A field by its dotted name (None where the view has none: a kind a story names no term of); through a
    list, the field of each item (a story's terms may be several)."""
    value: Any = data
    for part in dotted.split("."):
        if isinstance(value, list):
            value = [item[part] for item in value]
        elif isinstance(value, Mapping):
            value = value.get(part)
        else:
            return None
    return value


def terms_of(story: Any, kind: Kind) -> list[str]:
    """The slugs of the terms of this kind a story is listed under: none, one or (a list-valued field) several."""
    value = story.keys[kind.field]
    return [] if value is None else value if isinstance(value, list) else [value]


def term_name(story: Any, kind: Kind, slug: str, config: SiteConfig) -> str:
    """The name of an undeclared term, from a story filed under it: its time (an edition), or as it wrote it."""
    if kind.names == "edition":
        return edition_label(slug, config)
    names = story.keys[name_field(kind)]
    return names[terms_of(story, kind).index(slug)] if isinstance(names, list) else names
