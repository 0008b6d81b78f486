"""LP030, LP031: every paragraph, list item and table row says where it comes from, and every figure and date a
reader sees (there, in key facts, the title, the description, the headings, the caption and corrections) is the
one the claims it rests on state (checks.sentence_rules compares them)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..content.body import Body, Unit
from ..content.findings import Finding
from ..content.models import ID_PATTERN, Story
from . import SiteIndex, rule
from .sentence_rules import figure_findings
from .statements import content_stems

_ID = re.compile(ID_PATTERN)
_WORDS = re.compile(r"\w")  # after the last citation, punctuation may close the sentence; words may not


@rule("LP030", "body", "a body paragraph, list item or table row has no [cites: …]",
      passes="every paragraph cites its sources")
def units_cite(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for unit in body.units:
        if not unit.cites:
            where = "in any of its cells" if unit.kind == "row" else "at its end"
            yield Finding(path, unit.line, unit.col, "LP030", f"{unit.what} has no [cites: …]: expected the "
                          f"manifest it rests on {where}, e.g. {_likely_cite(path, unit, site)}")
        elif unit.kind != "row" and _WORDS.search(tail := unit.after_last_cite()):
            last = unit.last_cite
            yield Finding(path, last.line, last.col, "LP030", f"{unit.what} goes on after its last "
                          f"[cites: …] ('{tail[:40]}'): expected a [cites: …] at its end for what it says after")


def _likely_cite(path: str, unit: Unit, site: SiteIndex) -> str:
    """The citation to suggest: the manifest of the story's ledger whose claims share the most words with the
    unit (the ledger's first on a tie), named by its title; a made-up id when the story has no readable ledger."""
    story = next((story for story in site.stories if story.path == path), None)
    ledger = [entry.manifest for entry in story.meta.ledger if entry.manifest in site.manifests] if story else []
    if not ledger:
        return "[cites: 1792456955874654825]"
    words = content_stems(unit.text)
    shared = {manifest_id: len(words & content_stems(" ".join(claim.text for claim in
                                                                site.manifests[manifest_id].manifest.claims)))
              for manifest_id in ledger}
    best = max(ledger, key=lambda manifest_id: shared[manifest_id])  # (max keeps the first of equals)
    return f"[cites: {best}] (\"{site.manifests[best].manifest.title}\", whose claims it shares most words with)"


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
