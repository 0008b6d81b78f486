"""LP03x: every paragraph and list item says where it comes from, and its figures are in what it cites."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from decimal import Decimal

from ..content.body import Body, Unit
from ..content.cites import CITE
from ..content.findings import Finding
from ..content.models import ID_PATTERN, Story
from . import SiteIndex, rule
from .figures import Figure, figures, numbers

_ID = re.compile(ID_PATTERN)


@rule("LP030", "body", "a body paragraph or list item has no [cites: …]", passes="every paragraph cites its sources")
def units_cite(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for unit in body.units:
        if not unit.cites:
            what = "list item" if unit.kind == "item" else "paragraph"
            yield Finding(path, unit.line, unit.col, "LP030", f"{what} has no [cites: …]")


@rule("LP004", "body", "an id is not a quoted string, or does not match the id pattern")
def cite_ids(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for cite in body.cites:
        for manifest_id in cite.ids:
            if not _ID.match(manifest_id):
                yield Finding(path, cite.line, cite.col, "LP004",
                              f"cited id '{manifest_id}' does not match {ID_PATTERN}")


_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")


@rule("LP031", "story", "a figure appears in none of the claims the ledger uses from the manifests it cites",
      passes="each figure appears in the claims its paragraph cites")
def figures_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    used = _used_claims(story, site)
    for unit in site.bodies[story.path].units:
        if unit.cites:  # a unit that cites nothing is LP030's finding
            places: list[tuple[str, int, int]] | None = None
            for figure in _unsupported(unit.text, unit.cited_ids, used):
                places = _source_figures(unit) if places is None else places
                line, col = _take(places, figure.text, (unit.line, unit.col))
                yield Finding(story.path, line, col, "LP031", _message(figure, unit.cited_ids))
    for i, fact in enumerate(story.meta.key_facts):
        line, col = story.source.at(("key_facts", i, "text"))  # where the key `text` starts
        shift = col + len("text: ") + story.source.quoted.get(("key_facts", i, "text"), False)
        for figure in _unsupported(fact.text, fact.cites, used):
            yield Finding(story.path, line, shift + figure.offset, "LP031", _message(figure, fact.cites))


def _used_claims(story: Story, site: SiteIndex) -> dict[str, set[Decimal]]:
    """Per ledger manifest, the numbers stated by the claims the ledger uses from it."""
    used: dict[str, set[Decimal]] = {}
    for entry in story.meta.ledger:
        found = site.manifests.get(entry.manifest)
        claims = [c.text for c in found.manifest.claims if c.id in entry.claims] if found else []
        used.setdefault(entry.manifest, set()).update(core for text in claims for core in _stated(text))
    return used


@functools.lru_cache(maxsize=1 << 14)
def _stated(text: str) -> frozenset[Decimal]:
    """The numbers a claim states (claims are cited by many stories: each is read once)."""
    return frozenset(number.core for number in numbers(text))


def _unsupported(text: str, cited: list[str], used: dict[str, set[Decimal]]) -> Iterator[Figure]:
    stated = set().union(*(used.get(manifest_id, set()) for manifest_id in cited))
    return (figure for figure in figures(text) if figure.core not in stated)


def _message(figure: Figure, cited: list[str]) -> str:
    return f"figure {figure.text} appears in no claim the ledger uses from {', '.join(dict.fromkeys(cited))}"


def _source_figures(unit: Unit) -> list[tuple[str, int, int]]:
    """The figures of a unit's source lines, in order, with cite markers and link targets blanked out."""
    places = []
    for line, col, text in unit.source:
        for pattern in (CITE, _LINK_TARGET):
            text = pattern.sub(lambda m: " " * len(m[0]), text)
        places.extend((figure.text, line, col + figure.offset) for figure in figures(text))
    return places


def _take(places: list[tuple[str, int, int]], text: str, fallback: tuple[int, int]) -> tuple[int, int]:
    """The place of the next source figure written as text; places before it are passed over."""
    for index, (written, line, col) in enumerate(places):
        if written == text:
            del places[: index + 1]
            return line, col
    return fallback
