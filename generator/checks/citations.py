"""LP030, LP031: every paragraph, list item and table row says where it comes from, and every figure a reader
sees (there, in key facts, the title, the description and the headings) is stated by what it cites."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..content.body import LINK_TARGETS, Body, Unit
from ..content.cites import CITE
from ..content.findings import Finding
from ..content.models import ID_PATTERN, Story
from . import SiteIndex, rule
from .figures import Figure, figures
from .resolve import Resolution, resolution
from .stated import Stated, stated_by
from .support import misattributed

_ID = re.compile(ID_PATTERN)
_WORDS = re.compile(r"\w")  # after the last citation, punctuation may close the sentence; words may not


@rule("LP030", "body", "a body paragraph, list item or table row has no [cites: …]",
      passes="every paragraph cites its sources")
def units_cite(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for unit in body.units:
        if not unit.cites:
            where = "in any of its cells" if unit.kind == "row" else "at its end"
            yield Finding(path, unit.line, unit.col, "LP030", f"{unit.what} has no [cites: …]: expected the "
                          f"manifest it rests on {where}, e.g. [cites: 1792456955874654825]")
        elif unit.kind != "row" and _WORDS.search(tail := unit.after_last_cite()):
            last = unit.last_cite
            yield Finding(path, last.line, last.col, "LP030", f"{unit.what} goes on after its last "
                          f"[cites: …] ('{tail[:40]}'): expected a [cites: …] at its end for what it says after")


@rule("LP004", "body", "an id is not a quoted string, or does not match the id pattern")
def cite_ids(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for cite in body.cites:
        for manifest_id in cite.ids:
            if not _ID.match(manifest_id):
                yield Finding(path, cite.line, cite.col, "LP004",
                              f"cited id '{manifest_id}' is not an id: expected 1-64 letters, digits, '_' or '-', "
                              "several separated by commas, e.g. [cites: 1792456955874654825, 1501960966234710671]")


_LEAD = re.compile(r"[-−]?(?:(?:USD|EUR|GBP) ?)?[$€£]?[\d,.]*\d")


@rule("LP031", "story", "a figure appears in none of the claims that support the place it is in",
      passes="each figure appears in the claims its paragraph cites")
def figures_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    found = resolution(story, site)
    moved = misattributed(story, site)  # cited to the wrong manifest: LP032 says so
    for index, unit in enumerate(site.bodies[story.path].units):
        if unit.cites and found.resolved(unit.cited_ids) and index not in moved:  # no cite: LP030; unknown: LP02x
            places: list[tuple[str, int, int]] | None = None
            stated = stated_by(story, found, unit.cited_ids, site)
            for figure in stated.unsupported(unit.text):
                places = _source_figures(unit) if places is None else places
                line, col = _take(places, figure, (unit.line, unit.col))
                yield Finding(story.path, line, col, "LP031", _message(figure, unit.cited_ids, stated))
    for i, fact in enumerate(story.meta.key_facts):
        if found.resolved(fact.cites):
            line, col = _value_place(story, ("key_facts", i, "text"))
            stated = stated_by(story, found, fact.cites, site)
            for figure in stated.unsupported(fact.text):
                yield Finding(story.path, line, col + figure.offset, "LP031", _message(figure, fact.cites, stated))
    yield from _headline_figures(story, site, found)


def _headline_figures(story: Story, site: SiteIndex, found: Resolution) -> Iterator[Finding]:
    """The title, the description and the `## ` headings speak for the whole story: all its ledger's claims."""
    ledger = list(found.entries)
    if not found.resolved(ledger):
        return
    stated = stated_by(story, found, ledger, site)
    for field in ("title", "description"):
        line, col = _value_place(story, (field,))
        for figure in stated.unsupported(getattr(story.meta, field)):
            yield Finding(story.path, line, col + figure.offset, "LP031", _message(figure, ledger, stated, f"the {field}"))
    lines = story.body.split("\n")
    for section in site.bodies[story.path].sections:
        if section.title is None:
            continue
        row = section.line - story.body_line - 1
        text = lines[row] if 0 <= row < len(lines) else ""
        start = max(text.find(section.title), 0) + 1
        for figure in stated.unsupported(section.title):
            yield Finding(story.path, section.line, start + figure.offset, "LP031",
                          _message(figure, ledger, stated, "a heading"))


def _value_place(story: Story, loc: tuple) -> tuple[int, int]:
    """Where a one-line front-matter value starts: after its key, the colon, a space and an opening quote."""
    line, col = story.source.at(loc)
    return line, col + len(f"{loc[-1]}: ") + story.source.quoted.get(loc, False)


def _message(figure: Figure, cited: list[str], stated: Stated, where: str = "") -> str:
    place = f" in {where}" if where else ""
    source = "the ledger's claims" if where else f"the claims the ledger uses from {', '.join(dict.fromkeys(cited))}"
    near = stated.nearest(figure)
    hint = f" (one says '{near}')" if near else ""
    if figure.date:
        return (f"date '{figure.text}'{place} is not in {source}{hint}, nor the published date of a cited manifest "
                "or of the story: expected a date as a cited claim states it")
    return (f"figure '{figure.text}'{place} is not in {source}{hint}: expected the value, unit and scale a cited "
            "claim states")


def _source_figures(unit: Unit) -> list[tuple[str, int, int]]:
    """The figures of a unit's source lines, in order, with cite markers and link targets blanked out."""
    places = []
    for line, col, text in unit.source:
        for pattern in (CITE, LINK_TARGETS):
            text = pattern.sub(lambda m: " " * len(m[0]), text)
        places.extend((_lead(figure), line, col + figure.offset) for figure in figures(text))
    return places


def _lead(figure: Figure) -> str:
    """A figure as the source writes its number (emphasis may split `$3.6 **billion**`)."""
    if figure.date:
        return figure.text
    found = _LEAD.match(figure.text)
    return found[0] if found else figure.text


def _take(places: list[tuple[str, int, int]], figure: Figure, fallback: tuple[int, int]) -> tuple[int, int]:
    """The place of the next source figure written as this one; places before it are passed over."""
    text = _lead(figure)
    for index, (written, line, col) in enumerate(places):
        if written == text:
            del places[: index + 1]
            return line, col
    return fallback
