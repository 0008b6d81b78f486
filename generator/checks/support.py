"""LP032: a paragraph, list item or table row shares enough of its distinctive wording with the claims it cites
(and their manifest's title). Calibrated on tests/checks/calibration/ (docs/checks.md gives the figures):
faithful paraphrases and analysis that restates some facts pass; a paragraph cited to the wrong manifest of
its ledger, or one that says what no cited claim says, does not. The same word overlap orders the claims a
reader is shown as the evidence for each paragraph, best match first."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..content.body import Body, Unit
from ..content.findings import Finding
from ..content.models import Claim, ManifestFile, Story
from . import SiteIndex, rule
from .figures import figures
from .resolve import resolution
from .wording import stem_words, text_terms, unit_terms

MIN_WORDS = 5          # fewer distinctive words than this say too little to judge as unsupported
MAX_SHARED = 2         # unsupported: at most this many words shared with the cited claims...
MIN_SHARE = 0.25       # ...and less than this share of the unit's words
WRONG_MARGIN = 3       # cited the wrong manifest: another ledger manifest shares this many more words,
WRONG_SHARE = 0.5      # at least half of the unit's words, and at least twice as many as the cited ones
MIN_BACKING = 2        # evidence: a claim backs a passage with this score (shared words, 2 per figure) or more
_WHAT = {"item": "list item", "row": "table row", "paragraph": "paragraph"}
_TARGETS = re.compile(r"\]\([^)]*\)|<[^>\s]*>")


@dataclass(frozen=True)
class Verdict:
    """How a unit's wording stands against its cited claims: how many distinct terms it has, how many of them
    the cited claims share, and the other ledger manifest that shares the most."""

    words: int
    shared: int
    other: str | None
    other_shared: int

    @property
    def wrong_source(self) -> bool:
        best = self.other_shared
        return best >= self.shared + WRONG_MARGIN and best >= 2 * self.shared and best >= WRONG_SHARE * self.words

    @property
    def unsupported(self) -> bool:
        return self.words >= MIN_WORDS and self.shared <= MAX_SHARED and self.shared < MIN_SHARE * self.words


def verdict(words: frozenset[int], cited: Iterable[str], pools: dict[str, frozenset[int]]) -> Verdict:
    """Judge a passage's terms against the pools (manifest id -> its terms) of the manifests it cites and of
    the ledger's others."""
    cited = tuple(cited)
    pool = frozenset().union(*(pools.get(i, ()) for i in cited))
    other, best = None, 0
    for manifest_id, terms in pools.items():
        if manifest_id not in cited and (count := len(words & terms)) > best:
            other, best = manifest_id, count
    return Verdict(len(words), len(words & pool), other, best)


@rule("LP032", "story", "a paragraph, list item or table row shares too little of its wording with the claims it cites",
      passes="each passage shares its wording with the claims it cites")
def wording_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    units = site.bodies[story.path].units
    for index, judged in verdicts(story, site).items():
        if judged.wrong_source or judged.unsupported:
            unit = units[index]
            pool = frozenset().union(*(ledger_pools(story, site).get(i, ()) for i in unit.cited_ids))
            yield Finding(story.path, unit.line, unit.col, "LP032", _message(unit, judged, pool))


def verdicts(story: Story, site: SiteIndex) -> dict[int, Verdict]:
    """Each judged unit's Verdict, by its index among the body's units (made once per story and run)."""
    key = ("verdicts", story.path)
    made = site.derived.get(key)
    if made is None:
        made = site.derived[key] = _judge(story, site)
    return made  # type: ignore[return-value]


def _judge(story: Story, site: SiteIndex) -> dict[int, Verdict]:
    """verdict() for every judged unit of a story, on the terms wording.unit_terms found in one pass."""
    found, body = resolution(story, site), site.bodies[story.path]
    units = body.units
    cites = [tuple(unit.cited_ids) for unit in units]
    judged = [index for index, unit in enumerate(units) if cites[index] and found.resolved(cites[index]) and not _lead_in(unit)]
    if not judged:
        return {}
    words = unit_terms(story.body, body, story.body_line)
    pools = ledger_pools(story, site)
    unions: dict[tuple[str, ...], frozenset[int]] = {}
    made = {}
    for index in judged:
        cited, terms = cites[index], words[index]
        if len(cited) == 1:
            pool = pools[cited[0]]
        elif (pool := unions.get(cited)) is None:
            pool = unions[cited] = frozenset().union(*(pools[i] for i in cited))
        other, best = None, 0
        for manifest_id, theirs in pools.items():
            if manifest_id not in cited and (count := len(terms & theirs)) > best:
                other, best = manifest_id, count
        made[index] = Verdict(len(terms), len(terms & pool), other, best)
    return made


def misattributed(story: Story, site: SiteIndex) -> dict[int, str]:
    """Units LP032 finds cited to the wrong ledger manifest, and the one they rest on: their figures are not
    checked against the wrong claims (LP031), nor is the right manifest reported as never cited (LP021)."""
    if site.config.checks.get("LP032") == "off" or "LP032" in story.meta.waive:
        return {}
    return {index: judged.other for index, judged in verdicts(story, site).items() if judged.wrong_source}


def _lead_in(unit: Unit) -> bool:
    """A paragraph ending in a colon introduces the list after it, whose items carry the support."""
    return unit.kind == "paragraph" and unit.text.rstrip().endswith(":")


def _message(unit: Unit, judged: Verdict, pool: frozenset[int]) -> str:
    cited = ", ".join(f"'{i}'" for i in unit.cited_ids)
    said = (f"{_WHAT[unit.kind]} shares {judged.shared} of its {judged.words} distinctive words with the claims "
            f"of {cited} it cites")
    if judged.wrong_source:
        return (f"{said}, and {judged.other_shared} with those of '{judged.other}' in the ledger: expected a citation "
                f"of the manifest it rests on, e.g. [cites: {judged.other}]")
    text = _TARGETS.sub(" ", unit.text)
    missing = ", ".join(stem_words(text, text_terms(text) - pool)[:6])
    better = (f"; '{judged.other}' in the ledger shares {judged.other_shared}"
              if judged.other is not None and judged.other_shared > judged.shared else "")
    return (f"{said} (not in them: {missing}){better}: expected wording a cited claim supports, or a citation of the "
            "manifest that says it")


def ledger_pools(story: Story, site: SiteIndex) -> dict[str, frozenset[int]]:
    """Manifest id -> the terms of the claims the ledger uses from it, and of its title."""
    key = ("pools", story.path)
    made = site.derived.get(key)
    if made is None:
        found = resolution(story, site)
        made = site.derived[key] = {manifest_id: pool(site.manifests[manifest_id].manifest.title, claims)
                                    for manifest_id, claims in found.used.items()}
    return made  # type: ignore[return-value]


def pool(title: str, claims: Iterable[Claim | str]) -> frozenset[int]:
    """The terms of a manifest's title and of some of its claims (each text is read once per process)."""
    return text_terms(title).union(*(text_terms(c if isinstance(c, str) else c.text) for c in claims))


Evidence = tuple[tuple[str, tuple[str, ...]], ...]  # ((manifest id, (claim id, … best first)), …)


def used_claims(story: Story, manifests: dict[str, ManifestFile]) -> dict[str, list[Claim]]:
    """Manifest id -> the claims the ledger uses from it that exist, in ledger order."""
    used: dict[str, list[Claim]] = {}
    for entry in story.meta.ledger:
        found = manifests.get(entry.manifest)
        if found is not None and entry.manifest not in used:
            by_id = {claim.id: claim for claim in found.manifest.claims}
            used[entry.manifest] = [by_id[claim_id] for claim_id in entry.claims if claim_id in by_id]
    return used


def evidence(story: Story, body: Body, manifests: dict[str, ManifestFile]) -> list[Evidence]:
    """Per block of the body (sections in order, then blocks), the claims that back it (align)."""
    used = used_claims(story, manifests)
    words = unit_terms(story.body, body, story.body_line) if body.cites else []
    index = {id(unit): i for i, unit in enumerate(body.units)}
    return [align([(unit, words[index[id(unit)]]) for unit in block.units], used) if block.cited_ids else ()
            for section in body.sections for block in section.blocks]


def align(units: list[tuple[Unit, frozenset[int]]], used: dict[str, list[Claim]]) -> Evidence:
    """The claims that back a block's units (each with its terms), by manifest: those sharing the most words
    (and figures) first, and the manifest whose best claim matches best first; a cited manifest none of whose
    claims matches lists all the claims the ledger uses from it."""
    scores: dict[str, dict[str, int]] = {}
    for unit, words in units:
        numbers = _figure_keys(unit.text)
        for manifest_id in unit.cited_ids:
            best = scores.setdefault(manifest_id, {})
            for claim in used.get(manifest_id, ()):
                score = len(words & text_terms(claim.text)) + 2 * len(numbers & _figure_keys(claim.text))
                if score > best.get(claim.id, 0):
                    best[claim.id] = score
    found = []
    for order, (manifest_id, best) in enumerate(scores.items()):
        claims = used.get(manifest_id, [])
        rank = {claim.id: index for index, claim in enumerate(claims)}
        top = max(best.values(), default=0)
        floor = max(MIN_BACKING, top / 3) if top >= MIN_BACKING else top  # a word or two in common is chance
        matched = sorted((c for c, score in best.items() if score >= floor), key=lambda c: (-best[c], rank[c]))
        found.append((-top, order, manifest_id, tuple(matched) or tuple(claim.id for claim in claims)))
    return tuple((manifest_id, claims) for _, _, manifest_id, claims in sorted(found))


@functools.lru_cache(maxsize=1 << 14)
def _figure_keys(text: str) -> frozenset[tuple]:
    return frozenset((figure.unit, figure.magnitude) if figure.date is None else figure.date for figure in figures(text))
