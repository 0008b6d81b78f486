"""LP030, LP031: every paragraph, list item and table row says where it comes from, and every figure and date a
reader sees (there, in key facts, the title, the description, the headings, the caption and corrections) is the
one the claims it rests on state (checks.sentence_rules compares them)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..content.body import Body
from ..content.findings import Finding
from ..content.models import ID_PATTERN, Story
from . import SiteIndex, rule
from .sentence_rules import figure_findings

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
            if not _ID.fullmatch(manifest_id):
                yield Finding(path, cite.line, cite.col, "LP004",
                              f"cited id '{manifest_id}' is not an id: expected 1-64 letters, digits, '_' or '-', "
                              "several separated by commas, e.g. [cites: 1792456955874654825, 1501960966234710671]")


@rule("LP031", "story", "a figure or date appears in none of the claims that support the place it is in, or differs "
      "from the one its claim states", passes="each figure and date is the one its claims state")
def figures_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from figure_findings(story, site)
