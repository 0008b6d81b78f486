"""The rules that compare each sentence a reader sees with the claims it rests on (checks.meaning): LP031's
figures and dates, LP026 for a retracted statement still printed, LP027 for a claim the ledger does not list,
LP033 (negation, opposites, certainty), LP034 (quotations and their speakers), LP035 (superlatives and
absolutes), LP036 (who said or did it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from ..content.cites import CITE
from ..content.body import LINK_TARGETS
from ..content.findings import Finding
from ..content.models import Story
from . import SiteIndex, rule
from .alignment import Place, aligned
from .meaning import Context, Disagreement, disagreements, published_days
from .resolve import resolution
from .statements import claim_statement, content_stems, people
from .support import misattributed, wording_supported


@dataclass
class Compared:
    """A story's places, each sentence aligned, and what its sentences say that their claims do not."""

    places: list[Place]
    found: list[tuple[Place, Disagreement]]


def compared(story: Story, site: SiteIndex) -> Compared:
    """Made once per story and check run, for every rule below."""
    return site.derive(("compared", story.path), lambda: _compare(story, site))


def _compare(story: Story, site: SiteIndex) -> Compared:
    body = site.bodies[story.path]
    found_places, claims = aligned(story, body, site.manifests)
    resolved = resolution(story, site)
    moved = misattributed(story, site)
    units = body.units
    skipped = {id(units[index]) for index in moved}
    records = [site.manifests[i].manifest for i in claims.refs]
    texts = [ref.text for refs in claims.refs.values() for ref in refs]
    dates = {"": published_days([story.meta.published])}
    for manifest in records:
        dates[manifest.id] = published_days([manifest.published, *([manifest.retracted.date] if manifest.retracted else [])])
    titled = [when for m in records for when in claim_statement(m.title).whens]
    spoken = frozenset().union(*claims.terms.values(), *(content_stems(m.title) for m in records))
    corrected = frozenset(c.manifest for c in story.meta.corrections if c.manifest)
    context = Context(claims, dates, people([*texts, *(m.title for m in records)]), tuple(claims.refs),
                      titled, spoken, corrected)
    found = []
    for place in found_places:
        if not place.cited or not resolved.resolved(place.cited) or (place.unit is not None and id(place.unit) in skipped):
            continue
        found.extend((place, disagreement) for disagreement in disagreements(place, context))
    return Compared(found_places, found)


def _findings(story: Story, site: SiteIndex, code: str) -> Iterator[Finding]:
    for place, disagreement in compared(story, site).found:
        if disagreement.code == code:
            line, col = where(story, place, disagreement.start, disagreement.end)
            yield Finding(story.path, line, col, code, f"{place.kind}: {disagreement.message}")


def where(story: Story, place: Place, start: int, end: int) -> tuple[int, int]:
    """The file line and column of a span of a place's text: found again in the unit's source lines (its
    Markdown), or after the field's key in the front matter."""
    if place.loc is not None:
        line, col = story.source.at(place.loc)
        return line, col + len(f"{place.loc[-1]}: ") + story.source.quoted.get(place.loc, False) + start
    if place.unit is None:
        lines = story.body.split("\n")
        row = place.line - story.body_line - 1
        text = lines[row] if 0 <= row < len(lines) else ""
        return place.line, max(text.find(place.text), 0) + 1 + start
    needle = place.text[start:end] or place.text[start:start + 1]
    seen = place.text.count(needle, 0, start)
    for line, col, text in place.unit.source:
        for pattern in (CITE, LINK_TARGETS):
            text = pattern.sub(lambda m: " " * len(m[0]), text)
        at = -1
        while True:
            at = text.find(needle, at + 1)
            if at < 0:
                break
            if seen == 0:
                return line, col + at
            seen -= 1
    return place.unit.line, place.unit.col


@rule("LP032", "story", "a paragraph, list item or table row shares too little of its wording with the claims it cites, "
      "or a sentence in it says what no source says", passes="each passage shares its wording with the claims it cites")
def wording(story: Story, site: SiteIndex) -> Iterator[Finding]:
    unlisted = {finding.line for finding in _findings(story, site, "LP027")}  # (what rests on a claim left out of
    passages = [f for f in wording_supported(story, site) if f.line not in unlisted]  # the ledger: LP027 says so)
    yield from passages
    flagged = {finding.line for finding in passages}
    yield from (finding for finding in _findings(story, site, "LP032") if finding.line not in flagged)


@rule("LP027", "story", "a sentence rests on a claim of a cited manifest that the ledger does not list",
      passes="every sentence rests on claims the ledger lists")
def unlisted_claims(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from _findings(story, site, "LP027")


@rule("LP033", "story", "a sentence says the opposite of the claim it rests on (a negation, a direction or outcome, "
      "or a possibility stated as certain)", passes="no sentence turns round what its claim says")
def contradictions(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from _findings(story, site, "LP033")


@rule("LP034", "story", "a quotation is not word for word in a cited claim, or is given to another speaker",
      passes="every quotation is in a cited claim, word for word, with its speaker")
def quotations(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from _findings(story, site, "LP034")


@rule("LP035", "story", "a superlative or absolute (record, first, only, all, never) that no cited claim states",
      passes="every superlative and absolute is stated by a cited claim")
def superlatives(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from _findings(story, site, "LP035")


@rule("LP036", "story", "a sentence names a person or organisation other than the one its claim names",
      passes="each sentence names who its claim says said or did it")
def actors(story: Story, site: SiteIndex) -> Iterator[Finding]:
    yield from _findings(story, site, "LP036")


def figure_findings(story: Story, site: SiteIndex) -> Iterator[Finding]:
    """LP031 (registered in citations.py): figures and dates each sentence's claims do not state."""
    yield from _findings(story, site, "LP031")


def retracted_statements(story: Story, site: SiteIndex) -> Iterator[Finding]:
    """LP026's part of the sentences (registered in retractions.py): a retracted claim still stated."""
    yield from _findings(story, site, "LP026")


def day(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).date().isoformat()
